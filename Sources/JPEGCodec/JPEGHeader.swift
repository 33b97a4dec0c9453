import ColorManagement
import CodecCore
import Raster

/// What a sheet needs to know about a JPEG before decoding it: the stored size, the
/// component count and the EXIF orientation.
///
/// Reads only the markers up to the first scan header (SOS): each segment's length is read
/// and the segment skipped, so a 20 MB photo costs a few small reads. A file cut before its
/// first scan's data is refused here. Only SOF0 (baseline), SOF1 (extended), SOF2
/// (progressive) and their arithmetic-coded twins SOF9/SOF10 are accepted (what
/// libjpeg-turbo decodes). The orientation comes from the first APP1 "Exif" segment
/// (`ExifOrientation(tiff:)`: anything inconsistent there gives `.up`, never an error).
/// APP2 `ICC_PROFILE` segments are gathered on the way (`ICCSegments`): a bad profile is a
/// note in `color`, never an error.
public struct JPEGHeader: Sendable, Hashable {
    /// Width as stored (before orientation).
    public let width: Int
    /// Height as stored (before orientation).
    public let height: Int
    /// 1 (grey), 3 (YCbCr or RGB) or 4 (CMYK or YCCK).
    public let componentCount: Int
    /// True for a progressive file (SOF2, SOF10): decoding holds its coefficients whole.
    public let isProgressive: Bool
    /// How the stored picture is turned for display.
    public let orientation: ExifOrientation
    /// The embedded ICC profile (APP2 `ICC_PROFILE` segments), or why it was ignored.
    public let color: EmbeddedColor

    /// Width as displayed: the stored height for the 90° orientations.
    public var displayWidth: Int { orientation.swapsAxes ? height : width }
    /// Height as displayed: the stored width for the 90° orientations.
    public var displayHeight: Int { orientation.swapsAxes ? width : height }

    /// True when `prefix` starts like a JPEG file (SOI then a marker: FF D8 FF).
    @inlinable
    public static func hasSignature(_ prefix: some Collection<UInt8>) -> Bool {
        prefix.starts(with: [0xFF, 0xD8, 0xFF])
    }

    /// Reads the header of an open file with positioned reads (the descriptor's offset is
    /// not used).
    public init(file: InputFile) throws(ImageError) {
        var reader = WindowedReader(file: file, windowSize: 4096)
        try self.init(reader: &reader)
    }

    /// Reads the header of a JPEG that is `range` of an open file (a camera RAW's preview).
    public init(file: InputFile, range: Range<Int>) throws(ImageError) {
        var reader = WindowedReader(file: file, range: range, windowSize: 4096)
        try self.init(reader: &reader)
    }

    /// Reads the header of a JPEG held in memory.
    public init(bytes: [UInt8]) throws(ImageError) {
        var reader = WindowedReader(bytes: bytes)
        try self.init(reader: &reader)
    }

    /// Reads through a 4 KiB window (most headers fit in one read); skipping a segment moves
    /// the offset without reading.
    private init(reader: inout WindowedReader) throws(ImageError) {
        let size = reader.size
        guard try reader.read(3) == [0xFF, 0xD8, 0xFF] else { throw ImageError(.malformed, "not a JPEG file") }
        reader.offset = 2
        var orientation = ExifOrientation.up
        var sawExif = false
        var iccSegments = ICCSegments()
        var frame: (width: Int, height: Int, components: Int, progressive: Bool)?
        while true {
            let marker = try reader.nextMarker()
            switch marker {
            case 0xD8, 0xD9:
                throw ImageError(.malformed, marker == 0xD9 ? "no image in the JPEG file (EOI before the scan)"
                                                        : "malformed JPEG file (SOI repeated)")
            case 0x01, 0xD0...0xD7:
                continue   // stand-alone markers carry no length
            default:
                break
            }
            let length = try reader.uint16()
            guard length >= 2 else { throw ImageError(.malformed, "malformed JPEG marker segment (length \(length))") }
            let payloadStart = reader.offset
            switch marker {
            case 0xC0, 0xC1, 0xC2, 0xC9, 0xCA:
                guard frame == nil else { throw ImageError(.malformed, "malformed JPEG file (more than one frame header)") }
                let fields = try reader.read(min(length - 2, 6))
                guard fields.count == 6 else { throw ImageError(.malformed, "truncated JPEG frame header (SOF)") }
                let height = Int(fields[1]) << 8 | Int(fields[2])
                let width = Int(fields[3]) << 8 | Int(fields[4])
                let components = Int(fields[5])
                guard width > 0, height > 0 else {
                    throw ImageError(.malformed, "image is \(width)×\(height): a JPEG needs a width and height of at least 1")
                }
                guard [1, 3, 4].contains(components) else {
                    throw ImageError(.malformed, "JPEG with \(components) colour components (only 1, 3 or 4 are read)")
                }
                frame = (width, height, components, marker == 0xC2 || marker == 0xCA)
            case 0xC3, 0xC5...0xC7, 0xCB, 0xCD...0xCF:
                throw ImageError(.malformed, "unsupported JPEG process (lossless or hierarchical, SOF\(marker - 0xC0))")
            case 0xDA:
                guard let frame else { throw ImageError(.malformed, "malformed JPEG file (scan before the frame header)") }
                guard payloadStart + length - 2 < size else { throw reader.truncated }
                width = frame.width
                height = frame.height
                componentCount = frame.components
                isProgressive = frame.progressive
                self.orientation = orientation
                color = iccSegments.embeddedColor()
                return
            case 0xE1 where !sawExif && length >= 2 + 6:
                let payload = try reader.read(length - 2)
                if payload.starts(with: Array("Exif".utf8) + [0, 0]) {
                    sawExif = true
                    orientation = ExifOrientation(tiff: payload.dropFirst(6))
                }
            case 0xE2 where length >= 2 + 14:
                iccSegments.add(try reader.read(length - 2))
            default:
                break
            }
            reader.offset = payloadStart + length - 2
        }
    }
}

/// JPEG's marker syntax over the header's reads.
extension WindowedReader {
    /// Garbage bytes tolerated between segments before a marker (libjpeg skips them with a
    /// warning); more means the file is not a JPEG we should read.
    fileprivate static let maxJPEGGarbage = 1 << 16

    fileprivate mutating func uint16() throws(ImageError) -> Int {
        let pair = try read(2)
        guard pair.count == 2 else { throw truncated }
        return Int(pair[0]) << 8 | Int(pair[1])
    }

    /// The next marker code: skips bytes up to an FF, then FF fill bytes (FF 00 is a stuffed
    /// data byte, not a marker), as libjpeg does.
    fileprivate mutating func nextMarker() throws(ImageError) -> UInt8 {
        var skipped = 0, afterFF = false
        while true {
            let chunk = try read(256)
            guard !chunk.isEmpty else { throw truncated }
            for (index, byte) in chunk.enumerated() {
                if byte == 0xFF {
                    afterFF = true
                } else if afterFF && byte != 0 {
                    offset -= chunk.count - index - 1
                    return byte
                } else {
                    afterFF = false
                    skipped += 1
                    guard skipped <= Self.maxJPEGGarbage else { throw garbage }
                }
            }
        }
    }

    fileprivate var truncated: ImageError { ImageError(.malformed, "truncated JPEG file (before the image data)") }
    private var garbage: ImageError { ImageError(.malformed, "malformed JPEG file (no marker where one belongs)") }
}
