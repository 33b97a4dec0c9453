/// Sectioned layouts (SPEC §1 "Sections"), in the manner of CHTCollectionViewWaterfallLayout.

/// One section of a `SectionedLayout`: its images and its own columns, gaps, insets,
/// optional header and footer bands. A band of height 0 is absent (its insets are ignored).
public struct LayoutSection: Sendable, Hashable {
    /// The section's images, in order.
    public var sizes: [LayoutSize]
    public var columns: Int
    public var columnGap: Int
    public var rowGap: Int
    /// Space around the whole section (header, columns and footer).
    public var insets: LayoutInsets
    public var order: PlacementOrder
    public var tolerance: Int
    public var maxTileAspect: Int
    /// Height of the header band; 0 for no header.
    public var headerHeight: Int
    /// Space around the header band, inside the section insets.
    public var headerInsets: LayoutInsets
    /// Height of the footer band; 0 for no footer.
    public var footerHeight: Int
    /// Space around the footer band, inside the section insets.
    public var footerInsets: LayoutInsets

    public init(
        sizes: [LayoutSize] = [],
        columns: Int = LayoutConfiguration.defaultColumns,
        columnGap: Int = 8,
        rowGap: Int = 8,
        insets: LayoutInsets = .init(all: 8),
        order: PlacementOrder = .shortest,
        tolerance: Int = 0,
        maxTileAspect: Int = 4,
        headerHeight: Int = 0,
        headerInsets: LayoutInsets = .zero,
        footerHeight: Int = 0,
        footerInsets: LayoutInsets = .zero
    ) {
        self.sizes = sizes
        self.columns = columns
        self.columnGap = columnGap
        self.rowGap = rowGap
        self.insets = insets
        self.order = order
        self.tolerance = tolerance
        self.maxTileAspect = maxTileAspect
        self.headerHeight = headerHeight
        self.headerInsets = headerInsets
        self.footerHeight = footerHeight
        self.footerInsets = footerInsets
    }
}

/// A header, footer or tile of a `SectionedLayout`, with its frame.
public struct LayoutElement: Sendable, Hashable {
    /// What the element is; sections and tiles are numbered from 0.
    public enum Kind: Sendable, Hashable {
        case header(section: Int)
        case footer(section: Int)
        case tile(section: Int, index: Int)
    }

    public let kind: Kind
    public let frame: LayoutRect
    /// Where a tile's picture is drawn (see `PlacedTile.imageFrame`); `frame` for bands.
    public let imageFrame: LayoutRect
}

/// Sections stacked top to bottom on a sheet of one width.
///
/// Each section, from its top T (0 for the first section, else the previous section's bottom):
/// - its inner band is `x = insets.left ..< width - insets.right`;
/// - a header (when `headerHeight > 0`) is at `x = insets.left + headerInsets.left`,
///   `y = T + insets.top + headerInsets.top`, as wide as the inner band less
///   `headerInsets.left + headerInsets.right` (at least 1 px);
/// - the columns are those of `LayoutConfiguration(width: width, columns:, columnGap:,
///   insets: insets …)` and start at `T + insets.top`, or below the header plus
///   `headerInsets.bottom`; tiles are placed as in `MasonryLayout`;
/// - a footer (when `footerHeight > 0`) sits `footerInsets.top` below the tallest column's
///   last tile (below the columns' start when the section has no image), framed like the header;
/// - the section ends `insets.bottom` (after `footerInsets.bottom`) below that.
///
/// So one section without header or footer is exactly `MasonryLayout` with the same options.
/// The sheet height is the last section's bottom (0 without sections). Limits: tiles must
/// end, and sections start, at or above `LayoutLimits.maxCoordinate`.
public struct SectionedLayout: Sendable {
    /// The sheet width, shared by all sections.
    public let width: Int
    private var sections: [PlacedSection]

