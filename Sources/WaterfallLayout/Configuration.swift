/// Layout options (SPEC §1), their validation and the column geometry derived from them.

/// How the next image chooses its column.
public enum PlacementOrder: String, Sendable, CaseIterable, Codable {
    /// The leftmost column whose bottom is within `tolerance` of the shortest column.
    case shortest
    /// Column `i mod n` for image `i`.
    case leftToRight = "left-to-right"
    /// Column `n - 1 - (i mod n)` for image `i`.
    case rightToLeft = "right-to-left"
}

/// The bounds that keep every intermediate product of the layout inside `Int`.
public enum LayoutLimits {
    /// The largest accepted width, column width, gap, inset, header or footer height and
    /// `maxTileAspect`: 2^24 = 16 777 216. With it a tile is at most 2^48 px tall.
    public static let maxLength = 1 << 24

    /// The most columns a layout may have: 2^16 = 65 536 (each costs memory up front).
    public static let maxColumns = 1 << 16

    /// The largest bottom edge (`maxY`) any element of a layout may have: 2^53, the largest
    /// integer that JSON readers using doubles still read exactly. Sheet heights stay below
    /// `maxCoordinate + maxLength`, so they never overflow either.
    public static let maxCoordinate = 1 << 53
}

/// Why a layout could not be made: names the offending value and the rule it breaks.
public struct LayoutError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One line, e.g. `columns must be at least 1 (got 0)`.
    public let description: String
    /// When the reason is a tile no page can hold: the image's index and the smallest page
    /// height that works (so a caller can name the file and the options that work).
    public let tileTooTall: (image: Int, smallestPageHeight: Int)?

    init(_ description: String, tileTooTall: (image: Int, smallestPageHeight: Int)? = nil) {
        self.description = description
        self.tileTooTall = tileTooTall
    }

    public static func == (a: LayoutError, b: LayoutError) -> Bool {
        a.description == b.description && a.tileTooTall?.image == b.tileTooTall?.image
            && a.tileTooTall?.smallestPageHeight == b.tileTooTall?.smallestPageHeight
    }

    /// `name must be at least …` / `name must be at most …`, or nil when `value` is in `range`.
    static func check(_ name: String, _ value: Int, in range: ClosedRange<Int>) -> LayoutError? {
        if value < range.lowerBound {
            return LayoutError("\(name) must be at least \(range.lowerBound) (got \(value))")
        }
        if value > range.upperBound {
            return LayoutError("\(name) must be at most \(range.upperBound) (got \(value))")
        }
        return nil
    }
}

/// Validated options of a one-section layout, with the column geometry they imply.
///
/// Exactly two of `width`, `columns` and a column width are free; the third is derived:
/// - width and columns: columns share `width - left - right - columnGap * (columns - 1)`.
/// - width and columnWidth: `columns` is the largest count whose columns of `columnWidth`
///   fit; leftover pixels then widen the leftmost columns (the wall always fills the width).
/// - columns and columnWidth: `width = left + right + columns * columnWidth + (columns - 1) * columnGap`.
/// - all three: accepted only when they agree as in the line above.
/// - fewer than two: the defaults fill in (width 1200, then columns 4).
///
/// Column `c` has width `base + (c < extra ? 1 : 0)` where `base` and `extra` are the quotient
/// and remainder of the inner width shared by `columns`; `columnXs[0] = insets.left`.
public struct LayoutConfiguration: Sendable, Hashable {
    /// The sheet width in pixels, insets included.
    public let width: Int
    /// The number of columns, at least 1.
    public let columns: Int
    /// Horizontal space between two columns.
    public let columnGap: Int
    /// Vertical space between two tiles of a column.
    public let rowGap: Int
    /// Space around the wall.
    public let insets: LayoutInsets
    /// How each image chooses its column.
    public let order: PlacementOrder
    /// With `.shortest`: how much taller than the shortest column a column may be and still win.
    public let tolerance: Int
    /// A tile is never taller than `maxTileAspect` times its width.
    public let maxTileAspect: Int
    /// Width of each column; they sum to `width - insets.left - insets.right - columnGap * (columns - 1)`.
    public let columnWidths: [Int]
    /// Left edge of each column.
    public let columnXs: [Int]
    /// Whether pictures narrower than their column are enlarged to its width (SPEC §1); when
    /// false they keep their own size, centred, and the tile's height is the picture's.
    public let enlargesNarrowImages: Bool

    public static let defaultWidth = 1200
    public static let defaultColumns = 4

