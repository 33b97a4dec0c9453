/// The ways a format can make a picture smaller while decoding it, as its entry in the format
/// table declares them. The painter asks for "at least twice the tile" (`DecodeTarget`) and
/// each decoder picks among its own ways with the shared rules below, so no caller names a format.
public struct ShrinkOnLoad: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// A DCT decoder's 1/8, 2/8, 4/8 scales (JPEG; a RAW's JPEG preview).
    public static let dctEighths = ShrinkOnLoad(rawValue: 1 << 0)
    /// Any output size (libwebp's scaler).
    public static let anyScale = ShrinkOnLoad(rawValue: 1 << 1)
    /// A smaller picture stored beside the main one (HEIF thumbnails, RAW previews).
    public static let embeddedPictures = ShrinkOnLoad(rawValue: 1 << 2)
    /// Drawn at the asked size, no raster to shrink (SVG).
    public static let vector = ShrinkOnLoad(rawValue: 1 << 3)
    /// Reduced-resolution levels of one picture (TIFF pyramids and SubIFDs).
    public static let pyramidLevels = ShrinkOnLoad(rawValue: 1 << 4)
}

/// What a decoder is asked for: rows at least `minimumWidth` × `minimumHeight` in the stored
/// orientation. A decoder that shrinks keeps each side at least twice that (the resampler then
/// has the detail it needs); 0 × 0 asks for the full size.
public struct DecodeTarget: Sendable, Hashable {
    public let minimumWidth: Int
    public let minimumHeight: Int

    public init(minimumWidth: Int, minimumHeight: Int) {
        self.minimumWidth = max(0, minimumWidth)
        self.minimumHeight = max(0, minimumHeight)
    }

    /// Whether a picture of this size may stand in: each side at least twice the minimum.
    public func accepts(width: Int, height: Int) -> Bool {
        width >= 2 * minimumWidth && height >= 2 * minimumHeight
    }

    /// The smallest N in 1, 2, 4, 8 such that the picture decoded at N/8 (each side rounded up,
    /// as libjpeg does) is accepted; 8 when even full size is smaller. Only the power-of-two
    /// scales: libjpeg-turbo has SIMD inverse DCTs for those (see `JPEGDecoder`).
    public func dctEighths(width: Int, height: Int) -> Int {
        func scaled(_ side: Int, _ eighths: Int) -> Int { (side * eighths + 7) / 8 }
        return [1, 2, 4, 8].first { accepts(width: scaled(width, $0), height: scaled(height, $0)) } ?? 8
    }

    /// The smallest size with the stored aspect (the binding side exactly twice its minimum, the
    /// other rounded up) that is accepted; the stored size when that is not smaller on both sides.
    public func anyScaleSize(width: Int, height: Int) -> (width: Int, height: Int) {
        let wantedWidth = max(1, 2 * minimumWidth), wantedHeight = max(1, 2 * minimumHeight)
        // The width binds when wantedWidth / width >= wantedHeight / height.
        let scaled = wantedWidth * height >= wantedHeight * width
            ? (width: wantedWidth, height: (wantedWidth * height + width - 1) / width)
            : (width: (wantedHeight * width + height - 1) / height, height: wantedHeight)
        return scaled.width < width && scaled.height < height ? scaled : (width, height)
    }

    /// The smallest of `candidates` (by pixel count, the first on a tie) that is accepted, or nil.
    public func smallestAccepted<Candidate>(_ candidates: [Candidate],
                                            size: (Candidate) -> (width: Int, height: Int)) -> Candidate? {
        candidates.filter { let s = size($0); return accepts(width: s.width, height: s.height) }
            .min { a, b in
                let sa = size(a), sb = size(b)
                return Double(sa.width) * Double(sa.height) < Double(sb.width) * Double(sb.height)
            }
    }
}