    /// Lays out `sections` on a sheet `width` px wide; throws for the first invalid option or
    /// image size, naming its section.
    public init(width: Int = LayoutConfiguration.defaultWidth, sections: [LayoutSection]) throws(LayoutError) {
        if let error = LayoutError.check("width", width, in: 1 ... LayoutLimits.maxLength) { throw error }
        self.width = width
        self.sections = []
        self.sections.reserveCapacity(sections.count)
        var top = 0
        for (number, section) in sections.enumerated() {
            var placed = try PlacedSection(section, number: number, width: width, top: top)
            if let error = section.sizes.withUnsafeBufferPointer({ placed.append($0) }) { throw error }
            self.sections.append(placed)
            top = placed.bottom
        }
    }

    /// Places more images in the last section ("load more"): costs only the new images.
    /// Throws like `MasonryLayout.tryAppend(_:)`, or when there is no section.
    public mutating func appendToLastSection(_ sizes: some Sequence<LayoutSize>) throws(LayoutError) {
        guard !sections.isEmpty else { throw LayoutError("there is no section to append images to") }
        let last = sections.count - 1
        if let error = withBuffer(of: sizes, { sections[last].append($0) }) { throw error }
    }

    /// The number of sections.
    public var sectionCount: Int { sections.count }

    /// The sheet height: the last section's bottom, 0 without sections.
    public var height: Int { sections.last?.bottom ?? 0 }

    /// The full-width band of section `section`, insets included.
    public func frame(ofSection section: Int) -> LayoutRect {
        let placed = sections[section]
        return LayoutRect(x: 0, y: placed.top, width: width, height: placed.bottom - placed.top)
    }

    /// The options section `section`'s columns were made with.
    public func configuration(ofSection section: Int) -> LayoutConfiguration {
        sections[section].stack.configuration
    }

    /// The header of section `section`, nil when it has none.
    public func headerFrame(ofSection section: Int) -> LayoutRect? { sections[section].header }

    /// The footer of section `section`, nil when it has none.
    public func footerFrame(ofSection section: Int) -> LayoutRect? { sections[section].footer }

    /// The tiles of section `section`, in its input order.
    public func tiles(inSection section: Int) -> [PlacedTile] { sections[section].stack.tiles }

    /// Every element, top section first; within a section: header, tiles in index order, footer.
    public var elements: [LayoutElement] {
        var result: [LayoutElement] = []
        for number in sections.indices {
            sections[number].collectElements(section: number, tileIndices: sections[number].stack.tiles.indices, into: &result)
        }
        return result
    }

    /// The elements that intersect `rect`, in the order of `elements`. Sections are found by
    /// binary search on their bottoms, tiles as in `MasonryLayout.tiles(in:)`:
    /// O(log s + Σ (c · log n + k · log c)) over the sections under `rect`.
    public func elements(in rect: LayoutRect) -> [LayoutElement] {
        guard rect.width > 0, rect.height > 0 else { return [] }
        let maxY = rect.maxY
        var number = firstIndex(count: sections.count) { sections[$0].bottom > rect.y }
        var result: [LayoutElement] = []
        while number < sections.count && sections[number].top < maxY {
            let section = sections[number]
            section.collectElements(section: number, tileIndices: section.stack.tileIndices(in: rect), into: &result) {
                $0.intersects(rect)
            }
            number += 1
        }
        return result
    }
}

/// One laid-out section: its bands, its columns and its extent.
private struct PlacedSection: Sendable {
    let top: Int
    let header: LayoutRect?
    var stack: ColumnStack
    private(set) var footer: LayoutRect?
    private(set) var bottom: Int
    private let number: Int
    private let insets: LayoutInsets
    private let footerHeight: Int
    private let footerInsets: LayoutInsets

