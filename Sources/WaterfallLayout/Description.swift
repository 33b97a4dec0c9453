/// The geometry part of the manifest (SPEC §4 "sheet" and "items").

/// The sheet and tile geometry of a `MasonryLayout`, as plain values and as an `Encodable`
/// whose keys come out in the SPEC §4 order (the synthesized conformances encode the
/// properties in declaration order, which is that order). The manifest writer adds what geometry does not
/// know (version, background, paths, source sizes, skipped files).
public struct LayoutDescription: Sendable, Hashable, Encodable {
    /// SPEC §4 "sheet", without `background`.
    public struct Sheet: Sendable, Hashable, Encodable {
        public let width: Int
        public let height: Int
        public let columns: Int
        public let columnGap: Int
        public let rowGap: Int
        public let insets: LayoutInsets

        public init(_ layout: MasonryLayout) {
            self.init(configuration: layout.configuration, height: layout.height)
        }

        /// The sheet of `configuration` with a height of `height` (a page's, for paged layouts).
        public init(configuration: LayoutConfiguration, height: Int) {
            width = configuration.width
            self.height = height
            columns = configuration.columns
            columnGap = configuration.columnGap
            rowGap = configuration.rowGap
            insets = configuration.insets
        }
    }

    /// SPEC §4 item geometry: the tile (`x, y, width, height`) and where its picture is drawn.
    public struct Item: Sendable, Hashable, Encodable {
        public let index: Int
        public let column: Int
        public let x: Int
        public let y: Int
        public let width: Int
        public let height: Int
        public let image: LayoutRect

        public init(_ tile: PlacedTile) {
            index = tile.index
            column = tile.column
            x = tile.frame.x
            y = tile.frame.y
            width = tile.frame.width
            height = tile.frame.height
            image = tile.imageFrame
        }
    }

    public let sheet: Sheet
    public let items: [Item]

    public init(_ layout: MasonryLayout) {
        sheet = Sheet(layout)
        items = layout.tiles.map(Item.init)
    }
}
