import WaterfallLayout
import Testing

/// SPEC §6 page splitting, as seeded properties over random layouts (every message names its
/// seed; rerun one with `SplitMix64(seed:)` and `randomLayoutInput`) and a few worked examples.
@Suite struct PageTests {
    static let seeds: Range<UInt64> = 0 ..< 1500

    /// Random page limits that every tile of `sizes` fits (or one page).
    static func randomLimits(_ random: inout SplitMix64, _ configuration: LayoutConfiguration, _ sizes: [LayoutSize],
                             band: Int) -> PageLimits {
        let header = random.chance(30) ? random.int(1 ... 40) : 0
        let smallest = PagedLayout.smallestMaxHeight(configuration: configuration, sizes: sizes, bandHeight: band,
                                                     headerHeight: header)
        let height = random.chance(10) ? 0 : smallest + (random.chance(30) ? 0 : random.int(0 ... 3 * smallest))
        return PageLimits(maxHeight: height, maxTiles: random.chance(30) ? random.int(1 ... 7) : 0, headerHeight: header)
    }

    @Test func pagesPartitionTheImagesAndEachPageIsAWallOfItsOwn() throws {
        for seed in Self.seeds {
            var random = SplitMix64(seed: seed)
            let (configuration, images) = try randomLayoutInput(&random)
            let band = random.chance(30) ? random.int(1 ... 30) : 0
            let limits = Self.randomLimits(&random, configuration, images, band: band)
            let paged = try PagedLayout(configuration: configuration, sizes: images, bandHeight: band, limits: limits)

            // The pages partition the images, in order, and none is empty unless there are no images.
            #expect(paged.tiles.map(\.index) == Array(images.indices), "seed \(seed)")
            #expect(paged.pages.first?.tiles.lowerBound == 0 && paged.pages.last?.tiles.upperBound == images.count, "seed \(seed)")
            for (page, next) in zip(paged.pages, paged.pages.dropFirst()) {
                #expect(page.tiles.upperBound == next.tiles.lowerBound && !page.tiles.isEmpty, "seed \(seed)")
            }
            let top = configuration.insets.top + limits.headerHeight
            for (number, page) in paged.pages.enumerated() {
                // No page taller than the limit, nor holding more images than allowed.
                if limits.maxHeight > 0 { #expect(page.height <= limits.maxHeight, "seed \(seed) page \(number)") }
                if limits.maxTiles > 0 { #expect(page.tiles.count <= limits.maxTiles, "seed \(seed) page \(number)") }

                // Each page is the wall of its own images, laid out alone (and, without a band,
                // the §1 wall of MasonryLayout moved down by the header band).
                let alone = try PagedLayout(configuration: configuration, sizes: Array(images[page.tiles]), bandHeight: band,
                                            limits: PageLimits(headerHeight: limits.headerHeight))
                let plain = MasonryLayout(configuration: configuration, sizes: Array(images[page.tiles]))
                for (position, tile) in paged.tiles[page.tiles].enumerated() {
                    let own = alone.tiles[position]
                    #expect(tile.frame == own.frame && tile.imageFrame == own.imageFrame, "seed \(seed) tile \(tile.index)")
                    #expect(tile.bandHeight == band && tile.bandFrame.y == tile.imageFrame.maxY, "seed \(seed)")
                    #expect(tile.bandFrame.maxY == tile.frame.maxY, "seed \(seed) tile \(tile.index)")
                    if band == 0 {
                        let expected = plain.tiles[position].frame
                        #expect(tile.frame == LayoutRect(x: expected.x, y: expected.y + limits.headerHeight,
                                                         width: expected.width, height: expected.height),
                                "seed \(seed) tile \(tile.index)")
                    }
                    #expect(tile.frame.y >= top, "seed \(seed) tile \(tile.index)")
                }
                let bottom = paged.tiles[page.tiles].map(\.frame.maxY).max() ?? top
                #expect(page.height == bottom + configuration.insets.bottom, "seed \(seed) page \(number)")

                // A page was closed only because the next image did not fit or the page was full.
                if number + 1 < paged.pages.count {
                    let next = paged.pages[number + 1].tiles.lowerBound
                    let withNext = try PagedLayout(configuration: configuration, sizes: Array(images[page.tiles.lowerBound ... next]),
                                                   bandHeight: band, limits: PageLimits(headerHeight: limits.headerHeight))
                    let wouldEnd = withNext.tiles.last!.frame.maxY
                    let full = limits.maxTiles > 0 && page.tiles.count == limits.maxTiles
                    #expect(full || wouldEnd > limits.maxHeight - configuration.insets.bottom, "seed \(seed) page \(number)")
                }
            }
            for tile in paged.tiles {
                #expect(paged.pages[paged.page(ofTile: tile.index)].tiles.contains(tile.index), "seed \(seed)")
            }
        }
    }

    @Test func onePageIsExactlyThePlainLayout() throws {
        for seed in Self.seeds {
            var random = SplitMix64(seed: seed)
            let (configuration, images) = try randomLayoutInput(&random)
            let paged = try PagedLayout(configuration: configuration, sizes: images, limits: .onePage)
            let plain = MasonryLayout(configuration: configuration, sizes: images)
            #expect(paged.tiles == plain.tiles, "seed \(seed)")
            #expect(paged.pages.count == 1 && paged.pages[0].height == plain.height, "seed \(seed)")
        }
    }

