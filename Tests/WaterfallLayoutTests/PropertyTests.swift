import WaterfallLayout
import Testing

/// Seeded property tests over random layouts. Every failure message names its seed; rerun one
/// layout with `SplitMix64(seed:)` and `randomLayoutInput`.
@Suite struct PropertyTests {
    static let seeds: Range<UInt64> = 0 ..< 2000

    @Test func tilesFollowTheSpec() throws {
        for seed in Self.seeds {
            var random = SplitMix64(seed: seed)
            let (configuration, images) = try randomLayoutInput(&random)
            let layout = MasonryLayout(configuration: configuration, sizes: images)
            let tiles = layout.tiles
            let insets = configuration.insets
            let columns = configuration.columns

            // Column widths fill the inner width exactly, widest first, differing by at most 1.
            let widths = configuration.columnWidths
            #expect(widths.reduce(0, +) + configuration.columnGap * (columns - 1) == configuration.innerWidth, "seed \(seed)")
            #expect(widths.first! - widths.last! <= 1 && widths == widths.sorted(by: >), "seed \(seed)")
            #expect(configuration.columnXs.last! + widths.last! == configuration.width - insets.right, "seed \(seed)")

            // Replay the placement rules on our own column bottoms.
            var bottoms = Array(repeating: insets.top, count: columns)
            for (position, tile) in tiles.enumerated() {
                let image = images[position]
                let column = tile.column
                let shortest = bottoms.min()!
                switch configuration.order {
                case .shortest:
                    let expected = bottoms.firstIndex { $0 - shortest <= configuration.tolerance }!
                    #expect(column == expected, "seed \(seed) tile \(position)")
                    #expect(bottoms[column] - shortest <= configuration.tolerance, "seed \(seed) tile \(position)")
                case .leftToRight:
                    #expect(column == position % columns, "seed \(seed) tile \(position)")
                case .rightToLeft:
                    #expect(column == columns - 1 - position % columns, "seed \(seed) tile \(position)")
                }
                let w = widths[column]
                let uncapped = max(1, (2 * w * image.height + image.width) / (2 * image.width))
                let height = min(uncapped, configuration.maxTileAspect * w)
                #expect(tile.index == position, "seed \(seed)")
                #expect(tile.frame == rect(configuration.columnXs[column], bottoms[column], w, height), "seed \(seed) tile \(position)")
                if uncapped > height {
                    let pictureWidth = max(1, (2 * height * image.width + image.height) / (2 * image.height))
                    #expect(tile.imageFrame == rect(tile.frame.x + (w - pictureWidth) / 2, tile.frame.y, pictureWidth, height),
                            "seed \(seed) tile \(position)")
                } else {
                    #expect(tile.imageFrame == tile.frame, "seed \(seed) tile \(position)")
                }
                bottoms[column] = tile.frame.maxY + configuration.rowGap
            }

            // Sheet height: the tallest column plus the insets.
            let contentBottom = tiles.map(\.frame.maxY).max() ?? insets.top
            #expect(layout.height == contentBottom + insets.bottom, "seed \(seed)")

            // Every tile (and picture) lies inside the wall; no two tiles overlap.
            let wall = rect(insets.left, insets.top, configuration.innerWidth, layout.height - insets.top - insets.bottom)
            for (position, tile) in tiles.enumerated() {
                #expect(wall.contains(tile.frame) && tile.frame.contains(tile.imageFrame), "seed \(seed) tile \(position)")
                for other in tiles[(position + 1)...] where other.frame.intersects(tile.frame) {
                    Issue.record("seed \(seed): tiles \(position) and \(other.index) overlap")
                }
            }
        }
    }

    @Test func appendingInRandomPartsEqualsAllAtOnce() throws {
        for seed in Self.seeds {
            var random = SplitMix64(seed: seed)
            let (configuration, images) = try randomLayoutInput(&random)
            let whole = MasonryLayout(configuration: configuration, sizes: images)
            var grown = MasonryLayout(configuration: configuration)
            var start = 0
            while start < images.count {
                let end = min(images.count, start + random.int(0 ... 10))
                if random.chance(50) {
                    grown.append(images[start ..< end])
                } else {
                    try grown.tryAppend(images[start ..< end])
                }
                start = end
            }
            #expect(grown.tiles == whole.tiles, "seed \(seed)")
            #expect(grown.height == whole.height, "seed \(seed)")
        }
    }

    @Test func rectQueryMatchesBruteForce() throws {
        for seed in Self.seeds {
            var random = SplitMix64(seed: seed)
            let (configuration, images) = try randomLayoutInput(&random)
            let layout = MasonryLayout(configuration: configuration, sizes: images)
            for query in 0 ..< 10 {
                let area = randomRect(&random, width: layout.width, height: layout.height)
                let expected = layout.tiles.filter { $0.frame.intersects(area) }
                #expect(layout.tiles(in: area) == expected, "seed \(seed) query \(query) \(area)")
            }
        }
    }

    @Test func oneSectionEqualsThePlainLayout() throws {
        for seed in Self.seeds {
            var random = SplitMix64(seed: seed)
            let (configuration, images) = try randomLayoutInput(&random)
            let plain = MasonryLayout(configuration: configuration, sizes: images)
            let sectioned = try SectionedLayout(width: configuration.width, sections: [
                LayoutSection(
                    sizes: images, columns: configuration.columns, columnGap: configuration.columnGap,
                    rowGap: configuration.rowGap, insets: configuration.insets, order: configuration.order,
                    tolerance: configuration.tolerance, maxTileAspect: configuration.maxTileAspect),
            ])
            #expect(sectioned.tiles(inSection: 0) == plain.tiles, "seed \(seed)")
            #expect(sectioned.height == plain.height, "seed \(seed)")
            #expect(sectioned.elements.map(\.frame) == plain.tiles.map(\.frame), "seed \(seed)")
        }
    }

    @Test func sectionsStackAndAnswerRectQueries() throws {
        for seed in Self.seeds.prefix(500) {
            var random = SplitMix64(seed: seed)
            let width = random.int(200 ... 900)
            var sections: [LayoutSection] = []
            for _ in 0 ..< random.int(0 ... 5) {
                let (configuration, images) = try randomLayoutInput(&random)
                let columns = min(configuration.columns, 4)
                let insets = LayoutInsets(top: random.int(0 ... 9), right: random.int(0 ... 9),
                                          bottom: random.int(0 ... 9), left: random.int(0 ... 9))
                sections.append(LayoutSection(
                    sizes: Array(images.prefix(20)), columns: columns, columnGap: random.int(0 ... 9),
                    rowGap: configuration.rowGap, insets: insets, order: configuration.order,
                    tolerance: configuration.tolerance, maxTileAspect: configuration.maxTileAspect,
                    headerHeight: random.chance(50) ? random.int(1 ... 40) : 0, headerInsets: .init(all: random.int(0 ... 5)),
                    footerHeight: random.chance(50) ? random.int(1 ... 40) : 0, footerInsets: .init(all: random.int(0 ... 5))))
            }
            let layout = try SectionedLayout(width: width, sections: sections)
            let elements = layout.elements

            // Sections follow one another; every element lies inside its section, none overlap.
            var top = 0
            for number in 0 ..< layout.sectionCount {
                let band = layout.frame(ofSection: number)
                #expect(band.y == top && band.width == width, "seed \(seed) section \(number)")
                top = band.maxY
                #expect(layout.tiles(inSection: number).count == sections[number].sizes.count, "seed \(seed)")
            }
            #expect(layout.height == top, "seed \(seed)")
            for (position, element) in elements.enumerated() {
                let section: Int
                switch element.kind {
                case .header(let number), .footer(let number), .tile(let number, _): section = number
                }
                #expect(layout.frame(ofSection: section).contains(element.frame), "seed \(seed) element \(position)")
                for other in elements[(position + 1)...] where other.frame.intersects(element.frame) {
                    Issue.record("seed \(seed): \(element.kind) and \(other.kind) overlap")
                }
            }
            for query in 0 ..< 10 {
                let area = randomRect(&random, width: width, height: layout.height)
                #expect(layout.elements(in: area) == elements.filter { $0.frame.intersects(area) },
                        "seed \(seed) query \(query) \(area)")
            }
        }
    }
}
