/// One sheet page image as the plan wrote it (manifest v2 `pages`).
public struct SheetPage: Sendable, Hashable {
    /// The page file's path, raw bytes as written (relative to the current directory or absolute).
    public var file: [UInt8]
    public var width: Int
    public var height: Int

    public init(file: [UInt8], width: Int, height: Int) {
        self.file = file
        self.width = width
        self.height = height
    }
}

/// What the HTML page of a render shows: the sheet pages and where every tile sits on them.
public struct Gallery: Sendable {
    /// One picture on a page: its rectangle (in page pixels) and the source file it links to.
    public struct Tile: Sendable, Hashable {
        /// 1-based index into `pages` (a tile or panel on no listed page is left out).
        public var page: Int
        public var x: Int
        public var y: Int
        public var width: Int
        public var height: Int
        /// The source file as the user named it, raw bytes.
        public var path: [UInt8]
        /// The caption as drawn, if any.
        public var caption: String?

        public init(page: Int, x: Int, y: Int, width: Int, height: Int, path: [UInt8], caption: String? = nil) {
            self.page = page
            self.x = x
            self.y = y
            self.width = width
            self.height = height
            self.path = path
            self.caption = caption
        }
    }

    public var title: String?
    public var pages: [SheetPage]
    /// In manifest order, which is also the keyboard (Tab) order.
    public var tiles: [Tile]

    public init(title: String? = nil, pages: [SheetPage], tiles: [Tile]) {
        self.title = title
        self.pages = pages
        self.tiles = tiles
    }
}

/// What the HTML page of a compare run shows: the report's summary and every pair.
public struct Review: Sendable {
    /// One line of the report's `summary`.
    public struct StatusCount: Sendable, Hashable {
        public var status: String
        public var count: Int

        public init(status: String, count: Int) {
            self.status = status
            self.count = count
        }
    }

    /// One side of a pair: the image file and its size.
    public struct Side: Sendable, Hashable {
        /// Raw bytes as the user named it.
        public var path: [UInt8]
        public var width: Int
        public var height: Int

        public init(path: [UInt8], width: Int, height: Int) {
            self.path = path
            self.width = width
            self.height = height
        }
    }

    /// Where a pair's difference picture was drawn on a sheet page; the page shows it by
    /// cropping that page image with CSS, so no extra image file is written.
    public struct Panel: Sendable, Hashable {
        /// 1-based index into `pages` (a tile or panel on no listed page is left out).
        public var page: Int
        public var x: Int
        public var y: Int
        public var width: Int
        public var height: Int

        public init(page: Int, x: Int, y: Int, width: Int, height: Int) {
            self.page = page
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
    }

    /// One report item.
    public struct Pair: Sendable, Hashable {
        /// The relative path that matched the two sides, raw bytes.
        public var path: [UInt8]
        /// `unchanged`, `changed`, `resized`, `added`, `removed` or `error`.
        public var status: String
        public var failed: Bool
        public var diffPixels: Int
        public var aaPixels: Int
        public var diffRatio: Double
        /// Nil when that side is absent or unreadable.
        public var baseline: Side?
        public var current: Side?
        /// Nil when the difference picture is not on any page.
        public var diffPanel: Panel?
        /// Why an `error` pair failed.
        public var reason: String?

        public init(path: [UInt8], status: String, failed: Bool, diffPixels: Int, aaPixels: Int, diffRatio: Double,
                    baseline: Side?, current: Side?, diffPanel: Panel? = nil, reason: String? = nil) {
            self.path = path
            self.status = status
            self.failed = failed
            self.diffPixels = diffPixels
            self.aaPixels = aaPixels
            self.diffRatio = diffRatio
            self.baseline = baseline
            self.current = current
            self.diffPanel = diffPanel
            self.reason = reason
        }
    }

    public var title: String?
    public var summary: [StatusCount]
    public var failed: Int
    public var pages: [SheetPage]
    /// In the report's order; `unchanged` pairs are listed collapsed.
    public var pairs: [Pair]

    public init(title: String? = nil, summary: [StatusCount], failed: Int, pages: [SheetPage], pairs: [Pair]) {
        self.title = title
        self.summary = summary
        self.failed = failed
        self.pages = pages
        self.pairs = pairs
    }
}