    @Test func theSmallestPageHeightWorksAndOneLessDoesNot() throws {
        for seed in Self.seeds.prefix(300) {
            var random = SplitMix64(seed: seed)
            let (configuration, images) = try randomLayoutInput(&random)
            guard !images.isEmpty else { continue }
            let smallest = PagedLayout.smallestMaxHeight(configuration: configuration, sizes: images, bandHeight: 0, headerHeight: 0)
            let fits = try PagedLayout(configuration: configuration, sizes: images, limits: PageLimits(maxHeight: smallest))
            #expect(fits.pages.allSatisfy { $0.height <= smallest }, "seed \(seed)")
            // With one column width, some tile needs every pixel of the smallest height.
            if Set(configuration.columnWidths).count == 1 {
                #expect(throws: LayoutError.self, "seed \(seed)") {
                    try PagedLayout(configuration: configuration, sizes: images, limits: PageLimits(maxHeight: smallest - 1))
                }
            }
        }
    }

    @Test func workedExample() throws {
        // Two columns of 100 px (226 - 2×8 - 10); squares of 100 px; pages of at most 8 + 210 + 8 px.
        let configuration = try LayoutConfiguration(width: 226, columns: 2, columnGap: 10, rowGap: 10, insets: .init(all: 8))
        let paged = try PagedLayout(configuration: configuration, sizes: sizes((1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (2, 1)),
                                    limits: PageLimits(maxHeight: 226))
        // Page 1: four squares, two a column (8+100+10+100 = 218 = 226 - 8). Page 2: a square and a 100×50.
        #expect(paged.pages.map(\.tiles) == [0 ..< 4, 4 ..< 6])
        #expect(paged.pages.map(\.height) == [226, 116])
        #expect(paged.tiles[4].frame == rect(8, 8, 100, 100))
        #expect(paged.tiles[5].frame == rect(118, 8, 100, 50))
        let error = #expect(throws: LayoutError.self) {
            try PagedLayout(configuration: configuration, sizes: sizes((1, 2)), limits: PageLimits(maxHeight: 215))
        }
        #expect(error?.description.contains("the smallest page height that works is 216") == true)
    }
}

/// Sections on pages (SPEC §6): headers placed with their first tile, repeated when continued.
@Suite struct SectionPageTests {
    @Test func headersAreNeverAloneAndContinueOnNewPages() throws {
        for seed in PageTests.seeds {
            var random = SplitMix64(seed: seed)
            let (configuration, images) = try randomLayoutInput(&random)
            guard !images.isEmpty else { continue }
            var starts = [0]
            for index in 1..<images.count where random.chance(15) { starts.append(index) }
            let headerHeight = random.int(1 ... 30)
            let band = random.chance(30) ? random.int(1 ... 20) : 0
            let base = PageTests.randomLimits(&random, configuration, images, band: band)
            let smallest = PagedLayout.smallestMaxHeight(configuration: configuration, sizes: images, bandHeight: band,
                                                         headerHeight: base.headerHeight + headerHeight + configuration.rowGap)
            let limits = PageLimits(maxHeight: base.maxHeight == 0 ? 0 : max(base.maxHeight, smallest),
                                    maxTiles: base.maxTiles, headerHeight: base.headerHeight)
            let paged = try PagedLayout(configuration: configuration, sizes: images, bandHeight: band, sectionStarts: starts,
                                        sectionHeaderHeight: headerHeight, limits: limits)
            func section(of index: Int) -> Int { starts.lastIndex { $0 <= index }! }

            for (number, page) in paged.pages.enumerated() {
                if limits.maxHeight > 0 { #expect(page.height <= limits.maxHeight, "seed \(seed) page \(number)") }
                let headers = paged.headers.filter { $0.page == number }
                let sectionsHere = Set(page.tiles.map(section(of:)))
                // Exactly one header per section with tiles on this page, and no other.
                #expect(Set(headers.map(\.section)) == sectionsHere && headers.count == sectionsHere.count, "seed \(seed) page \(number)")
                for header in headers {
                    let own = page.tiles.filter { section(of: $0) == header.section }
                    // Continued exactly when the section's first image is on an earlier page.
                    #expect(header.continued == (starts[header.section] < page.tiles.lowerBound), "seed \(seed) page \(number)")
                    // The section's tiles lie below its header, a row gap apart at least; nothing overlaps it.
                    for index in own {
                        #expect(paged.tiles[index].frame.y >= header.frame.maxY + configuration.rowGap, "seed \(seed) tile \(index)")
                    }
                    for index in page.tiles where section(of: index) != header.section {
                        #expect(!paged.tiles[index].frame.intersects(header.frame), "seed \(seed) tile \(index)")
                    }
                    #expect(header.frame.x == configuration.insets.left && header.frame.width == configuration.innerWidth)
                    #expect(header.frame.y >= configuration.insets.top + limits.headerHeight, "seed \(seed)")
                }
            }
        }
    }
}
