/// Rect queries ("which tiles intersect this rectangle"), the seeds' `layoutAttributesForElementsInRect`.

extension ColumnStack {
    /// Indices of the tiles that intersect `rect`, increasing.
    ///
    /// A column's tiles are stacked without overlap, so their bottoms increase in placement
    /// order whatever the `PlacementOrder`. The columns under `rect` form a run found by binary
    /// search; in each, a binary search finds the first tile ending below `rect.y` and a walk
    /// collects tiles until one starts at or below `rect.maxY`. The per-column runs are already
    /// in index order and are merged by the standard library's run-aware stable sort.
    /// Cost: O(c · log n + k · log c) for n tiles, c columns under `rect` and k results.
    func tileIndices(in rect: LayoutRect) -> [Int] {
        guard rect.width > 0, rect.height > 0, !tiles.isEmpty else { return [] }
        let minX = rect.x, maxX = rect.maxX, minY = rect.y, maxY = rect.maxY
        let xs = configuration.columnXs, widths = configuration.columnWidths
        var column = firstIndex(count: xs.count) { xs[$0] + widths[$0] > minX }
        var result: [Int] = []
        var runs = 0
        while column < xs.count && xs[column] < maxX {
            let entries = columnEntries[column]
            var position = firstIndex(count: entries.count) { entries[$0].bottom > minY }
            let countBefore = result.count
            while position < entries.count && tiles[entries[position].index].minY < maxY {
                result.append(entries[position].index)
                position += 1
            }
            if result.count > countBefore { runs += 1 }
            column += 1
        }
        if runs > 1 { result.sort() }
        return result
    }
}

/// The first `i` in `0 ..< count` for which `isPast(i)` holds, or `count`; `isPast` must be
/// false then true along `0 ..< count` (a partition point). O(log count).
@inline(__always)
func firstIndex(count: Int, where isPast: (Int) -> Bool) -> Int {
    var low = 0
    var high = count
    while low < high {
        let middle = low + (high - low) / 2
        if isPast(middle) { high = middle } else { low = middle + 1 }
    }
    return low
}

extension MasonryLayout {
    /// The tiles whose frames intersect `rect` (sharing at least one pixel), in index order.
    /// An empty `rect` matches nothing. Cost: O(c · log n + k · log c) for n tiles,
    /// c columns under `rect` and k results; columns are few, so in practice O(log n + k).
    public func tiles(in rect: LayoutRect) -> [PlacedTile] {
        let tiles = stack.tiles
        return stack.tileIndices(in: rect).map { tiles[$0] }
    }
}