    /// Validates the options and derives the missing one of width, columns and column width.
    /// Every length must lie in `0 ... LayoutLimits.maxLength` (width, column width and
    /// `maxTileAspect` at least 1), `columns` in `1 ... LayoutLimits.maxColumns`; `tolerance`
    /// may be any value from 0.
    public init(
        width: Int? = nil,
        columns: Int? = nil,
        columnWidth: Int? = nil,
        columnGap: Int = 8,
        rowGap: Int = 8,
        insets: LayoutInsets = .init(all: 8),
        order: PlacementOrder = .shortest,
        tolerance: Int = 0,
        maxTileAspect: Int = 4,
        enlargesNarrowImages: Bool = true
    ) throws(LayoutError) {
        let length = 0 ... LayoutLimits.maxLength
        let positiveLength = 1 ... LayoutLimits.maxLength
        let checks: [LayoutError?] = [
            width.flatMap { LayoutError.check("width", $0, in: positiveLength) },
            columns.flatMap { LayoutError.check("columns", $0, in: 1 ... LayoutLimits.maxColumns) },
            columnWidth.flatMap { LayoutError.check("columnWidth", $0, in: positiveLength) },
            LayoutError.check("columnGap", columnGap, in: length),
            LayoutError.check("rowGap", rowGap, in: length),
            LayoutError.check("insets.top", insets.top, in: length),
            LayoutError.check("insets.right", insets.right, in: length),
            LayoutError.check("insets.bottom", insets.bottom, in: length),
            LayoutError.check("insets.left", insets.left, in: length),
            LayoutError.check("tolerance", tolerance, in: 0 ... Int.max),
            LayoutError.check("maxTileAspect", maxTileAspect, in: positiveLength),
        ]
        if let error = checks.lazy.compactMap({ $0 }).first { throw error }

        // All values are now at most 2^24, so no product below exceeds 2^49.
        let horizontalInsets = insets.left + insets.right
        func sheetWidth(columns n: Int, columnWidth cw: Int) throws(LayoutError) -> Int {
            let needed = horizontalInsets + n * cw + (n - 1) * columnGap
            guard needed <= LayoutLimits.maxLength else {
                throw LayoutError("\(n) columns of \(cw) px need a sheet \(needed) px wide, more than the limit \(LayoutLimits.maxLength)")
            }
            return needed
        }
        let resolvedWidth: Int
        let resolvedColumns: Int
        switch (width, columns, columnWidth) {
        case let (w?, n?, cw?):
            let needed = try sheetWidth(columns: n, columnWidth: cw)
            guard needed == w else {
                throw LayoutError("width \(w) does not match \(n) columns of \(cw) px, which need \(needed) px: give only two of width, columns and columnWidth")
            }
            (resolvedWidth, resolvedColumns) = (w, n)
        case let (w, n?, nil):
            (resolvedWidth, resolvedColumns) = (w ?? Self.defaultWidth, n)
        case let (w?, nil, cw?):
            let fitting = (w - horizontalInsets + columnGap) / (cw + columnGap)
            guard fitting >= 1 else {
                throw LayoutError("a column of \(cw) px does not fit in width \(w) with insets \(insets.left) and \(insets.right)")
            }
            guard fitting <= LayoutLimits.maxColumns else {
                throw LayoutError("columns of \(cw) px in width \(w) would be \(fitting) columns, more than the limit \(LayoutLimits.maxColumns)")
            }
            (resolvedWidth, resolvedColumns) = (w, fitting)
        case let (w, nil, nil):
            (resolvedWidth, resolvedColumns) = (w ?? Self.defaultWidth, Self.defaultColumns)
        case let (nil, n, cw?):
            let n = n ?? Self.defaultColumns
            (resolvedWidth, resolvedColumns) = (try sheetWidth(columns: n, columnWidth: cw), n)
        }

        let available = resolvedWidth - horizontalInsets - columnGap * (resolvedColumns - 1)
        guard available >= resolvedColumns else {
            throw LayoutError("\(resolvedColumns) columns do not fit in width \(resolvedWidth): each column would be narrower than 1 px")
        }
        let base = available / resolvedColumns
        let extra = available % resolvedColumns
        var widths: [Int] = []
        var xs: [Int] = []
        widths.reserveCapacity(resolvedColumns)
        xs.reserveCapacity(resolvedColumns)
        var x = insets.left
        for column in 0 ..< resolvedColumns {
            let columnWidth = base + (column < extra ? 1 : 0)
            widths.append(columnWidth)
            xs.append(x)
            x += columnWidth + columnGap
        }

        self.width = resolvedWidth
        self.columns = resolvedColumns
        self.columnGap = columnGap
        self.rowGap = rowGap
        self.insets = insets
        self.order = order
        self.tolerance = tolerance
        self.maxTileAspect = maxTileAspect
        self.columnWidths = widths
        self.columnXs = xs
        self.enlargesNarrowImages = enlargesNarrowImages
    }

    /// The width the columns and gaps share: `width - insets.left - insets.right`.
    public var innerWidth: Int { width - insets.left - insets.right }
}
