/// The column-placement core (SPEC §1 "Tile height" and "Placement"), shared by
/// `MasonryLayout` and every section of `SectionedLayout`.

/// One image's tile: where it sits on the sheet and where its picture is drawn.
///
/// Stored compactly (48 bytes instead of 80: a million tiles are 48 MB): horizontal values are
/// at most `LayoutLimits.maxLength` (2^24), so they are kept as `Int32`.
public struct PlacedTile: Sendable, Hashable {
    /// Position of the image in the layout's input order.
    public let index: Int
    private let y: Int
    private let height: Int
    private let storedColumn: Int32
    private let x: Int32
    private let width: Int32
    private let imageOffset: Int32
    private let imageWidth: Int32
    private let storedBandHeight: Int32

    /// A tile at (`x`, `y`), `width` x `height`, whose picture is `imageWidth` wide and starts
    /// `imageOffset` px right of `x`, with a band of `bandHeight` px under the picture (part of
    /// `height`); horizontal values and the band must lie in `0 ... LayoutLimits.maxLength`.
    init(index: Int, column: Int, x: Int, y: Int, width: Int, height: Int, imageOffset: Int, imageWidth: Int,
         bandHeight: Int = 0) {
        self.index = index
        self.y = y
        self.height = height
        self.storedColumn = Int32(truncatingIfNeeded: column)
        self.x = Int32(truncatingIfNeeded: x)
        self.width = Int32(truncatingIfNeeded: width)
        self.imageOffset = Int32(truncatingIfNeeded: imageOffset)
        self.imageWidth = Int32(truncatingIfNeeded: imageWidth)
        self.storedBandHeight = Int32(truncatingIfNeeded: bandHeight)
    }

    /// The same tile with another index (a page's tile numbered within the whole plan).
    func renumbered(_ newIndex: Int) -> PlacedTile {
        PlacedTile(index: newIndex, column: column, x: Int(x), y: y, width: Int(width), height: height,
                   imageOffset: Int(imageOffset), imageWidth: Int(imageWidth), bandHeight: bandHeight)
    }

    /// The column (0-based, from the left) the tile was placed in.
    public var column: Int { Int(storedColumn) }

    /// The tile: the column's x and width, the column's bottom when placed, the tile height.
    public var frame: LayoutRect {
        LayoutRect(x: Int(x), y: y, width: Int(width), height: height)
    }

    /// Where the picture is drawn: equal to `frame` unless the tile height was capped by
    /// `maxTileAspect`, in which case the picture is narrower and centred horizontally, or the
    /// tile has a band under its picture (`bandHeight`), which the picture leaves free.
    public var imageFrame: LayoutRect {
        LayoutRect(x: Int(x) + Int(imageOffset), y: y, width: Int(imageWidth), height: height - bandHeight)
    }

    /// The height of the band under the picture (a caption), 0 for none.
    public var bandHeight: Int { Int(storedBandHeight) }

    /// The band under the picture: the tile's full width, its last `bandHeight` rows.
    public var bandFrame: LayoutRect {
        LayoutRect(x: Int(x), y: y + height - bandHeight, width: Int(width), height: bandHeight)
    }

    /// The tile's top edge.
    var minY: Int { y }
}

/// Why the core stopped placing: the image at `index` (in the stack's own numbering) could not be placed.
struct PlacementFailure: Error {
    enum Reason {
        /// A side below 1, in a strict append.
        case invalidSize(LayoutSize)
        /// The tile would end below `LayoutLimits.maxCoordinate`.
        case beyondLimit(bottom: Int)
    }
    let index: Int
    let reason: Reason

    /// The one-line message, prefixed with `context` (e.g. "section 2, ").
    func layoutError(context: String = "") -> LayoutError {
        switch reason {
        case .invalidSize(let size):
            return LayoutError("\(context)image \(index) has size \(size.width)x\(size.height): both sides must be at least 1")
        case .beyondLimit(let bottom):
            return LayoutError("\(context)image \(index) would end at y = \(bottom), beyond the layout limit \(LayoutLimits.maxCoordinate)")
        }
    }
}

