/// The geometry part of the manifest (SPEC §4 "sheet" and "items").

/// The sheet and tile geometry of a `MasonryLayout`, as plain values and as an `Encodable`
/// whose keys come out in the SPEC §4 order. The manifest writer adds what geometry does not
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

        private enum CodingKeys: String, CodingKey { case width, height, columns, columnGap, rowGap, insets }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(width, forKey: .width)
            try container.encode(height, forKey: .height)
            try container.encode(columns, forKey: .columns)
            try container.encode(columnGap, forKey: .columnGap)
            try container.encode(rowGap, forKey: .rowGap)
            try container.encode(insets, forKey: .insets)
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

        private enum CodingKeys: String, CodingKey { case index, column, x, y, width, height, image }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(index, forKey: .index)
            try container.encode(column, forKey: .column)
            try container.encode(x, forKey: .x)
            try container.encode(y, forKey: .y)
            try container.encode(width, forKey: .width)
            try container.encode(height, forKey: .height)
            try container.encode(image, forKey: .image)
        }
    }

    public let sheet: Sheet
    public let items: [Item]

    public init(_ layout: MasonryLayout) {
        let configuration = layout.configuration
        sheet = Sheet(
            width: layout.width, height: layout.height, columns: configuration.columns,
            columnGap: configuration.columnGap, rowGap: configuration.rowGap, insets: configuration.insets)
        items = layout.tiles.map(Item.init)
    }

    private enum CodingKeys: String, CodingKey { case sheet, items }

    /// Encodes `sheet` then `items`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sheet, forKey: .sheet)
        try container.encode(items, forKey: .items)
    }
}
