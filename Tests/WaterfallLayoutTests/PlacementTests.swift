import WaterfallLayout
import Testing

/// Worked examples of SPEC §1, checked by hand (the arithmetic is in the comments).
@Suite struct PlacementTests {
    /// Width 340, 3 columns, gaps 10, insets 10: avail = 340 - 20 - 2*10 = 300, so three
    /// columns of 100 at x = 10, 120, 230.
    static func threeColumns(order: PlacementOrder = .shortest, tolerance: Int = 0) throws -> LayoutConfiguration {
        try LayoutConfiguration(
            width: 340, columns: 3, columnGap: 10, rowGap: 10, insets: .init(all: 10),
            order: order, tolerance: tolerance)
    }

    @Test func threeColumnsOfVariousHeights() throws {
        let configuration = try Self.threeColumns()
        #expect(configuration.columnWidths == [100, 100, 100])
        #expect(configuration.columnXs == [10, 120, 230])
        let layout = MasonryLayout(
            configuration: configuration,
            sizes: sizes((100, 50), (200, 300), (100, 100), (300, 100), (100, 30), (3, 2), (8, 1)))
        let frames = layout.tiles.map(\.frame)
        let columns = layout.tiles.map(\.column)
        // B = [10, 10, 10]
        // 0: 100x50:  h = (2*100*50 + 100) / 200 = 10100 / 200 = 50.   col 0 at y 10; B0 = 10 + 50 + 10 = 70
        // 1: 200x300: h = (2*100*300 + 200) / 400 = 60200 / 400 = 150. col 1 at y 10; B1 = 170
        // 2: 100x100: h = 20100 / 200 = 100.                           col 2 at y 10; B2 = 120
        // 3: 300x100: h = (20000 + 300) / 600 = 33 (33.8).  B = [70, 170, 120]: col 0 at 70; B0 = 113
        // 4: 100x30:  h = (6000 + 100) / 200 = 30.          B = [113, 170, 120]: col 0 at 113; B0 = 153
        // 5: 3x2:     h = (400 + 3) / 6 = 67 (66.7 rounds up). B = [153, 170, 120]: col 2 at 120; B2 = 197
        // 6: 8x1:     h = (200 + 8) / 16 = 13 (12.5, half rounds up). B = [153, 170, 197]: col 0 at 153
        #expect(columns == [0, 1, 2, 0, 0, 2, 0])
        #expect(frames == [
            rect(10, 10, 100, 50), rect(120, 10, 100, 150), rect(230, 10, 100, 100),
            rect(10, 70, 100, 33), rect(10, 113, 100, 30), rect(230, 120, 100, 67), rect(10, 153, 100, 13),
        ])
        #expect(layout.tiles.map(\.index) == Array(0 ..< 7))
        #expect(layout.tiles.allSatisfy { $0.imageFrame == $0.frame })
        // Bottoms: col 0 153 + 13 = 166, col 1 160, col 2 187: H = 187 + 10 (bottom inset) = 197.
        #expect(layout.height == 197)
        #expect(layout.width == 340)
    }

    @Test func tiesGoToTheLeftmostColumn() throws {
        // Six 100x100 images, h = 100 each: every tie is won by the leftmost shortest column.
        let layout = MasonryLayout(configuration: try Self.threeColumns(), sizes: Array(repeating: LayoutSize(width: 100, height: 100), count: 6))
        #expect(layout.tiles.map(\.column) == [0, 1, 2, 0, 1, 2])
        #expect(layout.tiles.map(\.frame.y) == [10, 10, 10, 120, 120, 120])
        #expect(layout.height == 10 + 100 + 10 + 100 + 10)
    }

    @Test func oneColumn() throws {
        // Width 120, insets 10: one column of 100. 50x100: h = 200; 100x50: h = 50 at 10 + 200 + 10.
        let configuration = try LayoutConfiguration(width: 120, columns: 1, rowGap: 10, insets: .init(all: 10))
        let layout = MasonryLayout(configuration: configuration, sizes: sizes((50, 100), (100, 50)))
        #expect(layout.tiles.map(\.frame) == [rect(10, 10, 100, 200), rect(10, 220, 100, 50)])
        #expect(layout.height == 220 + 50 + 10)
    }

    @Test func moreColumnsThanImages() throws {
        // Width 540, 5 columns, gap 10, insets 10: (540 - 20 - 40) / 5 = 96 each.
        let configuration = try LayoutConfiguration(width: 540, columns: 5, columnGap: 10, insets: .init(all: 10))
        let layout = MasonryLayout(configuration: configuration, sizes: sizes((96, 48), (96, 96)))
        #expect(layout.tiles.map(\.frame) == [rect(10, 10, 96, 48), rect(116, 10, 96, 96)])
        // Empty columns do not count: H = 10 + 96 + 10.
        #expect(layout.height == 116)
    }

    @Test func emptyLayoutIsOnlyInsets() throws {
        let layout = MasonryLayout(configuration: try LayoutConfiguration(insets: .init(top: 3, right: 0, bottom: 5, left: 0)))
        #expect(layout.tiles.isEmpty)
        #expect(layout.height == 8)
        #expect(layout.tiles(in: rect(0, 0, 1200, 8)).isEmpty)
    }

    @Test func extremeAspectRatios() throws {
        // Columns of 100, maxTileAspect 4: cap 400.
        let layout = MasonryLayout(
            configuration: try Self.threeColumns(),
            sizes: sizes((1, 20000), (20000, 1), (100, 1000), (9, 70)))
        let tiles = layout.tiles
        // 1x20000: h = (2*100*20000 + 1) / 2 = 2000000, capped to 400; picture width
        // max(1, (2*400*1 + 20000) / 40000) = max(1, 0) = 1, centred at 10 + (100 - 1) / 2 = 59.
        #expect(tiles[0].frame == rect(10, 10, 100, 400))
        #expect(tiles[0].imageFrame == rect(59, 10, 1, 400))
        // 20000x1: h = max(1, (200 + 20000) / 40000) = max(1, 0) = 1, not capped, fills the tile.
        #expect(tiles[1].frame == rect(120, 10, 100, 1))
        #expect(tiles[1].imageFrame == tiles[1].frame)
        // B = [420, 21, 10]. 100x1000 into column 2: h = 1000, capped to 400;
        // width (2*400*100 + 1000) / 2000 = 40 (40.5 truncates: 400*100/1000 = 40), at 230 + 30.
        #expect(tiles[2].frame == rect(230, 10, 100, 400))
        #expect(tiles[2].imageFrame == rect(260, 10, 40, 400))
        // B = [420, 21, 420]. 9x70 into column 1: h = (14000 + 9) / 18 = 778, capped to 400;
        // width (7200 + 70) / 140 = 51 (400*9/70 = 51.4 rounds to 51), at 120 + (100 - 51) / 2 = 144.
        #expect(tiles[3].frame == rect(120, 21, 100, 400))
        #expect(tiles[3].imageFrame == rect(144, 21, 51, 400))
    }

    @Test func toleranceLetsALeftColumnWin() throws {
        let layout = MasonryLayout(
            configuration: try Self.threeColumns(tolerance: 20),
            sizes: sizes((100, 100), (100, 90), (100, 95), (100, 50), (100, 10), (100, 10)))
        // 0: h 100 -> col 0 (B0 = 120); 1: h 90 -> col 1 (B1 = 110); 2: h 95 -> col 2 (B2 = 115).
        // 3: B = [120, 110, 115], min 110, threshold 130: col 0 (120 <= 130) wins over the
        //    shorter col 1. y 120, B0 = 180.
        // 4: B = [180, 110, 115]: threshold 130, col 1 at 110; B1 = 130.
        // 5: B = [180, 130, 115]: min 115, threshold 135, col 1 (130) at 130.
        #expect(layout.tiles.map(\.column) == [0, 1, 2, 0, 1, 1])
        #expect(layout.tiles.map(\.frame.y) == [10, 10, 10, 120, 110, 130])
        // With tolerance 0, image 3 would go to the shortest column, 1.
        let strict = MasonryLayout(configuration: try Self.threeColumns(), sizes: sizes((100, 100), (100, 90), (100, 95), (100, 50)))
        #expect(strict.tiles[3].column == 1)
    }

    @Test(arguments: [
        (PlacementOrder.leftToRight, [0, 1, 2, 0, 1]),
        (PlacementOrder.rightToLeft, [2, 1, 0, 2, 1]),
    ])
    func fixedOrders(order: PlacementOrder, expectedColumns: [Int]) throws {
        // Heights 100, 20, 50, 10, 10 whatever the column: the order alone picks the column.
        let layout = MasonryLayout(
            configuration: try Self.threeColumns(order: order),
            sizes: sizes((100, 100), (100, 20), (100, 50), (100, 10), (100, 10)))
        #expect(layout.tiles.map(\.column) == expectedColumns)
        // The 4th image lands below the 1st (10 + 100 + 10), the 5th below the 2nd (10 + 20 + 10).
        #expect(layout.tiles.map(\.frame.y) == [10, 10, 10, 120, 40])
        #expect(layout.tiles.map(\.frame.x) == expectedColumns.map { [10, 120, 230][$0] })
        #expect(layout.height == 130 + 10)
    }

    @Test func appendingInPartsEqualsAllAtOnce() throws {
        let all = sizes((100, 50), (200, 300), (100, 100), (300, 100), (100, 30), (3, 2), (8, 1))
        let whole = MasonryLayout(configuration: try Self.threeColumns(), sizes: all)
        var grown = MasonryLayout(configuration: try Self.threeColumns())
        grown.append(all[0 ..< 2])
        grown.append(all[2 ..< 2])
        try grown.tryAppend(all[2 ..< 5])
        grown.append(all[5...].lazy.map { $0 })  // a sequence without contiguous storage
        #expect(grown.tiles == whole.tiles)
        #expect(grown.height == whole.height)
    }

    @Test func hostileImageSizesDoNotTrap() throws {
        let configuration = try LayoutConfiguration()  // columns of 290, cap 1160
        let side = Int(Int32.max)
        var layout = MasonryLayout(configuration: configuration)
        layout.append(sizes((1, side), (side, 1), (side, side), (.max, .max), (1, .max), (.max, 1), (0, -5), (.min, .min)))
        let tiles = layout.tiles
        #expect(tiles.count == 8)
        #expect(tiles[0].frame.height == 1160)
        #expect(tiles[0].imageFrame.width == 1)
        #expect(tiles[1].frame.height == 1)
        #expect(tiles[2].frame.height == 290)
        #expect(tiles[3].frame.height == 290)  // (2*290*M + M) / (2*M) = 290 (290.5 truncated)
        #expect(tiles[4].frame.height == 1160)
        #expect(tiles[5].frame.height == 1)
        // Sides below 1 count as 1 in `append`: a 1x1 image, 290 high.
        #expect(tiles[6].frame.height == 290)
        #expect(tiles[7].frame.height == 290)
        #expect(!layout.isTruncated)

        var strict = MasonryLayout(configuration: configuration)
        let error = #expect(throws: LayoutError.self) { try strict.tryAppend(sizes((10, 10), (0, 5), (10, 10))) }
        #expect(error?.description == "image 1 has size 0x5: both sides must be at least 1")
        #expect(strict.tiles.count == 1)
    }

    @Test func aMillionHugeTilesStopAtTheCoordinateLimit() throws {
        // One column 2^24 wide with maxTileAspect 2^24: each 1 x (2^31 - 1) image is capped
        // to 2^48 px. 32 tiles end exactly at 2^53 = LayoutLimits.maxCoordinate; the 33rd would
        // end at 33 * 2^48 = 9288674231451648.
        let configuration = try LayoutConfiguration(
            width: 1 << 24, columns: 1, columnGap: 0, rowGap: 0, insets: .zero, maxTileAspect: 1 << 24)
        let huge = LayoutSize(width: 1, height: Int(Int32.max))
        var layout = MasonryLayout(configuration: configuration)
        layout.append(repeatElement(huge, count: 1_000_000))
        #expect(layout.tiles.count == 32)
        #expect(layout.isTruncated)
        #expect(layout.height == LayoutLimits.maxCoordinate)
        layout.append([LayoutSize(width: 1, height: 1)])
        #expect(layout.tiles.count == 32)
        let truncated = #expect(throws: LayoutError.self) { try layout.tryAppend([huge]) }
        #expect(truncated?.description == "the layout was truncated at image 32: nothing more can be appended")

        var strict = MasonryLayout(configuration: configuration)
        let error = #expect(throws: LayoutError.self) { try strict.tryAppend(repeatElement(huge, count: 1_000_000)) }
        #expect(error?.description == "image 32 would end at y = 9288674231451648, beyond the layout limit 9007199254740992")
        #expect(strict.tiles.count == 32)
        #expect(!strict.isTruncated)
    }
}
