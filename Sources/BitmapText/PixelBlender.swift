import Raster

/// A rectangle in sheet coordinates (pixels; empty when width or height is not positive).
public typealias PixelRect = (x: Int, y: Int, width: Int, height: Int)

/// The overlap of two rectangles as half-open column and row ranges (possibly empty).
func intersection(_ a: PixelRect, _ b: PixelRect) -> (columns: Range<Int>, rows: Range<Int>) {
    let left = max(a.x, b.x), right = max(left, min(a.x + max(a.width, 0), b.x + max(b.width, 0)))
    let top = max(a.y, b.y), bottom = max(top, min(a.y + max(a.height, 0), b.y + max(b.height, 0)))
    return (left..<right, top..<bottom)
}

/// Paints one colour "over" single pixels of a sheet row, with the arithmetic of Raster's
/// `compositeOver` (integers only, each result rounded to nearest once):
/// - 3 channels (RGB, opaque): `colour * a + row * (255 - a)`, divided by 255;
/// - 4 channels (straight RGBA): alpha `a + rowAlpha * (255 - a) / 255`, colour the exact
///   premultiplied sum divided by that alpha.
/// An opaque colour is written as it is.
struct PixelBlender {
    let color: RGBA8Color
    let channels: Int

    init(color: RGBA8Color, channels: Int) {
        precondition(channels == 3 || channels == 4, "channels must be 3 (RGB) or 4 (RGBA)")
        self.color = color
        self.channels = channels
    }

    /// Whether painting changes anything at all (a fully transparent colour does not).
    var isVisible: Bool { color.a > 0 }

    /// Paints pixel `column` of `row`; columns whose bytes lie outside `row` are left alone.
    func paint(_ row: UnsafeMutableBufferPointer<UInt8>, column: Int) {
        let offset = column * channels
        guard column >= 0, offset + channels <= row.count else { return }
        let colour = (Int(color.r), Int(color.g), Int(color.b)), alpha = Int(color.a)
        if alpha == 255 {
            row[offset] = color.r
            row[offset + 1] = color.g
            row[offset + 2] = color.b
            if channels == 4 { row[offset + 3] = 255 }
        } else if channels == 3 {
            func over(_ source: Int, _ destination: UInt8) -> UInt8 {
                UInt8((source * alpha + Int(destination) * (255 - alpha) + 127) / 255)
            }
            row[offset] = over(colour.0, row[offset])
            row[offset + 1] = over(colour.1, row[offset + 1])
            row[offset + 2] = over(colour.2, row[offset + 2])
        } else {
            // Alpha in units of 1/255^2; premultiplied colour in units of 1/255^3.
            let rowAlpha = Int(row[offset + 3])
            let outAlpha = alpha * 255 + rowAlpha * (255 - alpha)
            func over(_ source: Int, _ destination: UInt8) -> UInt8 {
                let total = source * alpha * 255 + Int(destination) * rowAlpha * (255 - alpha)
                return UInt8(min((total + outAlpha / 2) / outAlpha, 255))
            }
            row[offset] = over(colour.0, row[offset])
            row[offset + 1] = over(colour.1, row[offset + 1])
            row[offset + 2] = over(colour.2, row[offset + 2])
            row[offset + 3] = UInt8((outAlpha + 127) / 255)
        }
    }
}
