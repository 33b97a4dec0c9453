import BitmapText
import Digest
import Foundation
import Raster
import Testing

/// Captions in sixteen scripts (Fixtures/scripts-sheet.tsv) against GNU Unifont's own glyph
/// bitmaps (Fixtures/unifont-sheet.hex, copied from the upstream data by
/// Fixtures/make_script_sheet.py, not from Masonry's generated tables).
@Suite struct ScriptSheetTests {
    static let captions: [(name: String, text: String)] = {
        let table = try! String(contentsOfFile: fixturePath("scripts-sheet.tsv"), encoding: .utf8)
        return table.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let fields = line.split(separator: "\t")
            return (String(fields[0]), String(decoding: bytes(hex: fields[1]), as: UTF8.self))
        }
    }()

    /// Code point -> (width 8 or 16, 16 rows of bits, the leftmost pixel highest).
    static let unifont: [UInt32: (width: Int, rows: [UInt32])] = {
        let text = try! String(contentsOfFile: fixturePath("unifont-sheet.hex"), encoding: .utf8)
        var glyphs = [UInt32: (width: Int, rows: [UInt32])]()
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":")
            let digits = Array(parts[1]), perRow = digits.count / 16
            glyphs[UInt32(parts[0], radix: 16)!] = (perRow * 4, (0..<16).map { UInt32(String(digits[($0 * perRow)..<(($0 + 1) * perRow)]), radix: 16)! })
        }
        return glyphs
    }()

    @Test func theSheetHasFifteenScriptsAndTheirGlyphs() {
        #expect(Self.captions.count >= 15)
        for name in ["latin", "greek", "cyrillic", "armenian", "hebrew", "arabic", "devanagari", "bengali", "thai",
                     "georgian", "hangul", "kana", "cjk", "ethiopic", "emoji"] {
            #expect(Self.captions.contains { $0.name == name }, "no \(name) caption")
        }
        #expect(Self.unifont.count > 100 && Self.unifont[0x5317] != nil && Self.unifont[0x1F389] != nil)
    }

    /// What a fallback glyph alone must look like, black on white: Unifont's bitmap placed as
    /// SPEC says (1:1 centred at large, baseline to baseline; 1:1 less the top row at medium;
    /// at small, 3/4 size with each pixel's covered share, in sixteenths, as its alpha).
    static func expectedFallback(_ scalar: Unicode.Scalar, font: BitmapFont) -> Canvas {
        let (width, rows) = unifont[scalar.value]!
        let boxWidth = width / 8 * font.cellWidth
        var canvas = Canvas(width: boxWidth, height: font.lineHeight, channels: 3, background: .white)
        func inked(_ x: Int, _ y: Int) -> Bool { rows[y] >> UInt32(width - 1 - x) & 1 != 0 }
        func set(_ x: Int, _ y: Int, alpha: Int) {
            let value = UInt8((255 * (255 - alpha) + 127) / 255)
            let offset = (y * boxWidth + x) * 3
            canvas.bytes[offset..<(offset + 3)] = [value, value, value]
        }
        if font.lineHeight == 13 {
            let scaled = width * 3 / 4, left = (boxWidth - scaled) / 2
            for y in 0..<12 {
                for x in 0..<scaled {
                    var level = 0
                    for v in (4 * y)..<(4 * y + 4) { for u in (4 * x)..<(4 * x + 4) where inked(u / 3, v / 3) { level += 1 } }
                    if level > 0 { set(left + x, y, alpha: (255 * level + 8) / 16) }
                }
            }
        } else {
            let left = (boxWidth - width) / 2, top = font.lineHeight == 20 ? 2 : -1
            for y in 0..<16 where y + top >= 0 && y + top < font.lineHeight {
                for x in 0..<width where inked(x, y) { set(left + x, y + top, alpha: 255) }
            }
        }
        return canvas
    }

    /// Every spacing character a caption draws from the fallback has Unifont's ink. (An
    /// Arabic letter alone is drawn in its isolated form: the captions' Arabic letters are
    /// checked as the presentation forms they are shaped into.)
    @Test(arguments: FontSize.allCases)
    func fallbackGlyphsHaveUnifontsInk(size: FontSize) {
        let font = BitmapFont.builtIn(size)
        var checked = 0
        let presentationForms = String(String.UnicodeScalarView(Self.unifont.keys.sorted().filter { 0xFE70...0xFEFF ~= $0 }.map { Unicode.Scalar($0)! }))
        for (name, text) in Self.captions + [("presentation forms", presentationForms)] {
            for scalar in text.unicodeScalars where !(0x600...0x6FF ~= scalar.value) && !font.hasGlyph(scalar) && font.advance(of: scalar) > 0 {
                var drawn = Canvas(width: font.advance(of: scalar), height: font.lineHeight, channels: 3, background: .white)
                drawn.draw(TextLine(String(scalar)), font: font, color: .black, x: 0, y: 0)
                let expected = Self.expectedFallback(scalar, font: font)
                #expect(drawn == expected, "\(name), \(size): U+\(String(scalar.value, radix: 16, uppercase: true)) differs from Unifont's glyph")
                checked += 1
            }
        }
        // CJK, Hangul, kana, Devanagari, Bengali and emoji at least (Arabic, Ethiopic too at small).
        #expect(checked >= (size == .small ? 45 : 30), "only \(checked) fallback glyphs checked")
    }

    /// A combining mark is drawn over its base: the pair draws the ink of both in the base's box.
    @Test(arguments: FontSize.allCases)
    func marksAreDrawnOverTheirBase(size: FontSize) {
        let font = BitmapFont.builtIn(size)
        // e + acute (the face's mark), Thai mai ek, Devanagari vowel sign and virama (Unifont's).
        for (base, mark) in [("e", "\u{0301}"), ("\u{0E16}", "\u{0E48}"), ("\u{0928}", "\u{092E}\u{094D}"), ("\u{092B}", "\u{094B}")] as [(String, String)] {
            let pair = TextLine(base + mark)
            let markScalar = mark.unicodeScalars.last!
            #expect(font.advance(of: markScalar) == 0)
            let width = pair.width(in: font)
            var together = Canvas(width: width, height: font.lineHeight, channels: 3, background: .white)
            together.draw(pair, font: font, color: .black, x: 0, y: 0)
            var apart = Canvas(width: width, height: font.lineHeight, channels: 3, background: .white)
            apart.draw(TextLine(base + String(mark.unicodeScalars.dropLast())), font: font, color: .black, x: 0, y: 0)
            // The mark alone has no base, so it takes its own box: draw it at the base's last box.
            let markWidth = TextLine(String(markScalar)).width(in: font)
            apart.draw(TextLine(String(markScalar)), font: font, color: .black, x: width - markWidth, y: 0)
            #expect(together == apart, "\(size): \(base.unicodeScalars.map { String($0.value, radix: 16) }) + mark")
            #expect(together.bytes != Canvas(width: width, height: font.lineHeight, channels: 3, background: .white).bytes)
        }
    }

    /// The captions in visual order, as UAX #9 and Unicode's Arabic joining rules give them
    /// (worked by hand): Hebrew's first strong letter makes the line right to left, with
    /// "01" and "png" kept in order; the Arabic word of a Latin name reversed and joined
    /// (initial sad, final waw, isolated reh and teh marbuta), the "01" after it an Arabic
    /// number that stays in order; lam-alef as one ligature and brackets mirrored.
    @Test(arguments: FontSize.allCases)
    func rightToLeftCaptionsAreInVisualOrderAndJoined(size: FontSize) {
        let font = BitmapFont.builtIn(size)
        let expectations: [(String, String)] = [
            ("תמונה_01.png", "png.01_\u{05D4}\u{05E0}\u{05D5}\u{05DE}\u{05EA}"),
            ("IMG_صورة_01.jpg", "IMG_01_\u{FE93}\u{FEAD}\u{FEEE}\u{FEBB}.jpg"),
            ("سلام (لا).png", "png.(\u{FEFB}) \u{FEE1}\u{FEFC}\u{FEB3}"),
        ]
        for (logical, visual) in expectations {
            let line = TextLine(logical)
            var drawn = Canvas(width: line.width(in: font), height: font.lineHeight, channels: 3, background: .white)
            drawn.draw(line, font: font, color: .black, x: 0, y: 0)
            var expected = Canvas(width: line.width(in: font), height: font.lineHeight, channels: 3, background: .white)
            var x = 0
            for scalar in visual.unicodeScalars {
                expected.draw(TextLine(String(scalar)), font: font, color: .black, x: x, y: 0)
                x += font.advance(of: scalar)
            }
            #expect(x == line.width(in: font), "\(size): \(logical) is \(line.width(in: font)) px wide, its glyphs \(x)")
            #expect(drawn == expected, "\(size): \(logical) is not drawn as \(visual.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    /// The whole sheet, every caption in every size on light and dark bands: a golden digest
    /// (looked at, enlarged, when it was recorded; written to $MASONRY_SCRIPT_SHEET as a PNG
    /// when that is set).
    @Test func sheetDigest() throws {
        let fonts = FontSize.allCases.map(BitmapFont.builtIn)
        let rowHeight = fonts.map(\.lineHeight).reduce(0, +) + 6
        var canvas = Canvas(width: 560, height: Self.captions.count * rowHeight, channels: 3, background: .white)
        for (index, caption) in Self.captions.enumerated() {
            var y = index * rowHeight + 2
            for (number, font) in fonts.enumerated() {
                let dark = number == 1
                if dark {
                    let band: PixelRect = (0, y, canvas.width, font.lineHeight), clip: PixelRect = (0, 0, canvas.width, canvas.height)
                    canvas.paint { BoxPainter.fill(band, color: RGBA8Color(r: 0x20, g: 0x28, b: 0x30), clip: clip, channels: 3, row: $0) }
                }
                let line = TextLine(caption.text).fitted(toWidth: 270, in: font)
                canvas.draw(line, font: font, color: dark ? .white : .black, x: 4, y: y)
                canvas.draw(TextLine(caption.text), font: font, color: dark ? .white : .black, x: 280, y: y)
                y += font.lineHeight + 2
            }
        }
        if let path = ProcessInfo.processInfo.environment["MASONRY_SCRIPT_SHEET"] { try canvas.writePNG(to: path) }
        var digest = Digest.SHA256()
        digest.update(canvas.bytes)
        let hex = digest.finalize().map { String(format: "%02x", $0) }.joined()
        #expect(hex == Self.sheetGolden, "the script sheet changed: \(hex)")
    }

    static let sheetGolden = "5c4b2adf9b7aed331559315301c98f206afbdf724013e7b7256f0a0a74f213d3"
}
