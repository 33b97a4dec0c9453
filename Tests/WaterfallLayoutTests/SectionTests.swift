import WaterfallLayout
import Testing

@Suite struct SectionTests {
    /// Section 0: 3 columns, gaps 10, insets 10, a 30 px header (insets 5 above and below),
    /// a 20 px footer (insets 2); section 1: one column, no insets.
    static func example() throws -> SectionedLayout {
        try SectionedLayout(width: 340, sections: [
            LayoutSection(
                sizes: sizes((100, 100), (100, 50)), columns: 3, columnGap: 10, rowGap: 10, insets: .init(all: 10),
                headerHeight: 30, headerInsets: .init(top: 5, right: 0, bottom: 5, left: 0),
                footerHeight: 20, footerInsets: .init(all: 2)),
            LayoutSection(sizes: sizes((10, 10)), columns: 1, columnGap: 0, rowGap: 0, insets: .zero),
        ])
    }

    @Test func headersColumnsAndFooters() throws {
        let layout = try Self.example()
        // Section 0 starts at 0; header at y = 0 + 10 + 5 = 15, x = 10, width 340 - 20 = 320, to 45.
        #expect(layout.headerFrame(ofSection: 0) == rect(10, 15, 320, 30))
        // Columns start at 45 + 5 = 50: tiles of h 100 and 50 in columns 0 and 1.
        #expect(layout.tiles(inSection: 0).map(\.frame) == [rect(10, 50, 100, 100), rect(120, 50, 100, 50)])
        // Footer: tallest column ends at 150; y = 150 + 2, x = 10 + 2, width 320 - 4.
        #expect(layout.footerFrame(ofSection: 0) == rect(12, 152, 316, 20))
        // Section 0 ends at 172 + 2 + 10 = 184.
        #expect(layout.frame(ofSection: 0) == rect(0, 0, 340, 184))
        // Section 1: one column of 340 from 184; 10x10 gives h = 340.
        #expect(layout.headerFrame(ofSection: 1) == nil)
        #expect(layout.footerFrame(ofSection: 1) == nil)
        #expect(layout.tiles(inSection: 1).map(\.frame) == [rect(0, 184, 340, 340)])
        #expect(layout.height == 524)
        #expect(layout.sectionCount == 2)
        #expect(layout.elements.map(\.kind) == [
            .header(section: 0), .tile(section: 0, index: 0), .tile(section: 0, index: 1),
            .footer(section: 0), .tile(section: 1, index: 0),
        ])
        // y 160 ..< 190: section 0's footer (152 ..< 172) and section 1's tile (from 184).
        #expect(layout.elements(in: rect(0, 160, 340, 30)).map(\.kind) == [.footer(section: 0), .tile(section: 1, index: 0)])
    }

    @Test func appendingToTheLastSectionMovesItsFooter() throws {
        var layout = try SectionedLayout(width: 340, sections: [
            LayoutSection(sizes: sizes((100, 100)), columns: 3, columnGap: 10, rowGap: 10, insets: .init(all: 10),
                          footerHeight: 20),
        ])
        // Tile 10 ..< 110; footer at 110; section ends at 130 + 10.
        #expect(layout.footerFrame(ofSection: 0) == rect(10, 110, 320, 20))
        #expect(layout.height == 140)
        try layout.appendToLastSection(sizes((100, 100), (100, 100), (100, 300)))
        // The 4th tile goes to column 0 at 120 with h 300, ending at 420.
        #expect(layout.tiles(inSection: 0).last?.frame == rect(10, 120, 100, 300))
        #expect(layout.footerFrame(ofSection: 0) == rect(10, 420, 320, 20))
        #expect(layout.height == 450)
        let empty = try SectionedLayout(sections: [])
        #expect(empty.height == 0)
        #expect(empty.elements(in: rect(0, 0, 100, 100)).isEmpty)
    }

    @Test func oneSectionIsThePlainLayout() throws {
        let all = sizes((100, 50), (200, 300), (100, 100), (300, 100), (100, 30), (3, 2), (8, 1))
        let plain = MasonryLayout(configuration: try PlacementTests.threeColumns(), sizes: all)
        let sectioned = try SectionedLayout(width: 340, sections: [
            LayoutSection(sizes: all, columns: 3, columnGap: 10, rowGap: 10, insets: .init(all: 10)),
        ])
        #expect(sectioned.tiles(inSection: 0) == plain.tiles)
        #expect(sectioned.height == plain.height)
        #expect(sectioned.configuration(ofSection: 0) == plain.configuration)
    }

    struct BadSections: Sendable, CustomTestStringConvertible {
        let sections: [LayoutSection]
        let message: String
        var testDescription: String { message }
    }

    @Test(arguments: [
        BadSections(sections: [LayoutSection(), LayoutSection(columns: 0)],
                    message: "section 1: columns must be at least 1 (got 0)"),
        BadSections(sections: [LayoutSection(headerHeight: 10, headerInsets: .init(top: 0, right: 600, bottom: 0, left: 584))],
                    message: "section 0: headerInsets.left 584 and right 600 leave no width for the header (inner width 1184)"),
        BadSections(sections: [LayoutSection(footerHeight: -1)],
                    message: "section 0: footerHeight must be at least 0 (got -1)"),
        BadSections(sections: [LayoutSection(headerInsets: .init(all: 1 << 25))],
                    message: "section 0: headerInsets.top must be at most 16777216 (got 33554432)"),
        BadSections(sections: [LayoutSection(sizes: sizes((1, 1), (0, 1)))],
                    message: "section 0, image 1 has size 0x1: both sides must be at least 1"),
    ])
    func rejectsBadSections(_ bad: BadSections) {
        let error = #expect(throws: LayoutError.self) { try SectionedLayout(sections: bad.sections) }
        #expect(error?.description == bad.message)
    }

    @Test func rejectsBadWidthAndAppendWithoutSections() {
        let width = #expect(throws: LayoutError.self) { try SectionedLayout(width: 0, sections: []) }
        #expect(width?.description == "width must be at least 1 (got 0)")
        let append = #expect(throws: LayoutError.self) {
            var layout = try SectionedLayout(sections: [])
            try layout.appendToLastSection(sizes((1, 1)))
        }
        #expect(append?.description == "there is no section to append images to")
    }
}
