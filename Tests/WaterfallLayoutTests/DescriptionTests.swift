import Foundation
import WaterfallLayout
import Testing

@Suite struct DescriptionTests {
    /// The values; their key order in JSON is checked where the manifest encodes them
    /// (MasonrySheetTests, ManifestEncodingTests).
    @Test func describesSheetAndTiles() throws {
        let layout = MasonryLayout(configuration: try PlacementTests.threeColumns(), sizes: sizes((100, 50), (1, 20000)))
        let description = LayoutDescription(layout)
        #expect(description.sheet.width == 340 && description.sheet.height == 420 && description.sheet.columns == 3)
        #expect(description.sheet.insets == .init(all: 10))
        #expect(description.items.map(\.index) == [0, 1])
        // Tile 1: 1x20000 in column 1, capped to 400 with a 1 px picture at 120 + 49.
        #expect(description.items[1].column == 1 && description.items[1].height == 400)
        #expect(description.items[1].image == rect(169, 10, 1, 400))
    }

    @Test func geometryValuesRoundTrip() throws {
        let insets = LayoutInsets(top: 1, right: 2, bottom: 3, left: 4)
        let data = try JSONEncoder().encode(insets)
        #expect(try JSONDecoder().decode(LayoutInsets.self, from: data) == insets)
        let frame = rect(1, 2, 3, 4)
        #expect(try JSONDecoder().decode(LayoutRect.self, from: JSONEncoder().encode(frame)) == frame)
        #expect(try JSONDecoder().decode(PlacementOrder.self, from: Data(#""left-to-right""#.utf8)) == .leftToRight)
    }
}
