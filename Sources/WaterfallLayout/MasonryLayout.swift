/// The one-section masonry layout of SPEC §1.

/// A growable masonry wall: images are placed one after another into the columns of a
/// `LayoutConfiguration`. Appending in any number of parts gives the same tiles as placing
/// all images at once, and costs only the new images (O(log columns) each).
///
/// Limits: no tile may end below `LayoutLimits.maxCoordinate` (2^53). `tryAppend(_:)` reports
/// the image that would, and sizes with a side below 1; `append(_:)` never fails: it treats
/// such sides as 1 and, at the limit, stops placing for good (`isTruncated`).
public struct MasonryLayout: Sendable {
    /// The options the layout was made with.
    public let configuration: LayoutConfiguration
    var stack: ColumnStack
    /// True once `append(_:)` met an image whose tile would end below
    /// `LayoutLimits.maxCoordinate`: that image and every later one were left out, and
    /// further appends are ignored. `tiles.count` is the number placed.
    public private(set) var isTruncated = false

    /// An empty layout.
    public init(configuration: LayoutConfiguration) {
        self.configuration = configuration
        self.stack = ColumnStack(configuration: configuration, top: configuration.insets.top)
    }

    /// A layout of `sizes`, as by `append(_:)`.
    public init(configuration: LayoutConfiguration, sizes: [LayoutSize]) {
        self.init(configuration: configuration)
        append(sizes)
    }

    /// Places `sizes` after the existing tiles. Never fails: a side below 1 counts as 1, and
    /// an image whose tile would end below `LayoutLimits.maxCoordinate` sets `isTruncated`.
    @inlinable
    public mutating func append(_ sizes: some Sequence<LayoutSize>) {
        _ = withBuffer(of: sizes) { appendBuffer($0, strict: false) }
    }

    /// Places `sizes` after the existing tiles, or throws for the first image that has a side
    /// below 1 or whose tile would end below `LayoutLimits.maxCoordinate`. The images before
    /// it stay placed (`tiles.count` tells how many); it and the rest are not.
    /// Also throws, placing nothing, when the layout `isTruncated`.
    @inlinable
    public mutating func tryAppend(_ sizes: some Sequence<LayoutSize>) throws(LayoutError) {
        if let error = withBuffer(of: sizes, { appendBuffer($0, strict: true) }) { throw error }
    }

    /// The non-generic body of both appends, so callers in other modules get the fast loop.
    @usableFromInline
    mutating func appendBuffer(_ sizes: UnsafeBufferPointer<LayoutSize>, strict: Bool) -> LayoutError? {
        if isTruncated {
            return strict ? LayoutError("the layout was truncated at image \(tiles.count): nothing more can be appended") : nil
        }
        guard let failure = stack.place(sizes, strict: strict) else { return nil }
        if !strict { isTruncated = true }
        return failure.layoutError()
    }

    /// Every tile, in input order.
    public var tiles: [PlacedTile] { stack.tiles }

    /// The sheet width.
    public var width: Int { configuration.width }

    /// The sheet height: `top + bottom` plus the tallest column (its last tile's bottom minus `top`).
    public var height: Int { stack.contentBottom + configuration.insets.bottom }
}

/// Calls `body` with the elements of `sizes` in contiguous memory, copying only when needed.
@inlinable
func withBuffer<Result>(
    of sizes: some Sequence<LayoutSize>, _ body: (UnsafeBufferPointer<LayoutSize>) -> Result
) -> Result {
    if let result = sizes.withContiguousStorageIfAvailable(body) { return result }
    return Array(sizes).withUnsafeBufferPointer(body)
}
