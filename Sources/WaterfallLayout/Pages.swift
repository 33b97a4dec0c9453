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

/// A section's header band on a page of a `PagedLayout`.
public struct LayoutSectionHeader: Sendable, Hashable {
    /// The section's number, from 0.
    public let section: Int
    /// The page (0-based) it is on.
    public let page: Int
    /// True when it repeats the header of a section that began on an earlier page.
    public let continued: Bool
    /// The band: the inner width, `sectionHeaderHeight` tall.
    public let frame: LayoutRect
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

    /// Section header bands, in order (empty without sections).
    public private(set) var headers: [LayoutSectionHeader] = []

    /// Lays out `sizes` (both sides at least 1), each tile with a band of `bandHeight` px
    /// (0...`LayoutLimits.maxLength`) under its picture. With `sectionStarts` (the first image
    /// of each section, ascending, starting with 0), every section begins with a header band
    /// `sectionHeaderHeight` px tall across the inner width, a row gap above its columns, which
    /// start level below it; a header is placed only together with its section's first tile
    /// (never alone at a page's foot), and a section that goes on over a page break repeats its
    /// header there (`continued`). Throws when a tile cannot fit on any page (the message names
    /// `smallestMaxHeight`) or would end below `LayoutLimits.maxCoordinate`.
    public init(configuration: LayoutConfiguration, sizes: [LayoutSize], bandHeight: Int = 0,
                sectionStarts: [Int] = [], sectionHeaderHeight: Int = 0, limits: PageLimits) throws(LayoutError) {
        self.configuration = configuration
        self.limits = limits
        let insets = configuration.insets
        let top = insets.top + limits.headerHeight
        let floor = limits.maxHeight > 0 ? limits.maxHeight - insets.bottom : LayoutLimits.maxCoordinate
        let sectioned = !sectionStarts.isEmpty
        let headerSpace = sectioned ? sectionHeaderHeight + configuration.rowGap : 0
        let starts = Set(sectionStarts)
        var section = -1
        var stack = ColumnStack(configuration: configuration, top: top + headerSpace)
        var pageStart = 0
        tiles.reserveCapacity(sizes.count)
        for (index, size) in sizes.enumerated() {
            guard size.width >= 1, size.height >= 1 else {
                throw LayoutError("image \(index) has size \(size.width)x\(size.height): both sides must be at least 1")
            }
            let opensSection = starts.contains(index)
            if opensSection { section += 1 }
            // A section's header goes a row gap below everything on the page, or at the page's top.
            var headerY = index > pageStart && opensSection ? stack.contentBottom + configuration.rowGap : top
            if opensSection && index > pageStart {
                stack = ColumnStack(configuration: configuration, top: headerY + headerSpace)
            }
            var proposal = stack.propose(sourceWidth: size.width, sourceHeight: size.height, bandHeight: bandHeight)
            let full = limits.maxTiles > 0 && index - pageStart == limits.maxTiles
            if (proposal.bottom > floor || full) && index > pageStart {
                closePage(lastBottom: opensSection ? headerY - configuration.rowGap : stack.contentBottom, from: pageStart)
                pageStart = index
                headerY = top
                stack = ColumnStack(configuration: configuration, top: top + headerSpace)
                proposal = stack.propose(sourceWidth: size.width, sourceHeight: size.height, bandHeight: bandHeight)
            }
            guard proposal.bottom <= floor else {
                if limits.maxHeight > 0 {
                    let needed = Self.smallestMaxHeight(configuration: configuration, sizes: sizes, bandHeight: bandHeight,
                                                        headerHeight: limits.headerHeight + headerSpace)
                    throw LayoutError("image \(index) needs a tile \(proposal.height) px tall, which no page of "
                                      + "\(limits.maxHeight) px can hold; the smallest page height that works is \(needed)",
                                      tileTooTall: (index, needed))
                }
                throw LayoutError("image \(index) would end at y = \(proposal.bottom), beyond the layout limit \(LayoutLimits.maxCoordinate)")
            }
            if sectioned && (opensSection || index == pageStart) {
                headers.append(LayoutSectionHeader(
                    section: section, page: pages.count, continued: !opensSection,
                    frame: LayoutRect(x: insets.left, y: headerY, width: configuration.innerWidth, height: sectionHeaderHeight)))
            }
            stack.commit(proposal)
            tiles.append(stack.tiles[stack.tiles.count - 1].renumbered(index))
        }
        closePage(lastBottom: stack.contentBottom, from: pageStart)
    }

    private mutating func closePage(lastBottom: Int, from start: Int) {
        pages.append(LayoutPage(tiles: start ..< tiles.count, height: lastBottom + configuration.insets.bottom))
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
