import BitmapText
import Testing

/// SPEC §7: glyphs cover at least Latin-1, Latin Extended-A, Greek and Cyrillic, in every size.
@Suite struct CoverageTests {
    /// The ranges the font promises (code points; unassigned ones are left out).
    static let promised: [(name: String, scalars: [ClosedRange<UInt32>])] = [
        ("Latin-1", [0x20...0x7E, 0xA0...0xFF]),
        ("Latin Extended-A", [0x100...0x17F]),
        // Modern (monotonic) Greek with tonos and dialytika, as in ISO 8859-7, plus the
        // symbol forms U+03D0-U+03F6.
        ("Greek", [0x384...0x38A, 0x38C...0x38C, 0x38E...0x3A1, 0x3A3...0x3CE, 0x3D0...0x3F6]),
        // The Cyrillic block as of Unicode 4.0 (U+0487, U+04CF, U+04F6-U+04F7 and U+04FA-U+04FF
        // came later and are missing from the small and medium faces).
        ("Cyrillic", [0x400...0x486, 0x488...0x4CE, 0x4D0...0x4F5, 0x4F8...0x4F9]),
        ("Box drawing", [0x2500...0x257F]),
        ("Shortening and replacement", [0x2026...0x2026, 0xFFFD...0xFFFD]),
    ]

    @Test(arguments: FontSize.allCases)
    func promisedRangesHaveGlyphs(size: FontSize) {
        let font = BitmapFont.builtIn(size)
        for (name, ranges) in Self.promised {
            let missing = ranges.flatMap { $0 }.filter { !font.hasGlyph(Unicode.Scalar($0)!) }
            #expect(missing.isEmpty, "\(size): \(name) lacks \(missing.map { "U+" + String($0, radix: 16, uppercase: true) })")
        }
    }

    /// Scripts the face does not have come from the fallback (GNU Unifont); Linear B, outside
    /// the fallback's planes, is a replacement box.
    @Test(arguments: FontSize.allCases)
    func otherScriptsComeFromTheFallback(size: FontSize) {
        let font = BitmapFont.builtIn(size)
        for scalar: Unicode.Scalar in ["\u{4E2D}", "\u{3042}", "\u{0915}", "\u{AC00}", "\u{1F600}"] {
            #expect(!font.hasGlyph(scalar), "\(size) has U+\(String(scalar.value, radix: 16))")
            #expect(font.drawsGlyph(scalar), "\(size): the fallback lacks U+\(String(scalar.value, radix: 16))")
        }
        #expect(!font.drawsGlyph("\u{10000}"))
    }

    @Test func metricsOfTheThreeFaces() {
        let expected: [FontSize: (cell: Int, line: Int, ascent: Int)] =
            [.small: (6, 13, 11), .medium: (9, 15, 12), .large: (10, 20, 16)]
        for size in FontSize.allCases {
            let font = BitmapFont.builtIn(size)
            #expect((font.cellWidth, font.lineHeight, font.ascent) == expected[size]!, "\(size)")
            #expect(size.cellSize == (font.cellWidth, font.lineHeight), "\(size): FontSize.cellSize is not the face's")
            #expect(font.advance(of: "W") == font.cellWidth && font.advance(of: "\u{10000}") == font.cellWidth)
            // Wide fallback glyphs take two cells, combining marks and joiners none.
            #expect(font.advance(of: "\u{4E2D}") == 2 * font.cellWidth && font.advance(of: "\u{1F600}") == 2 * font.cellWidth)
            #expect(font.advance(of: "\u{0301}") == 0 && font.advance(of: "\u{200D}") == 0)
        }
    }
}