/// The SPEC §1 tile height for a source of `sourceWidth` x `sourceHeight` (both >= 1) in a
/// column `columnWidth` wide (1 ... 2^24): `max(1, (2*w*sh + sw) / (2*sw))` (round half up),
/// capped at `cap = maxTileAspect * w`. Returns that height and the width the picture is
/// drawn at: `w`, or when capped `max(1, (2*h*sw + sh) / (2*sh))`, which is at most `w`.
@inline(__always)
func tileHeight(columnWidth w: Int, sourceWidth sw: Int, sourceHeight sh: Int, cap: Int)
    -> (height: Int, imageWidth: Int)
{
    let rounded: Int
    if sw <= Int(Int32.max) && sh <= Int(Int32.max) {
        // 2*w*sh + sw <= 2^25 * 2^31 + 2^31 < 2^57: no overflow is possible.
        rounded = (2 &* w &* sh &+ sw) / (2 &* sw)
    } else {
        // Sides beyond 2^31 (never from a PNG): widen; the numerator stays below 2^89.
        let wide = (2 * Int128(w) * Int128(sh) + Int128(sw)) / (2 * Int128(sw))
        rounded = Int(min(wide, Int128(cap) + 1))
    }
    let height = max(1, rounded)
    guard height > cap else { return (height, w) }
    // Capped: 2*cap*sw can exceed 2^63 (cap <= 2^48, sw up to Int.max), so widen.
    let imageWidth = (2 * Int128(cap) * Int128(sw) + Int128(sh)) / (2 * Int128(sh))
    return (cap, max(1, Int(imageWidth)))
}

/// Where `ColumnStack.propose` would put the next tile.
struct Proposal {
    let column: Int
    let y: Int
    /// The tile height, band included.
    let height: Int
    let imageWidth: Int
    let bandHeight: Int
    var bottom: Int { y &+ height }
}

/// The height of a picture of `sourceWidth` x `sourceHeight` in `column` and the width it is
/// drawn at: `tileHeight` in the column's width, or, for a narrower picture that is not to be
/// enlarged, in its own width (so its own size, unless capped by the column's aspect cap).
@inline(__always)
func pictureSize(_ configuration: LayoutConfiguration, column: Int, sourceWidth: Int, sourceHeight: Int)
    -> (height: Int, imageWidth: Int)
{
    let width = configuration.columnWidths[column]
    let drawnWidth = configuration.enlargesNarrowImages ? width : min(width, sourceWidth)
    // width <= 2^24 and maxTileAspect <= 2^24, so the cap is at most 2^48.
    return tileHeight(columnWidth: drawnWidth, sourceWidth: sourceWidth, sourceHeight: sourceHeight,
                      cap: configuration.maxTileAspect &* width)
}

/// A tile as its column's list keeps it for queries: its bottom edge and its index.
struct ColumnEntry: Sendable {
    let bottom: Int
    let index: Int
}

/// Columns growing downwards from `top`: places tiles, remembers them per column for
/// queries, and tracks the content bottom. Appending costs only the new images.
struct ColumnStack: Sendable {
    let configuration: LayoutConfiguration
    /// The y where every column starts.
    let top: Int
    /// Every tile, in placement order (tile `i` has index `i`).
    private(set) var tiles: [PlacedTile] = []
    /// For each column, its tiles in placement order. A column's tiles do not overlap, so
    /// their bottoms (and indices) increase along the list: the rect query searches it.
    private(set) var columnEntries: [[ColumnEntry]]
    /// The largest `maxY` of any tile, or `top` when there are none.
    private(set) var contentBottom: Int
    /// A min-tree over the column bottoms B_c: leaf of column c at `leafBase + c`, node i has
    /// children 2i and 2i+1, unused leaves hold `Int.max`. It answers "leftmost column with
    /// B_c <= min(B) + tolerance" in O(log columns), so wide walls stay linear in images.
    private var bottomTree: [Int]
    private let leafBase: Int

    init(configuration: LayoutConfiguration, top: Int) {
        self.configuration = configuration
        self.top = top
        let columns = configuration.columns
        var leafBase = 1
        while leafBase < columns { leafBase <<= 1 }
        self.leafBase = leafBase
        var tree = [Int](repeating: .max, count: 2 * leafBase)
        for column in 0 ..< columns { tree[leafBase + column] = top }
        for node in stride(from: leafBase - 1, through: 1, by: -1) {
            tree[node] = min(tree[2 * node], tree[2 * node + 1])
        }
        self.bottomTree = tree
        self.columnEntries = Array(repeating: [], count: columns)
        self.contentBottom = top
    }

