/// The layout of a row of 8-bit pixels: what every format's decoder delivers, the resamplers
/// take, and the PNG encoder writes.
public enum PixelFormat: Sendable, Hashable {
    /// Straight-alpha RGBA, 4 bytes a pixel.
    case rgba8
    /// RGBA whose every alpha is 255 (a PNG without alpha or tRNS), 4 bytes a pixel: the
    /// resampler gives the same output as for `.rgba8` without the per-pixel premultiply,
    /// and the encoder writes it as RGBA.
    case opaqueRGBA8
    /// Opaque RGB, 3 bytes a pixel.
    case rgb8
    /// Opaque grey, 1 byte a pixel.
    case grey8

    /// Bytes per pixel.
    public var bytesPerPixel: Int {
        switch self {
        case .rgba8, .opaqueRGBA8: 4
        case .rgb8: 3
        case .grey8: 1
        }
    }
}