    /// Validates `section`'s options and lays out its header and empty columns at `top`.
    init(_ section: LayoutSection, number: Int, width: Int, top: Int) throws(LayoutError) {
        let context = "section \(number): "
        guard top <= LayoutLimits.maxCoordinate else {
            throw LayoutError("\(context)would start at y = \(top), beyond the layout limit \(LayoutLimits.maxCoordinate)")
        }
        let configuration: LayoutConfiguration
        do {
            configuration = try LayoutConfiguration(
                width: width, columns: section.columns, columnGap: section.columnGap, rowGap: section.rowGap,
                insets: section.insets, order: section.order, tolerance: section.tolerance,
                maxTileAspect: section.maxTileAspect)
        } catch {
            throw LayoutError(context + error.description)
        }
        let innerWidth = configuration.innerWidth
        func validateBand(_ name: String, height: Int, insets: LayoutInsets) throws(LayoutError) -> Void {
            let length = 0 ... LayoutLimits.maxLength
            for (field, value) in [("Height", height), ("Insets.top", insets.top), ("Insets.right", insets.right),
                                   ("Insets.bottom", insets.bottom), ("Insets.left", insets.left)] {
                if let error = LayoutError.check(context + name + field, value, in: length) { throw error }
            }
            if height > 0 && insets.left + insets.right >= innerWidth {
                throw LayoutError("\(context)\(name)Insets.left \(insets.left) and right \(insets.right) leave no width for the \(name) (inner width \(innerWidth))")
            }
        }
        try validateBand("header", height: section.headerHeight, insets: section.headerInsets)
        try validateBand("footer", height: section.footerHeight, insets: section.footerInsets)

        var columnsTop = top + section.insets.top
        if section.headerHeight > 0 {
            let header = Self.band(
                x: section.insets.left, y: columnsTop, innerWidth: innerWidth,
                height: section.headerHeight, insets: section.headerInsets)
            self.header = header
            columnsTop = header.maxY + section.headerInsets.bottom
        } else {
            self.header = nil
        }
        self.top = top
        self.number = number
        self.insets = section.insets
        self.footerHeight = section.footerHeight
        self.footerInsets = section.footerInsets
        self.stack = ColumnStack(configuration: configuration, top: columnsTop)
        self.footer = nil
        self.bottom = 0
        placeFooter()
    }

    /// Places `sizes` (strictly, see `ColumnStack.place`) and moves the footer below them.
    mutating func append(_ sizes: UnsafeBufferPointer<LayoutSize>) -> LayoutError? {
        let failure = stack.place(sizes, strict: true)
        placeFooter()
        return failure?.layoutError(context: "section \(number), ")
    }

    private mutating func placeFooter() {
        var y = stack.contentBottom
        if footerHeight > 0 {
            let footer = Self.band(
                x: insets.left, y: y, innerWidth: stack.configuration.innerWidth,
                height: footerHeight, insets: footerInsets)
            self.footer = footer
            y = footer.maxY + footerInsets.bottom
        }
        bottom = y + insets.bottom
    }

    /// A header or footer band whose outer box starts at (`x`, `y`) and is `innerWidth` wide.
    private static func band(x: Int, y: Int, innerWidth: Int, height: Int, insets: LayoutInsets) -> LayoutRect {
        LayoutRect(
            x: x + insets.left, y: y + insets.top,
            width: innerWidth - insets.left - insets.right, height: height)
    }

    /// Appends header, the tiles at `tileIndices` (increasing) and footer, keeping bands that pass `include`.
    func collectElements(
        section: Int, tileIndices: some Sequence<Int>, into result: inout [LayoutElement],
        include: (LayoutRect) -> Bool = { _ in true }
    ) {
        if let header, include(header) {
            result.append(LayoutElement(kind: .header(section: section), frame: header, imageFrame: header))
        }
        let tiles = stack.tiles
        for index in tileIndices {
            let tile = tiles[index]
            result.append(LayoutElement(kind: .tile(section: section, index: index), frame: tile.frame, imageFrame: tile.imageFrame))
        }
        if let footer, include(footer) {
            result.append(LayoutElement(kind: .footer(section: section), frame: footer, imageFrame: footer))
        }
    }
}
