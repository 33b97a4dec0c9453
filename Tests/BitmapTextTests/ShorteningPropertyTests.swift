import BitmapText
import Testing

/// Seeded property tests of shortening mixed-script text: the seed is printed; a failure
/// names the iteration, so `SplitMix64(seed:)` with that seed replays it.
@Suite struct ShorteningPropertyTests {
    /// Grapheme clusters of many scripts, several of more than one scalar: combining
    /// sequences, Indic conjuncts, Hangul jamo, emoji with modifiers, ZWJ sequences, flags.
    static let clusters: [String] = [
        "a", "Z", "_", "0", ".", " ", "é", "e\u{0301}", "a\u{0308}\u{0304}", "Ω", "ж", "Ա", "א", "ש\u{05C1}\u{05B8}",
        "ص", "ل", "ا", "\u{0628}\u{064E}", "٣", "न", "स\u{094D}\u{0924}\u{0947}", "ছ", "ব\u{09BF}", "ภ", "ถ\u{0E48}",
        "ท\u{0E35}\u{0E48}", "თ", "사", "\u{1100}\u{1161}\u{11A8}", "ひ", "カ", "北", "京", "አ", "🎉", "👍🏽",
        "👨\u{200D}👩\u{200D}👧", "🇯🇵", "🏳\u{FE0F}\u{200D}🌈", "\u{10000}", "(", ")", "\u{200F}", "\u{2067}",
    ]

    /// Never wider than the room; the kept text is whole clusters of the original's start
    /// and end around one "…"; a line that fits is left alone.
    @Test func shorteningNeverBreaksAClusterNorOverflows() {
        var random = SplitMix64(seed: SplitMix64.suiteSeed ^ 0x5C21)
        print("ShorteningPropertyTests.shorteningNeverBreaksAClusterNorOverflows seed \(random.state)")
        for iteration in 0..<2000 {
            let pieces = (0..<random.int(0...24)).map { _ in Self.clusters[random.int(0...(Self.clusters.count - 1))] }
            let text = pieces.joined()
            let font = BitmapFont.builtIn(FontSize.allCases[random.int(0...2)])
            let room = random.int(0...260)
            let line = TextLine(text)
            let shortened = line.fitted(toWidth: room, in: font, keepingEnd: random.int(0...1) == 1)
            let context = "iteration \(iteration): \(text.unicodeScalars.map { String($0.value, radix: 16) }) in \(room) px"
            #expect(shortened.width(in: font) <= room || (room < font.cellWidth && shortened.scalars.isEmpty), "\(context)")
            if line.width(in: font) <= room {
                #expect(shortened == line, "\(context)")
                continue
            }
            guard !shortened.scalars.isEmpty else { #expect(room < font.advance(of: "\u{2026}"), "\(context)"); continue }
            let drawn = shortened.scalars
            guard let cut = drawn.firstIndex(of: "\u{2026}") else { Issue.record("no ellipsis: \(context)"); continue }
            var prefix = "", suffix = ""
            prefix.unicodeScalars.append(contentsOf: drawn[..<cut])
            suffix.unicodeScalars.append(contentsOf: drawn[(cut + 1)...])
            let original = Array(line.string), kept = (Array(prefix), Array(suffix))
            #expect(original.starts(with: kept.0), "prefix is not whole clusters: \(context)")
            #expect(original.reversed().starts(with: kept.1.reversed()), "suffix is not whole clusters: \(context)")
            #expect(kept.0.count + kept.1.count < original.count, "\(context)")
        }
    }
}
