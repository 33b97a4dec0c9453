import WaterfallLayout
import Testing

@Suite struct QueryTests {
    /// The layout of `PlacementTests.threeColumnsOfVariousHeights`.
    static func example() throws -> MasonryLayout {
        MasonryLayout(
            configuration: try PlacementTests.threeColumns(),
            sizes: sizes((100, 50), (200, 300), (100, 100), (300, 100), (100, 30), (3, 2), (8, 1)))
    }

    @Test func tilesInRect() throws {
        let layout = try Self.example()
        // Tiles: 0 (10,10,100,50) 1 (120,10,100,150) 2 (230,10,100,100) 3 (10,70,100,33)
        //        4 (10,113,100,30) 5 (230,120,100,67) 6 (10,153,100,13)
        #expect(layout.tiles(in: rect(0, 0, 340, 197)).map(\.index) == Array(0 ..< 7))
        // y 100 ..< 121: tile 3 (70 ..< 103), 1 (10 ..< 160), 4 (113 ..< 143), 5 (120 ..< 187); 2 ends at 110.
        #expect(layout.tiles(in: rect(0, 100, 340, 21)).map(\.index) == [1, 2, 3, 4, 5])
        // Edges are exclusive: y 60 ..< 70 touches tile 0's bottom (60) and tile 3's top (70) but neither.
        #expect(layout.tiles(in: rect(10, 60, 100, 10)).map(\.index) == [])
        // The gap between columns 0 and 1 (x 110 ..< 120) holds no tile.
        #expect(layout.tiles(in: rect(110, 0, 10, 197)).isEmpty)
        // One pixel of column 2.
        #expect(layout.tiles(in: rect(329, 186, 1, 1)).map(\.index) == [5])
        // Empty and hostile rectangles.
        #expect(layout.tiles(in: rect(0, 0, 0, 100)).isEmpty)
        #expect(layout.tiles(in: rect(0, 0, -5, 100)).isEmpty)
        #expect(layout.tiles(in: rect(.min, .min, .max, .max)).map(\.index) == [])
        #expect(layout.tiles(in: rect(-1000, -1000, .max, .max)).map(\.index) == Array(0 ..< 7))
        #expect(layout.tiles(in: rect(.max, .max, .max, .max)).isEmpty)
    }

    @Test func rectIntersection() {
        let a = rect(0, 0, 10, 10)
        #expect(a.intersects(rect(9, 9, 5, 5)))
        #expect(!a.intersects(rect(10, 0, 5, 5)))
        #expect(!a.intersects(rect(5, 5, 0, 3)))
        #expect(a.contains(rect(0, 0, 10, 10)))
        #expect(!a.contains(rect(1, 1, 10, 1)))
        #expect(rect(.max, 0, .max, 1).maxX == .max)
        #expect(rect(.min, 0, .min, 1).maxX == .min)
    }
}
