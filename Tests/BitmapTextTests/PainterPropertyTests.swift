import BitmapText
import Raster
import Testing

/// Seeded property tests of the painters' clipping and blending.
@Suite struct PainterPropertyTests {
    static let colors: [RGBA8Color] = [.black, .white, RGBA8Color(r: 200, g: 30, b: 90),
                                       RGBA8Color(r: 10, g: 200, b: 30, a: 128), RGBA8Color(r: 255, g: 255, b: 0, a: 1)]
    static let backgrounds: [RGBA8Color] = [.white, RGBA8Color(r: 30, g: 40, b: 50), .transparent,
                                            RGBA8Color(r: 90, g: 200, b: 250, a: 77)]

    struct Scene {
        var canvas: Canvas
        var color: RGBA8Color
        var clip: PixelRect
        var x: Int, y: Int

        init(using random: inout SplitMix64) {
            let channels = random.int(0...1) == 0 ? 3 : 4
            let background = channels == 3 ? backgrounds[random.int(0...1)] : backgrounds[random.int(0...3)]
            canvas = Canvas(width: random.int(1...70), height: random.int(1...45), channels: channels, background: background)
            color = colors[random.int(0...(colors.count - 1))]
            clip = (random.int(-20...70), random.int(-20...45), random.int(-5...80), random.int(-5...50))
            x = random.int(-60...70)
            y = random.int(-25...45)
        }

        func isInsideClip(_ px: Int, _ py: Int) -> Bool {
            px >= clip.x && px < clip.x + clip.width && py >= clip.y && py < clip.y + clip.height
        }
    }

    /// Text never touches a pixel outside its clip rectangle, and inside it draws exactly
    /// what an unclipped draw draws; rows the accessor withholds are skipped.
    @Test func textStaysInsideItsClipAndIsOtherwiseUnchanged() {
        var random = SplitMix64(seed: SplitMix64.suiteSeed ^ 0xC11B)
        print("PainterPropertyTests.textStaysInsideItsClipAndIsOtherwiseUnchanged seed \(random.state)")
        for iteration in 0..<1500 {
            let scene = Scene(using: &random)
            let font = BitmapFont.builtIn(FontSize.allCases[random.int(0...2)])
            let line = TextLine(bytes: RandomLine(using: &random, maxPieces: 12).bytes)
            let withheldRow = random.int(-1...(scene.canvas.height - 1))
            var clipped = scene.canvas, unclipped = scene.canvas
            clipped.paint { row in
                TextPainter.draw(line, font: font, color: scene.color, x: scene.x, y: scene.y, clip: scene.clip,
                                 channels: scene.canvas.channels, row: { $0 == withheldRow ? nil : row($0) })
            }
            unclipped.draw(line, font: font, color: scene.color, x: scene.x, y: scene.y)
            var bad = [(Int, Int)]()
            for py in 0..<scene.canvas.height {
                for px in 0..<scene.canvas.width {
                    let drawn = scene.isInsideClip(px, py) && py != withheldRow
                    let expected = drawn ? unclipped.pixel(px, py) : scene.canvas.pixel(px, py)
                    if clipped.pixel(px, py) != expected { bad.append((px, py)) }
                }
            }
            #expect(bad.isEmpty, "iteration \(iteration): \(bad.count) wrong pixels, first \(bad.first.debugDescription)")
        }
    }

    /// `fill` changes exactly the pixels of rect ∩ clip; `stroke` exactly those of the border
    /// ring inside rect (∩ clip), each blended once (all get the same value on a plain canvas).
    @Test func boxesPaintExactlyTheirPixelsOnce() {
        var random = SplitMix64(seed: SplitMix64.suiteSeed ^ 0xB0C5)
        print("PainterPropertyTests.boxesPaintExactlyTheirPixelsOnce seed \(random.state)")
        for iteration in 0..<1500 {
            let scene = Scene(using: &random)
            let rect: PixelRect = (random.int(-10...60), random.int(-10...40), random.int(-2...40), random.int(-2...30))
            let lineWidth = random.int(-1...8)
            let stroke = random.int(0...1) == 1
            var painted = scene.canvas
            painted.paint { row in
                if stroke {
                    BoxPainter.stroke(rect, lineWidth: lineWidth, color: scene.color, clip: scene.clip,
                                      channels: scene.canvas.channels, row: row)
                } else {
                    BoxPainter.fill(rect, color: scene.color, clip: scene.clip, channels: scene.canvas.channels, row: row)
                }
            }
            var once = Canvas(width: 1, height: 1, channels: scene.canvas.channels, background: .black)
            once.bytes = Array(scene.canvas.pixel(0, 0))
            once.paint { BoxPainter.fill((0, 0, 1, 1), color: scene.color, clip: (0, 0, 1, 1), channels: scene.canvas.channels, row: $0) }
            var bad = [(Int, Int)]()
            for py in 0..<scene.canvas.height {
                for px in 0..<scene.canvas.width {
                    let inRect = px >= rect.x && px < rect.x + rect.width && py >= rect.y && py < rect.y + rect.height
                    let inInner = px >= rect.x + lineWidth && px < rect.x + rect.width - lineWidth
                        && py >= rect.y + lineWidth && py < rect.y + rect.height - lineWidth
                    let covered = inRect && scene.isInsideClip(px, py) && (!stroke || (lineWidth > 0 && !inInner))
                    let expected = covered ? once.pixel(0, 0) : scene.canvas.pixel(px, py)
                    if painted.pixel(px, py) != expected { bad.append((px, py)) }
                }
            }
            #expect(bad.isEmpty, "iteration \(iteration) \(stroke ? "stroke \(lineWidth)" : "fill") \(rect) clip \(scene.clip): \(bad.count) wrong pixels, first \(bad.first.debugDescription)")
        }
    }
}
