import BitmapText
import Foundation
import Raster
import Testing

@Suite struct PaintingTests {
    /// Blending matches Raster's `compositeOver` for the same colour as a premultiplied pixel.
    @Test func blendingMatchesCompositeOver() {
        var random = SplitMix64(seed: SplitMix64.suiteSeed ^ 0xB1E4)
        print("PaintingTests.blendingMatchesCompositeOver seed \(random.state)")
        for _ in 0..<3000 {
            let channels = random.int(0...1) == 0 ? 3 : 4
            let background = RGBA8Color(r: random.byte(), g: random.byte(), b: random.byte(), a: channels == 3 ? 255 : random.byte())
            let color = RGBA8Color(r: random.byte(), g: random.byte(), b: random.byte(), a: random.byte())
            var painted = Canvas(width: 1, height: 1, channels: channels, background: background)
            painted.paint { BoxPainter.fill((0, 0, 1, 1), color: color, clip: (0, 0, 1, 1), channels: channels, row: $0) }
            // compositeOver takes premultiplied sources; only exact premultiplications compare.
            guard color.a == 255 || color.a == 0 || [color.r, color.g, color.b].allSatisfy({ Int($0) * Int(color.a) % 255 == 0 }) else { continue }
            let premultiplied: [UInt8] = [color.r, color.g, color.b].map { (sample: UInt8) in UInt8(Int(sample) * Int(color.a) / 255) } + [color.a]
            var composited = [UInt8](repeating: 0, count: channels)
            premultiplied.withUnsafeBufferPointer { source in
                composited.withUnsafeMutableBufferPointer { compositeOver(background: background, source: source, into: $0, channels: channels) }
            }
            #expect(Array(painted.bytes) == composited, "\(color) over \(background), \(channels) channels")
        }
    }

    @Test func textColorFollowsLuminance() {
        #expect(defaultTextColor(on: .white) == .black)
        #expect(defaultTextColor(on: .black) == .white)
        #expect(defaultTextColor(on: .transparent) == .black, "transparency is judged over white")
        #expect(defaultTextColor(on: RGBA8Color(r: 0, g: 0, b: 0, a: 200)) == .white)
        #expect(defaultTextColor(on: RGBA8Color(r: 0xFF, g: 0xD7, b: 0x00)) == .black, "gold")
        #expect(defaultTextColor(on: RGBA8Color(r: 0x00, g: 0x00, b: 0xCC)) == .white, "blue")
        // WCAG: #767676 (L 0.1812) contrasts more with black; #757575 (L 0.1779) with white.
        #expect(defaultTextColor(on: RGBA8Color(r: 0x76, g: 0x76, b: 0x76)) == .black)
        #expect(defaultTextColor(on: RGBA8Color(r: 0x75, g: 0x75, b: 0x75)) == .white)
    }

    /// A glyph neither font has (Linear B, outside the fallback's planes) draws its box: the
    /// cell outline less the right column and top and bottom rows.
    @Test(arguments: FontSize.allCases)
    func missingGlyphDrawsAVisibleBox(size: FontSize) {
        let font = BitmapFont.builtIn(size)
        var canvas = Canvas(width: font.cellWidth, height: font.lineHeight, channels: 3, background: .white)
        canvas.draw(TextLine("\u{10000}"), font: font, color: .black, x: 0, y: 0)
        let inked = Set((0..<font.lineHeight).flatMap { y in (0..<font.cellWidth).filter { canvas.pixel($0, y) == [0, 0, 0] }.map { [$0, y] } })
        let right = font.cellWidth - 2, bottom = font.lineHeight - 2
        let outline = Set((1...bottom).flatMap { y in (0...right).filter { $0 == 0 || $0 == right || y == 1 || y == bottom }.map { [$0, y] } })
        #expect(inked == outline)
    }

    /// Several lines in the three sizes on light and dark bands, drawn twice: the same bytes.
    /// Written to $MASONRY_TEXT_DEMO (a PNG path) when that is set, to look at.
    @Test func demoSheetIsDeterministic() throws {
        func render() -> Canvas {
            var canvas = Canvas(width: 420, height: 176, channels: 3, background: .white)
            let lines = [TextLine("Masonry contact sheet: IMG_0042.png 4032×3024"),
                         TextLine("Ελληνικά · Кириллица · Łódź · Ærøskøbing"),
                         TextLine(bytes: Array("bad-".utf8) + [0xFF, 0xFE] + Array("-name_that_is_far_too_long_for_it.png 中".utf8))]
            var y = 4
            for (band, size) in FontSize.allCases.enumerated() {
                let font = BitmapFont.builtIn(size)
                let background = band == 1 ? RGBA8Color(r: 0x20, g: 0x28, b: 0x30) : .white
                let height = font.lineHeight * lines.count + 6
                canvas.paint { BoxPainter.fill((0, y - 2, 420, height), color: background, clip: (0, 0, 420, 176), channels: 3, row: $0) }
                for (index, line) in lines.enumerated() {
                    canvas.draw(line.fitted(toWidth: 412, in: font), font: font, color: defaultTextColor(on: background),
                                x: 4, y: y + index * font.lineHeight, clip: (4, y, 412, height - 4))
                }
                canvas.paint { BoxPainter.stroke((0, y - 2, 420, height), lineWidth: 1, color: RGBA8Color(r: 200, g: 0, b: 0, a: 128),
                                                 clip: (0, 0, 420, 176), channels: 3, row: $0) }
                y += height + 4
            }
            return canvas
        }
        let first = render()
        #expect(first == render())
        #expect(first.bytes.contains(0) && first.bytes.contains(255))
        if let path = ProcessInfo.processInfo.environment["MASONRY_TEXT_DEMO"] { try first.writePNG(to: path) }
    }
}
