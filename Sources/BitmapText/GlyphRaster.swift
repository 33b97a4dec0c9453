/// How GNU Unifont's glyphs (16 pixels tall, 8 or 16 wide, baseline 14 rows below the top)
/// sit in the lines of each Misc-Fixed face. Each is centred in its box of one or two cells:
/// - large (10x20, baseline 16): drawn 1:1 with its top at line row 2, so the two baselines
///   meet (1 blank column each side of a narrow glyph, 2 of a wide one);
/// - medium (9x15, baseline 12): drawn 1:1 less its top row (which only the tallest glyphs
///   ink), rows 1-15 filling the line's 15, so its baseline is one row below the face's;
/// - small (6x13, baseline 11): scaled to 3/4 (6 or 12 pixels wide, 12 tall; a narrow
///   glyph fills its 6-pixel cell, a wide one its two), each pixel inked by the share of it
///   the glyph covers, in sixteenths; its top at line row 0 and its baseline at 10.5.
enum FallbackPlacement {
    /// Whether glyphs are scaled to 3/4 with partial coverage (only for the small face).
    static func isScaled(_ size: FontSize) -> Bool { size == .small }

    /// The line row of the drawn glyph's top row (negative: rows cut off above the line).
    static func top(_ size: FontSize) -> Int {
        switch size {
        case .small: 0
        case .medium: -1
        case .large: 2
        }
    }
}

/// One placed glyph as pixels: a grid `width` x `height` with its column 0 at sheet x `left`
/// and its row 0 at line row `top`, inked by the face, the replacement box, a 1:1 fallback
/// glyph, or a scaled one (coverage 0 ... 16 per pixel).
struct GlyphRaster {
    private enum Ink {
        case face(Int)
        case box
        case unscaled(FallbackFont.Glyph)
        case scaled([UInt8])
    }
    private let ink: Ink
    private let left: Int
    private let top: Int
    private let width: Int
    private let height: Int
    private let font: BitmapFont

    init(_ glyph: PlacedGlyph, boxLeft: Int, font: BitmapFont) {
        self.font = font
        let boxWidth = glyph.cells * font.cellWidth
        switch glyph.source {
        case .primary(let number):
            (ink, left, top, width, height) = (.face(number), boxLeft, 0, font.cellWidth, font.lineHeight)
        case .box:
            (ink, left, top, width, height) = (.box, boxLeft, 0, font.cellWidth, font.lineHeight)
        case .fallback(let fallback):
            let top = FallbackPlacement.top(font.size)
            if FallbackPlacement.isScaled(font.size) {
                let width = fallback.width * 3 / 4
                (ink, left, self.top, self.width, height) =
                    (.scaled(Self.scaledCoverage(fallback)), boxLeft + (boxWidth - width) / 2, top, width, 12)
            } else {
                (ink, left, self.top, width, height) =
                    (.unscaled(fallback), boxLeft + (boxWidth - fallback.width) / 2, top, fallback.width, 16)
            }
        }
    }

    /// Whether some pixels are only partly inked (and need the partial blenders).
    var hasPartialCoverage: Bool {
        if case .scaled = ink { true } else { false }
    }

    /// Paints the glyph's pixels on line row `lineRow` that fall in `columns`: fully inked ones
    /// with `blender`, partly inked ones with `partial[coverage]`.
    func paintRow(_ lineRow: Int, into destination: UnsafeMutableBufferPointer<UInt8>, columns: Range<Int>,
                  blender: PixelBlender, partial: [PixelBlender]) {
        let row = lineRow - top
        guard row >= 0, row < height else { return }
        let first = max(0, columns.lowerBound - left), end = min(width, columns.upperBound - left)
        guard first < end else { return }
        let bits: UInt32
        switch ink {
        case .face(let number): bits = font.glyphs.rowBits(glyph: number, row: row)
        case .box: bits = TextPainter.replacementBoxBits(row: row, cellWidth: width, cellHeight: height)
        case .unscaled(let glyph): bits = glyph.rowBits(row)
        case .scaled(let coverage):
            for column in first..<end {
                let level = Int(coverage[row * width + column])
                if level == 16 {
                    blender.paint(destination, column: left + column)
                } else if level > 0 {
                    partial[level].paint(destination, column: left + column)
                }
            }
            return
        }
        for column in first..<end where bits >> UInt32(width - 1 - column) & 1 != 0 {
            blender.paint(destination, column: left + column)
        }
    }

    /// The glyph at 3/4 size: pixel (x, y) of the result covers source pixels
    /// [4x/3, 4(x+1)/3) x [4y/3, 4(y+1)/3); its coverage is the inked share of that square in
    /// sixteenths (counted on the grid of thirds of a source pixel, 4 x 4 of them per pixel).
    /// Along each axis a result pixel takes 3 + 1, 2 + 2 or 1 + 3 thirds of two source pixels
    /// in turn, so a pixel's coverage is the weighted sum of a 2 x 2 block.
    static func scaledCoverage(_ glyph: FallbackFont.Glyph) -> [UInt8] {
        let width = glyph.width * 3 / 4
        var coverage = [UInt8](repeating: 0, count: width * 12)
        let rows = (0..<16).map { glyph.rowBits($0) }
        func ink(_ row: UInt32, _ x: Int) -> Int { Int(row >> UInt32(glyph.width - 1 - x) & 1) }
        for y in 0..<12 {
            let top = 4 * y / 3, topWeight = 3 - y % 3, bottomWeight = 4 - topWeight
            let upper = rows[top], lower = rows[top + 1]
            for x in 0..<width {
                let left = 4 * x / 3, leftWeight = 3 - x % 3, rightWeight = 4 - leftWeight
                let level = topWeight * (leftWeight * ink(upper, left) + rightWeight * ink(upper, left + 1))
                    + bottomWeight * (leftWeight * ink(lower, left) + rightWeight * ink(lower, left + 1))
                coverage[y * width + x] = UInt8(level)
            }
        }
        return coverage
    }
}
