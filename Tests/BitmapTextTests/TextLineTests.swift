import BitmapText
import MasonrySheet
import Testing

/// A random line built from pieces whose drawn form is known one by one: valid scalars
/// (some escaped, some missing from the font) and bytes that are never UTF-8.
struct RandomLine {
    static let validPieces: [String] = ["a", "Z", "7", " ", ".", "\\", "\n", "\t", "\r", "\u{1B}", "\u{7F}", "\u{85}",
                                        "é", "Ж", "λ", "…", "\u{4E2D}", "\u{1F600}", "\u{2028}", "\u{AD}"]
    static let invalidBytes: [UInt8] = [0xFF, 0xFE, 0xC0, 0xC1, 0x80, 0xBF, 0xF5]
    var pieces: [[UInt8]]

    init(using random: inout SplitMix64, maxPieces: Int = 40) {
        pieces = (0..<random.int(0...maxPieces)).map { _ in
            random.int(0...4) == 0 ? [Self.invalidBytes[random.int(0...(Self.invalidBytes.count - 1))]]
                : Array(Self.validPieces[random.int(0...(Self.validPieces.count - 1))].utf8)
        }
    }

    var bytes: [UInt8] { pieces.flatMap { $0 } }
    /// Each piece as drawn: the units shortening must not split.
    var units: [[Unicode.Scalar]] { pieces.map { TextLine(bytes: $0).scalars } }
}

@Suite struct TextLineTests {
    @Test func escapesAsMessagesDo() {
        #expect(TextLine(bytes: Array("plain Ωmega.png".utf8)).string == "plain Ωmega.png")
        #expect(TextLine(bytes: [0x61, 0xFF, 0x0A, 0x5C, 0x1B, 0xE2, 0x80, 0xA8]).string == #"a\xff\n\\\x1b\u{2028}"#)
        #expect(TextLine(bytes: [0xED, 0xA0, 0x80]).string == #"\xed\xa0\x80"#, "a UTF-16 surrogate is not UTF-8")
        #expect(TextLine(bytes: [0xC0, 0xAF]).string == #"\xc0\xaf"#, "overlong forms are not UTF-8")
        #expect(TextLine("tab\there").string == #"tab\there"#)
    }

    /// Whatever the bytes, a line is one printable line (no control or separator character
    /// left), and escaping is piecewise: a line of known pieces reads as its pieces' forms joined.
    /// (`RawPath.displayName` is this escaping, so messages and captions agree by construction.)
    @Test func escapingIsPrintableAndPiecewise() {
        var random = SplitMix64(seed: SplitMix64.suiteSeed ^ 0x7E47)
        print("TextLineTests.escapingIsPrintableAndPiecewise seed \(random.state)")
        for _ in 0..<2000 {
            let bytes = random.bytes(random.int(0...24))
            let drawn = TextLine(bytes: bytes).string
            #expect(!drawn.unicodeScalars.contains { $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) || $0 == "\u{2028}" || $0 == "\u{2029}" },
                    "bytes \(bytes)")
            #expect(RawPath(bytes: bytes).displayName == drawn)
            let line = RandomLine(using: &random)
            #expect(TextLine(bytes: line.bytes).string == line.pieces.map { TextLine(bytes: $0).string }.joined(), "bytes \(line.bytes)")
        }
    }

    @Test func shorteningExamples() {
        let font = BitmapFont.builtIn(.small)  // 6 px a cell
        let line = TextLine("0123456789")
        #expect(line.fitted(toWidth: 60, in: font) == line)
        #expect(line.fitted(toWidth: 59, in: font).string == "0123…6789")
        #expect(line.fitted(toWidth: 53, in: font).string == "0123…789")
        #expect(line.fitted(toWidth: 12, in: font).string == "0…")
        #expect(line.fitted(toWidth: 6, in: font).string == "…")
        #expect(line.fitted(toWidth: 5, in: font).string == "")
        #expect(line.fitted(toWidth: -3, in: font).string == "")
        #expect(TextLine("").fitted(toWidth: 0, in: font).string == "")
    }

    /// Seeded: the result always fits, is the original when that fits, and is otherwise a
    /// prefix and a suffix of the original made of whole units, around one "…".
    @Test(arguments: FontSize.allCases)
    func fittedAlwaysFitsAndKeepsPrefixAndSuffix(size: FontSize) {
        let font = BitmapFont.builtIn(size)
        var random = SplitMix64(seed: SplitMix64.suiteSeed ^ 0xF177 ^ UInt64(font.cellWidth))
        print("TextLineTests.fittedAlwaysFitsAndKeepsPrefixAndSuffix \(size) seed \(random.state)")
        for iteration in 0..<3000 {
            let input = RandomLine(using: &random)
            let line = TextLine(bytes: input.bytes)
            let maxWidth = random.int(-8...(line.width(in: font) + 20))
            let fitted = line.fitted(toWidth: maxWidth, in: font)
            let context = "iteration \(iteration), \(line.string.debugDescription) to \(maxWidth) px: \(fitted.string.debugDescription)"
            #expect(fitted.width(in: font) <= max(maxWidth, 0), "\(context)")
            if line.width(in: font) <= maxWidth {
                #expect(fitted == line, "\(context)")
                continue
            }
            if maxWidth < font.advance(of: "…") {
                #expect(fitted.scalars.isEmpty, "\(context)")
                continue
            }
            // Some k whole units before the added "…" and some m whole units after it.
            let units = input.units
            let prefixCounts = units.indices.reduce(into: [0]) { $0.append($0.last! + units[$1].count) }
            let suffixCounts = units.indices.reversed().reduce(into: [0]) { $0.append($0.last! + units[$1].count) }
            let matches = prefixCounts.contains { prefix in
                suffixCounts.contains { suffix in
                    prefix + suffix + 1 == fitted.scalars.count && prefix + suffix < line.scalars.count
                        && fitted.scalars[..<prefix].elementsEqual(line.scalars[..<prefix])
                        && fitted.scalars[prefix] == "…"
                        && fitted.scalars[(prefix + 1)...].elementsEqual(line.scalars[(line.scalars.count - suffix)...])
                }
            }
            #expect(matches, "\(context)")
            // Less than one unit's width is left unused (the widest here, `\u{2028}`, is 8 cells).
            #expect(fitted.width(in: font) > maxWidth - 9 * font.cellWidth, "\(context)")
        }
    }
}
