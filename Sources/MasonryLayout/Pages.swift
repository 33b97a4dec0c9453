/// Pages (SPEC §6): a wall cut into pages no taller than a limit, each page its own wall.

/// How a `PagedLayout` cuts its wall into pages.
public struct PageLimits: Sendable, Hashable {
    /// No page is taller than this; 0 for one page, however tall.
    public var maxHeight: Int
    /// No page holds more tiles than this; 0 for no limit.
    public var maxTiles: Int
    /// A band reserved at the top of every page, between the top inset and the columns (a
    /// title); 0 for none.
    public var headerHeight: Int

    public init(maxHeight: Int = 0, maxTiles: Int = 0, headerHeight: Int = 0) {
        self.maxHeight = maxHeight
        self.maxTiles = maxTiles
        self.headerHeight = headerHeight
    }

    /// One page, however tall.
    public static let onePage = PageLimits()
}

/// One page of a `PagedLayout`: which tiles it holds and how tall it is.
public struct LayoutPage: Sendable, Hashable {
    /// The indices of its tiles (consecutive: pages partition the images in order).
    public let tiles: Range<Int>
    /// The page's own content height (SPEC §1 with the header band), at most `maxHeight`.
    public let height: Int
}

/// A masonry wall cut into pages by the SPEC §6 rule: images go in order; the column is chosen
/// by the §1 rule on the current page; when the tile's bottom would pass `maxHeight` minus the
/// bottom inset, or the page already holds `maxTiles` images, the page is closed and the image
/// starts the next page at the top. Every page is a wall of its own (same columns, gaps and
/// insets; tile y within the page), so each obeys §1 alone. With `PageLimits.onePage` the
/// tiles are exactly those of `MasonryLayout`.
///
/// Every tile may carry a band under its picture (a caption, `bandHeight`), which is part of
/// the tile's height and so of the placement.
public struct PagedLayout: Sendable {
    public let configuration: LayoutConfiguration
    public let limits: PageLimits
    /// Every tile, in input order; `index` numbers them across pages, `frame.y` is within the page.
    public private(set) var tiles: [PlacedTile] = []
    public private(set) var pages: [LayoutPage] = []

    /// Lays out `sizes` (both sides at least 1), each tile with a band of `bandHeight` px
    /// (0...`LayoutLimits.maxLength`) under its picture. Throws when a tile cannot fit on any
    /// page (the message names `smallestMaxHeight`) or would end below `LayoutLimits.maxCoordinate`.
    public init(configuration: LayoutConfiguration, sizes: [LayoutSize], bandHeight: Int = 0,
                limits: PageLimits) throws(LayoutError) {
        self.configuration = configuration
        self.limits = limits
        let insets = configuration.insets
        let top = insets.top + limits.headerHeight
        let floor = limits.maxHeight > 0 ? limits.maxHeight - insets.bottom : LayoutLimits.maxCoordinate
        var stack = ColumnStack(configuration: configuration, top: top)
        var pageStart = 0
        tiles.reserveCapacity(sizes.count)
        for (index, size) in sizes.enumerated() {
            guard size.width >= 1, size.height >= 1 else {
                throw LayoutError("image \(index) has size \(size.width)x\(size.height): both sides must be at least 1")
            }
            var proposal = stack.propose(sourceWidth: size.width, sourceHeight: size.height, bandHeight: bandHeight)
            let full = limits.maxTiles > 0 && index - pageStart == limits.maxTiles
            if (proposal.bottom > floor || full) && index > pageStart {
                closePage(stack, from: pageStart)
                pageStart = index
                stack = ColumnStack(configuration: configuration, top: top)
                proposal = stack.propose(sourceWidth: size.width, sourceHeight: size.height, bandHeight: bandHeight)
            }
            guard proposal.bottom <= floor else {
                if limits.maxHeight > 0 {
                    let needed = Self.smallestMaxHeight(configuration: configuration, sizes: sizes,
                                                        bandHeight: bandHeight, headerHeight: limits.headerHeight)
                    throw LayoutError("image \(index) needs a tile \(proposal.height) px tall, which no page of "
                                      + "\(limits.maxHeight) px can hold; the smallest page height that works is \(needed)")
                }
                throw LayoutError("image \(index) would end at y = \(proposal.bottom), beyond the layout limit \(LayoutLimits.maxCoordinate)")
            }
            stack.commit(proposal)
            tiles.append(stack.tiles[stack.tiles.count - 1].renumbered(index))
        }
        closePage(stack, from: pageStart)
    }

    private mutating func closePage(_ stack: ColumnStack, from start: Int) {
        pages.append(LayoutPage(tiles: start ..< tiles.count, height: stack.contentBottom + configuration.insets.bottom))
    }

    /// The page (0-based) that holds tile `index`.
    public func page(ofTile index: Int) -> Int {
        var low = 0, high = pages.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if pages[middle].tiles.lowerBound <= index { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The smallest `maxHeight` that holds every one of these tiles on a page of its own: the
    /// tallest tile (its column's width decides its height; placed in the widest column when
    /// that is taller) plus the insets and the header band.
    public static func smallestMaxHeight(configuration: LayoutConfiguration, sizes: [LayoutSize], bandHeight: Int,
                                         headerHeight: Int) -> Int {
        // Columns of equal width give equal heights: only the first of each width matters.
        let columns = configuration.columnWidths.indices.filter { $0 == 0 || configuration.columnWidths[$0] != configuration.columnWidths[$0 - 1] }
        var tallest = 0
        for size in sizes where size.width >= 1 && size.height >= 1 {
            for column in columns {
                let (height, _) = pictureSize(configuration, column: column, sourceWidth: size.width, sourceHeight: size.height)
                tallest = max(tallest, height)
            }
        }
        return configuration.insets.top + headerHeight + tallest + bandHeight + configuration.insets.bottom
    }
}
