/// How a stored picture must be turned to be seen upright: the EXIF Orientation tag
/// (0x0112), values 1...8.
///
/// Each case names where the stored picture's top row ends up, as in the EXIF 2.32
/// specification: `.right` (6) is a photo taken with the camera turned clockwise, shown by
/// turning it 90° clockwise. The four cases from `.leftMirrored` (5) on swap width and height.
public enum ExifOrientation: Int, Sendable, CaseIterable {
    /// 1: stored as seen.
    case up = 1
    /// 2: mirrored left to right.
    case upMirrored
    /// 3: turned 180°.
    case down
    /// 4: mirrored top to bottom.
    case downMirrored
    /// 5: transposed (mirrored across the top-left to bottom-right diagonal).
    case leftMirrored
    /// 6: turned 90° clockwise to display.
    case right
    /// 7: transversed (mirrored across the top-right to bottom-left diagonal).
    case rightMirrored
    /// 8: turned 90° counter-clockwise to display.
    case left

    /// True for 5...8: the displayed picture is as wide as the stored one is tall.
    public var swapsAxes: Bool { rawValue >= 5 }

    /// The displayed size of a picture stored as `width` × `height`.
    public func displaySize(width: Int, height: Int) -> (width: Int, height: Int) {
        swapsAxes ? (height, width) : (width, height)
    }

    /// Turns a buffer of 4-byte pixels (premultiplied RGBA8, row-major, stored orientation)
    /// into display orientation; the result is `displaySize(width:height:)` pixels. Pixels
    /// are moved whole, never blended, so the result is exact.
    public func apply(to pixels: [UInt8], width: Int, height: Int) -> [UInt8] {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height * 4,
                     "pixels must hold width * height 4-byte pixels")
        if self == .up { return pixels }
        let (outWidth, outHeight) = displaySize(width: width, height: height)
        var result = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBytes { sourceBytes in
            result.withUnsafeMutableBytes { targetBytes in
                let source = sourceBytes.bindMemory(to: UInt32.self)
                let target = targetBytes.bindMemory(to: UInt32.self)
                for y in 0..<outHeight {
                    for x in 0..<outWidth {
                        let (sx, sy) = storedPosition(x: x, y: y, width: width, height: height)
                        target[y * outWidth + x] = source[sy * width + sx]
                    }
                }
            }
        }
        return result
    }

    /// The stored pixel shown at display position (x, y), for a picture stored as
    /// `width` × `height`.
    public func storedPosition(x: Int, y: Int, width: Int, height: Int) -> (x: Int, y: Int) {
        switch self {
        case .up: (x, y)
        case .upMirrored: (width - 1 - x, y)
        case .down: (width - 1 - x, height - 1 - y)
        case .downMirrored: (x, height - 1 - y)
        case .leftMirrored: (y, x)
        case .right: (y, height - 1 - x)
        case .rightMirrored: (width - 1 - y, height - 1 - x)
        case .left: (width - 1 - y, x)
        }
    }

    /// Where the stored pixel (x, y) is shown, for a picture stored as `width` × `height`:
    /// the inverse of `storedPosition`.
    public func displayedPosition(x: Int, y: Int, width: Int, height: Int) -> (x: Int, y: Int) {
        switch self {
        case .up: (x, y)
        case .upMirrored: (width - 1 - x, y)
        case .down: (width - 1 - x, height - 1 - y)
        case .downMirrored: (x, height - 1 - y)
        case .leftMirrored: (y, x)
        case .right: (height - 1 - y, x)
        case .rightMirrored: (height - 1 - y, width - 1 - x)
        case .left: (y, width - 1 - x)
        }
    }
}

extension ExifOrientation {
    /// The Orientation tag (0x0112) of an EXIF block: `tiff` starts at the TIFF header (II or
    /// MM), as in a JPEG's APP1 after "Exif\0\0" or a WebP's EXIF chunk. Only IFD0 is read.
    /// Every read is bounds-checked against the block; anything unexpected (offsets outside
    /// it, a wrong type, a value outside 1...8) gives `.up`, never an error, since the
    /// picture itself is still good.
    public init(tiff: some Collection<UInt8>) {
        let bytes = Array(tiff)
        guard bytes.count >= 8 else { self = .up; return }
        let bigEndian: Bool
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): bigEndian = false
        case (0x4D, 0x4D): bigEndian = true
        default: self = .up; return
        }
        func uint16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= bytes.count else { return nil }
            return bigEndian ? Int(bytes[at]) << 8 | Int(bytes[at + 1]) : Int(bytes[at + 1]) << 8 | Int(bytes[at])
        }
        func uint32(_ at: Int) -> Int? {
            guard let high = uint16(bigEndian ? at : at + 2), let low = uint16(bigEndian ? at + 2 : at) else { return nil }
            return high << 16 | low
        }
        self = .up
        guard uint16(2) == 42, let ifd = uint32(4), let count = uint16(ifd) else { return }
        // Only IFD0 is read (the next-IFD link is never followed), so offset loops cannot loop.
        for entry in 0..<count {
            let at = ifd + 2 + entry * 12
            guard let tag = uint16(at) else { return }
            guard tag == 0x0112 else { continue }
            guard uint16(at + 2) == 3, let value = uint16(at + 8) else { return }
            self = ExifOrientation(rawValue: value) ?? .up
            return
        }
    }
}