    /// Places `sizes` after the existing tiles. With `strict`, a side below 1 stops placement;
    /// otherwise such a side counts as 1. A tile that would end below
    /// `LayoutLimits.maxCoordinate` always stops it. On a stop, the images before the failing
    /// one stay placed and the failure is returned.
    mutating func place(_ sizes: UnsafeBufferPointer<LayoutSize>, strict: Bool) -> PlacementFailure? {
        let columns = configuration.columns
        tiles.reserveGeometrically(forAdditional: sizes.count)
        let expectedPerColumn = sizes.count / columns + 1
        for column in 0 ..< columns {
            columnEntries[column].reserveGeometrically(forAdditional: expectedPerColumn)
        }
        for size in sizes {
            if strict && (size.width < 1 || size.height < 1) {
                return PlacementFailure(index: tiles.count, reason: .invalidSize(size))
            }
            if let failure = placeOne(sourceWidth: max(1, size.width), sourceHeight: max(1, size.height)) {
                return failure
            }
        }
        return nil
    }

    @inline(__always)
    private mutating func placeOne(sourceWidth: Int, sourceHeight: Int) -> PlacementFailure? {
        let proposal = propose(sourceWidth: sourceWidth, sourceHeight: sourceHeight, bandHeight: 0)
        guard proposal.bottom <= LayoutLimits.maxCoordinate else {
            return PlacementFailure(index: tiles.count, reason: .beyondLimit(bottom: proposal.bottom))
        }
        commit(proposal)
        return nil
    }

    /// Where the next image would go (SPEC §1), with a band of `bandHeight` px under its
    /// picture, without placing it. Sides must be at least 1.
    @inline(__always)
    func propose(sourceWidth: Int, sourceHeight: Int, bandHeight: Int) -> Proposal {
        let column = chooseColumn(index: tiles.count)
        let (height, imageWidth) = pictureSize(configuration, column: column, sourceWidth: sourceWidth,
                                               sourceHeight: sourceHeight)
        // y is a column bottom: at most maxCoordinate plus a few 2^24 (a row gap, or a
        // section's insets and header), and height + band <= 2^49: the sums cannot overflow.
        return Proposal(column: column, y: bottomTree[leafBase + column], height: height &+ bandHeight,
                        imageWidth: imageWidth, bandHeight: bandHeight)
    }

    /// Places the tile `proposal` describes (it must come from `propose` on this stack, unchanged since).
    @inline(__always)
    mutating func commit(_ proposal: Proposal) {
        let index = tiles.count, column = proposal.column, width = configuration.columnWidths[column]
        tiles.append(PlacedTile(
            index: index, column: column, x: configuration.columnXs[column], y: proposal.y, width: width,
            height: proposal.height, imageOffset: (width &- proposal.imageWidth) / 2, imageWidth: proposal.imageWidth,
            bandHeight: proposal.bandHeight))
        columnEntries[column].append(ColumnEntry(bottom: proposal.bottom, index: index))
        contentBottom = max(contentBottom, proposal.bottom)
        setBottom(proposal.bottom &+ configuration.rowGap, ofColumn: column)
    }

    @inline(__always)
    private func chooseColumn(index: Int) -> Int {
        switch configuration.order {
        case .shortest:
            // B_c <= min(B) + t; saturating, so a huge tolerance simply picks column 0.
            let threshold = saturatingSum(bottomTree[1], configuration.tolerance)
            var node = 1
            while node < leafBase {
                node = bottomTree[2 &* node] <= threshold ? 2 &* node : 2 &* node &+ 1
            }
            return node &- leafBase
        case .leftToRight:
            return index % configuration.columns
        case .rightToLeft:
            return configuration.columns &- 1 &- index % configuration.columns
        }
    }

    @inline(__always)
    private mutating func setBottom(_ bottom: Int, ofColumn column: Int) {
        var node = leafBase &+ column
        bottomTree[node] = bottom
        while node > 1 {
            node >>= 1
            bottomTree[node] = min(bottomTree[2 &* node], bottomTree[2 &* node &+ 1])
        }
    }
}

extension Array {
    /// Makes room for `extra` more elements, at least doubling the capacity when it grows,
    /// so that many small appends stay amortised O(1) per element (a plain
    /// `reserveCapacity(count + extra)` would reallocate on every call).
    mutating func reserveGeometrically(forAdditional extra: Int) {
        let needed = count + extra
        if needed > capacity { reserveCapacity(Swift.max(needed, 2 * capacity)) }
    }
}
