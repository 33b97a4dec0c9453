import Foundation
import MasonryLayout
import Testing

@Suite struct DescriptionTests {
    @Test func encodesKeysInSpecOrder() throws {
        let layout = MasonryLayout(configuration: try PlacementTests.threeColumns(), sizes: sizes((100, 50), (1, 20000)))
        let description = LayoutDescription(layout)
        #expect(description.sheet.height == 420)
        #expect(description.items.map(\.index) == [0, 1])
        let json = try OrderedJSONEncoder.encode(description)
        // Tile 1: 1x20000 in column 1, capped to 400 with a 1 px picture at 120 + 49.
        #expect(json == #"""
            {"sheet":{"width":340,"height":420,"columns":3,"columnGap":10,"rowGap":10,\#
            "insets":{"top":10,"right":10,"bottom":10,"left":10}},\#
            "items":[{"index":0,"column":0,"x":10,"y":10,"width":100,"height":50,\#
            "image":{"x":10,"y":10,"width":100,"height":50}},\#
            {"index":1,"column":1,"x":120,"y":10,"width":100,"height":400,\#
            "image":{"x":169,"y":10,"width":1,"height":400}}]}
            """#)
    }

    @Test func geometryValuesRoundTrip() throws {
        let insets = LayoutInsets(top: 1, right: 2, bottom: 3, left: 4)
        #expect(try OrderedJSONEncoder.encode(insets) == #"{"top":1,"right":2,"bottom":3,"left":4}"#)
        let data = try JSONEncoder().encode(insets)
        #expect(try JSONDecoder().decode(LayoutInsets.self, from: data) == insets)
        let frame = rect(1, 2, 3, 4)
        #expect(try JSONDecoder().decode(LayoutRect.self, from: JSONEncoder().encode(frame)) == frame)
        #expect(try JSONDecoder().decode(PlacementOrder.self, from: Data(#""left-to-right""#.utf8)) == .leftToRight)
    }
}
