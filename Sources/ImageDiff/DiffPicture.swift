/// pixelmatch's picture of a difference, one row at a time: the baseline faded towards white
/// (its brightness at opacity 0.1, as pixelmatch's `drawGrayPixel`), differing pixels red,
/// anti-aliased pixels yellow (red too with `includeAA`, as pixelmatch draws them then), ignored
/// pixels light grey.
/// Opaque RGBA8; values are truncated to bytes, as pixelmatch does writing into a byte buffer.
public enum DiffPicture {
    public static let differingColor: (r: UInt8, g: UInt8, b: UInt8) = (255, 0, 0)
    public static let antialiasedColor: (r: UInt8, g: UInt8, b: UInt8) = (255, 255, 0)
    /// Ignored pixels (`PixelClass.ignored`): a light grey, hatched by `DiffPanelReducer`.
    public static let ignoredColor: (r: UInt8, g: UInt8, b: UInt8) = (216, 216, 224)
    /// The hatching's stripes over ignored pixels in a panel.
    public static let hatchColor: (r: UInt8, g: UInt8, b: UInt8) = (128, 128, 144)
    /// The opacity of the faded baseline (pixelmatch's `alpha`).
    public static let fadedOpacity = 0.1

    /// Paints one row. `classes` is a row emitted by a diff (canvas width); `baseline` is the
    /// baseline's row (any width, or nil below it) and must cover every pixel of class `same`;
    /// `output` receives `4 × classes.count` bytes.
    public static func paintRow(classes: UnsafeBufferPointer<UInt8>, baseline: UnsafeBufferPointer<UInt8>?,
                                includeAA: Bool, into output: UnsafeMutableBufferPointer<UInt8>) {
        precondition(output.count == 4 * classes.count, "the output row is 4 × width bytes")
        let baselinePixels = (baseline?.count ?? 0) / 4
        let out = UnsafeMutableRawPointer(output.baseAddress!)
        let red = word(differingColor), antialiased = includeAA ? red : word(antialiasedColor), ignoredWord = word(ignoredColor)
        // Screenshots repeat colours along a row: remember the last faded pixel.
        var lastPixel: UInt32? = nil, lastGrey: UInt32 = 0
        for x in 0..<classes.count {
            let colour: UInt32
            switch classes[x] {
            case PixelClass.same:
                precondition(x < baselinePixels, "a pixel of class `same` lies inside the baseline")
                let pixel = baseline.unsafelyUnwrapped.baseAddress.unsafelyUnwrapped + 4 &* x
                let value = PixelmatchRule.load32(pixel)
                if value != lastPixel {
                    lastPixel = value
                    let grey = faded(pixel)
                    lastGrey = word((grey, grey, grey))
                }
                colour = lastGrey
            case PixelClass.antialiased:
                colour = antialiased
            case PixelClass.ignored:
                colour = ignoredWord
            default:
                colour = red
            }
            out.storeBytes(of: colour, toByteOffset: 4 &* x, as: UInt32.self)
        }
    }

    /// An opaque colour as the 4 bytes R, G, B, 255 in memory order.
    @inline(__always)
    private static func word(_ c: (r: UInt8, g: UInt8, b: UInt8)) -> UInt32 {
        (UInt32(c.r) | UInt32(c.g) << 8 | UInt32(c.b) << 16 | 0xFF00_0000).littleEndian
    }

    /// pixelmatch's `drawGrayPixel`: the pixel's brightness blended over white at `fadedOpacity`
    /// times its own alpha.
    @inline(__always)
    static func faded(_ p: UnsafePointer<UInt8>) -> UInt8 {
        let y = PixelmatchRule.rgb2y(Double(p[0]), Double(p[1]), Double(p[2]))
        return UInt8(PixelmatchRule.blend(y, fadedOpacity * Double(p[3]) / 255))
    }
}
