/// The limits every decoder checks, from the header, before it allocates for a picture. Each
/// codec keeps its own extra limits beside these (`PNGLimits`: chunk sizes, the fast path's budget).
public struct DecodeLimits: Sendable, Hashable {
    /// The most pixels (width × height) an image may have. The default,
    /// 178,956,970, keeps one RGBA8 image under 2^31 bytes.
    public var maxPixels: Int
    /// The widest image accepted: row buffers grow with the width, so a
    /// 178956970×1 image (within the pixel limit) would still cost gigabytes.
    public var maxWidth: Int

    public static let defaultMaxPixels = 178_956_970
    public static let defaultMaxWidth = 1 << 20

    public init(maxPixels: Int = DecodeLimits.defaultMaxPixels, maxWidth: Int = DecodeLimits.defaultMaxWidth) {
        self.maxPixels = maxPixels
        self.maxWidth = maxWidth
    }

    /// Why an image of this size is refused, or nil when it is within the limits. A product that
    /// overflows Int is over any limit (its wrapped value may be small).
    public func refusal(width: Int, height: Int) -> ImageError? {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > maxPixels || width > maxPixels {
            return ImageError(.pixelLimit(width: width, height: height, limit: maxPixels))
        }
        if width > maxWidth {
            return ImageError(.widthLimit(width: width, limit: maxWidth))
        }
        return nil
    }
}
