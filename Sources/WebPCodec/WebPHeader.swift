import CodecCore
import Raster

/// What a sheet needs to know about a WebP before decoding it, read by Masonry's own walk
/// over the RIFF chunks (no libwebp, no pixel decoded, nothing allocated in proportion to a
/// claimed size).
///
/// - Simple files: one `VP8 ` (lossy) or `VP8L` (lossless) chunk; the size comes from its
///   frame header.
/// - Extended files (`VP8X`): the canvas size and flags; a still's `ALPH` + `VP8 ` or
///   `VP8L` (whose size must be the canvas's); an animation's `ANMF` chunks, counted by
///   reading chunk headers only, the first frame's rectangle and bitstream checked; the
///   first `ICCP` (kept up to 4 MiB) and the first `EXIF` (its orientation, from the first
///   64 KiB of the chunk; an optional "Exif\0\0" prefix is skipped).
/// - A chunk that runs past the RIFF size or the end of the file is a one-line error when it
///   comes before the picture is complete; after it (a cut-off EXIF, a RIFF size longer than
///   the file), the picture is still good and the damage is `damageAfterImage`.
public struct WebPHeader: Sendable, Hashable {
    /// The coding of the (first) picture.
    public enum Compression: Sendable, Hashable {
        /// `VP8 `, with an optional `ALPH` chunk.
        case lossy
        /// `VP8L`.
        case lossless
    }

    /// Where the first picture sits on the canvas, and where its bitstream is in the file.
    public struct Frame: Sendable, Hashable {
        public let x: Int, y: Int
        public let width: Int, height: Int
        /// The bytes to hand libwebp: the `VP8 ` or `VP8L` chunk, with the `ALPH` chunk
        /// (and whatever unknown chunks) before it.
        public let bitstream: Range<Int>
    }

    /// The canvas width as stored (before `orientation`).
    public let width: Int
    /// The canvas height as stored (before `orientation`).
    public let height: Int
    /// How the stored picture is turned for display (the EXIF chunk's tag 0x0112).
    public let orientation: ExifOrientation
    /// 1 for a still; the number of `ANMF` chunks of an animation.
    public let frameCount: Int
    /// True for an animation (the VP8X animation flag).
    public let isAnimated: Bool
    /// True when the file says it has alpha (the VP8X alpha flag, or the VP8L header's bit):
    /// what libwebp's `WebPGetFeatures` (and so Pillow) says.
    public let hasAlpha: Bool
    public let compression: Compression
    /// The first picture: the whole canvas for a still, the first `ANMF` frame of an animation.
    public let firstFrame: Frame
    /// The ICC profile of the `ICCP` chunk, or nil (none, or over `maxICCProfileBytes`).
    public let iccProfile: [UInt8]?
    /// Why a profile the file holds is not in `iccProfile`, or nil.
    public let colorNote: String?
    /// Damage found after the first picture was complete, or nil.
    public let damageAfterImage: ImageError?

    /// Width as displayed: the stored height for the 90° orientations.
    public var displayWidth: Int { orientation.swapsAxes ? height : width }
    /// Height as displayed: the stored width for the 90° orientations.
    public var displayHeight: Int { orientation.swapsAxes ? width : height }

    /// The largest ICC profile kept.
    public static let maxICCProfileBytes = 4 << 20
    /// How much of an EXIF chunk is read for its orientation.
    static let maxExifBytes = 1 << 16

    /// True when `prefix` starts like a WebP file: "RIFF", a size, "WEBP".
    @inlinable
    public static func hasSignature(_ prefix: some Collection<UInt8>) -> Bool {
        let bytes = prefix.prefix(12)
        return bytes.count == 12 && bytes.prefix(4).elementsEqual(Self.riff) && bytes.dropFirst(8).elementsEqual(Self.webp)
    }

    /// Reads the header of an open file with positioned reads (the descriptor's offset is
    /// not used).
    public init(file: InputFile) throws(ImageError) {
        try self.init(reader: ChunkReader(WindowedReader(file: file)))
    }

    /// Reads the header of a WebP held in memory.
    public init(bytes: [UInt8]) throws(ImageError) {
        try self.init(reader: ChunkReader(WindowedReader(bytes: bytes)))
    }

    @usableFromInline static let riff = Array("RIFF".utf8), webp = Array("WEBP".utf8)

    private init(reader: ChunkReader) throws(ImageError) {
        var reader = reader
        let start = try reader.bytes(at: 0, count: 12)
        guard start.count >= 8, start.starts(with: Self.riff), start.count < 12 || start.dropFirst(8).starts(with: Self.webp) else {
            throw ImageError(.malformed, "not a WebP file")
        }
        let riffSize = Int(littleEndian: start, at: 4, bytes: 4)
        reader.riffEnd = 8 + riffSize
        guard start.count == 12 else { throw reader.truncated }
        guard riffSize >= 12 else { throw ImageError(.malformed, "malformed WebP file (RIFF size \(riffSize) is too small)") }

        var walk = ChunkWalk(start: 12, end: reader.riffEnd, container: nil)
        guard let first = try walk.next(&reader) else { throw reader.truncated }
        var orientation = ExifOrientation.up
        var icc: (profile: [UInt8]?, note: String?) = (nil, nil)
        var sawICC = false, sawExif = false
        var frameCount = 1
        var isAnimated = false
        let hasAlpha: Bool
        let image: (frame: Frame, compression: Compression)
        var damage: ImageError?
        switch first.name {
        case "VP8 ", "VP8L":
            let bitstream = try Bitstream(chunk: first, reader: &reader)
            image = (Frame(x: 0, y: 0, width: bitstream.width, height: bitstream.height, bitstream: first.whole),
                     bitstream.compression)
            hasAlpha = bitstream.alphaBit
            width = bitstream.width
            height = bitstream.height
            damage = Self.damage(after: &walk, &reader) { _, _ throws(ImageError) in }
        case "VP8X":
            guard first.size == 10 else { throw ImageError(.malformed, "malformed WebP file (VP8X chunk of \(first.size) bytes, not 10)") }
            let fields = try reader.bytes(at: first.payload.lowerBound, count: 10)
            let flags = fields[fields.startIndex]
            width = 1 + Int(littleEndian: fields, at: 4, bytes: 3)
            height = 1 + Int(littleEndian: fields, at: 7, bytes: 3)
            hasAlpha = flags & 0x10 != 0
            isAnimated = flags & 0x02 != 0
            var found: (frame: Frame, compression: Compression)?
            var alphaStart: Int?
            var anmfCount = 0
            let canvas = (width: width, height: height)
            /// Every chunk after VP8X: the picture (or first frame), metadata, the frame count.
            func visit(_ chunk: Chunk, _ reader: inout ChunkReader) throws(ImageError) {
                switch chunk.name {
                case "ICCP" where !sawICC:
                    sawICC = true
                    icc = chunk.size <= Self.maxICCProfileBytes
                        ? (Array(try reader.bytes(at: chunk.payload.lowerBound, count: chunk.size)), nil)
                        : (nil, "ICC profile of \(chunk.size) bytes dropped (over \(Self.maxICCProfileBytes >> 20) MiB)")
                case "EXIF" where !sawExif:
                    sawExif = true
                    var tiff = try reader.bytes(at: chunk.payload.lowerBound, count: min(chunk.size, Self.maxExifBytes))
                    if tiff.starts(with: Array("Exif".utf8) + [0, 0]) { tiff = tiff.dropFirst(6) }
                    orientation = ExifOrientation(tiff: tiff)
                case "ANMF" where isAnimated:
                    anmfCount += 1
                    if found == nil { found = try Self.firstFrame(chunk, canvas: canvas, reader: &reader) }
                case "ALPH" where !isAnimated && found == nil:
                    alphaStart = alphaStart ?? chunk.whole.lowerBound
                case "VP8 ", "VP8L":
                    guard !isAnimated, found == nil else { break }
                    let bitstream = try Bitstream(chunk: chunk, reader: &reader)
                    guard (bitstream.width, bitstream.height) == canvas else {
                        throw ImageError(.malformed, "malformed WebP file (the VP8X canvas is \(canvas.width)×\(canvas.height), "
                                       + "its image \(bitstream.width)×\(bitstream.height))")
                    }
                    let from = bitstream.compression == .lossy ? alphaStart ?? chunk.whole.lowerBound : chunk.whole.lowerBound
                    found = (Frame(x: 0, y: 0, width: canvas.width, height: canvas.height, bitstream: from ..< chunk.whole.upperBound),
                             bitstream.compression)
                default:
                    break
                }
            }
            while found == nil, let chunk = try walk.next(&reader) { try visit(chunk, &reader) }
            guard let found else {
                throw ImageError(.malformed, isAnimated ? "malformed WebP file (animation without frames)" : "malformed WebP file (no image data)")
            }
            image = found
            damage = Self.damage(after: &walk, &reader, visit: visit)
            frameCount = isAnimated ? anmfCount : 1
        default:
            throw ImageError(.malformed, "malformed WebP file (first chunk is \(first.printableName), not VP8, VP8L or VP8X)")
        }
        self.orientation = orientation
        self.frameCount = frameCount
        self.isAnimated = isAnimated
        self.hasAlpha = hasAlpha
        compression = image.compression
        firstFrame = image.frame
        iccProfile = icc.profile
        colorNote = icc.note
        damageAfterImage = damage
    }

    /// Walks the chunks after the picture, handing each to `visit`. A cut, a lying length or
    /// a failed read there is returned, not thrown: the picture itself is still good.
    private static func damage(after walk: inout ChunkWalk, _ reader: inout ChunkReader,
                               visit: (Chunk, inout ChunkReader) throws(ImageError) -> Void) -> ImageError? {
        do {
            while let chunk = try walk.next(&reader) { try visit(chunk, &reader) }
            return reader.riffEnd > reader.size ? reader.truncated : nil
        } catch {
            return error
        }
    }

    /// The first ANMF frame: its rectangle (inside the canvas) and its bitstream.
    private static func firstFrame(_ anmf: Chunk, canvas: (width: Int, height: Int),
                                   reader: inout ChunkReader) throws(ImageError) -> (frame: Frame, compression: Compression) {
        guard anmf.size >= 16 else { throw ImageError(.malformed, "malformed WebP file (ANMF chunk of \(anmf.size) bytes is too short)") }
        let fields = try reader.bytes(at: anmf.payload.lowerBound, count: 16)
        let x = 2 * Int(littleEndian: fields, at: 0, bytes: 3), y = 2 * Int(littleEndian: fields, at: 3, bytes: 3)
        let width = 1 + Int(littleEndian: fields, at: 6, bytes: 3), height = 1 + Int(littleEndian: fields, at: 9, bytes: 3)
        guard x + width <= canvas.width, y + height <= canvas.height else {
            throw ImageError(.malformed, "malformed WebP file (frame 1, \(width)×\(height) at \(x),\(y), "
                           + "lies outside the \(canvas.width)×\(canvas.height) canvas)")
        }
        var walk = ChunkWalk(start: anmf.payload.lowerBound + 16, end: anmf.payload.upperBound, container: "ANMF")
        var alphaStart: Int?
        while let chunk = try walk.next(&reader) {
            switch chunk.name {
            case "ALPH":
                alphaStart = alphaStart ?? chunk.whole.lowerBound
            case "VP8 ", "VP8L":
                let bitstream = try Bitstream(chunk: chunk, reader: &reader)
                guard (bitstream.width, bitstream.height) == (width, height) else {
                    throw ImageError(.malformed, "malformed WebP file (frame 1 is \(width)×\(height), "
                                   + "its image \(bitstream.width)×\(bitstream.height))")
                }
                let from = bitstream.compression == .lossy ? alphaStart ?? chunk.whole.lowerBound : chunk.whole.lowerBound
                return (Frame(x: x, y: y, width: width, height: height, bitstream: from ..< chunk.whole.upperBound),
                        bitstream.compression)
            default:
                continue
            }
        }
        throw ImageError(.malformed, "malformed WebP file (frame 1 has no image data)")
    }
}

/// One chunk: its FourCC, its payload's place and size.
struct Chunk {
    let name: String
    /// The header and the payload (without the padding byte).
    let whole: Range<Int>
    var payload: Range<Int> { whole.lowerBound + 8 ..< whole.upperBound }
    var size: Int { whole.count - 8 }
    /// The FourCC with anything but printable ASCII as "?" and trailing spaces dropped, for messages.
    var printableName: String {
        var text = String(String.UnicodeScalarView(name.unicodeScalars.map { (0x20...0x7E).contains($0.value) ? $0 : "?" }))
        while text.last == " " { text.removeLast() }
        return text
    }
}

/// The chunks of one list (the RIFF payload, or an ANMF frame's), one at a time.
struct ChunkWalk {
    var offset: Int
    let end: Int
    /// Nil for the top level; "ANMF" inside a frame.
    let container: String?

    init(start: Int, end: Int, container: String?) {
        offset = start
        self.end = end
        self.container = container
    }

    /// The next chunk, or nil at the end of the list. A chunk (or chunk header) that does not
    /// fit is an error naming it.
    mutating func next(_ reader: inout ChunkReader) throws(ImageError) -> Chunk? {
        guard offset < end else { return nil }
        let header = try reader.bytes(at: offset, count: 8)
        guard offset + 8 <= end, header.count == 8 else { throw overrun(reader, name: nil, chunkEnd: offset + 8) }
        let name = String(decoding: header.prefix(4), as: UTF8.self)
        let size = Int(littleEndian: header, at: 4, bytes: 4)
        let chunk = Chunk(name: name, whole: offset ..< offset + 8 + size)
        guard chunk.whole.upperBound <= end, chunk.whole.upperBound <= reader.size else {
            throw overrun(reader, name: chunk.printableName, chunkEnd: chunk.whole.upperBound)
        }
        // A missing padding byte at the very end is tolerated.
        offset = min(chunk.whole.upperBound + (size & 1), end)
        return chunk
    }

    private func overrun(_ reader: ChunkReader, name: String?, chunkEnd: Int) -> ImageError {
        if chunkEnd > reader.size && reader.riffEnd > reader.size { return reader.truncated }
        let what = name.map { "the \($0) chunk" } ?? "a chunk header"
        if let container { return ImageError(.malformed, "malformed WebP file (\(what) runs past its \(container) chunk)") }
        if chunkEnd > reader.size { return ImageError(.malformed, "malformed WebP file (\(what) runs past the end of the file)") }
        return ImageError(.malformed, "malformed WebP file (\(what) runs past the RIFF size)")
    }
}

/// The size and kind of a `VP8 ` or `VP8L` bitstream, from its first bytes (the checks of
/// libwebp's `VP8GetInfo` and `VP8LGetInfo`).
struct Bitstream {
    let width: Int, height: Int
    let compression: WebPHeader.Compression
    /// VP8L's "alpha is used" bit (false for VP8).
    let alphaBit: Bool

    init(chunk: Chunk, reader: inout ChunkReader) throws(ImageError) {
        let head = try reader.bytes(at: chunk.payload.lowerBound, count: min(chunk.size, 10))
        func byte(_ at: Int) -> Int { Int(head[head.startIndex + at]) }
        if chunk.name == "VP8L" {
            guard head.count >= 5 else { throw ImageError(.malformed, "corrupt VP8L data (header too short)") }
            guard byte(0) == 0x2F else { throw ImageError(.malformed, "corrupt VP8L data (no signature)") }
            let bits = Int(littleEndian: head, at: 1, bytes: 4)
            guard bits >> 29 == 0 else { throw ImageError(.malformed, "corrupt VP8L data (version \(bits >> 29))") }
            width = 1 + bits & 0x3FFF
            height = 1 + (bits >> 14) & 0x3FFF
            alphaBit = (bits >> 28) & 1 == 1
            compression = .lossless
            return
        }
        guard head.count >= 10 else { throw ImageError(.malformed, "corrupt VP8 data (frame header too short)") }
        let tag = Int(littleEndian: head, at: 0, bytes: 3)
        guard tag & 1 == 0 else { throw ImageError(.malformed, "corrupt VP8 data (not a key frame)") }
        guard (tag >> 1) & 7 <= 3 else { throw ImageError(.malformed, "corrupt VP8 data (unknown profile \((tag >> 1) & 7))") }
        guard (tag >> 4) & 1 == 1 else { throw ImageError(.malformed, "corrupt VP8 data (invisible frame)") }
        guard tag >> 5 < chunk.size else { throw ImageError(.malformed, "corrupt VP8 data (first partition larger than the chunk)") }
        guard byte(3) == 0x9D, byte(4) == 0x01, byte(5) == 0x2A else { throw ImageError(.malformed, "corrupt VP8 data (no start code)") }
        width = Int(littleEndian: head, at: 6, bytes: 2) & 0x3FFF
        height = Int(littleEndian: head, at: 8, bytes: 2) & 0x3FFF
        guard width > 0, height > 0 else { throw ImageError(.malformed, "corrupt VP8 data (image is \(width)×\(height))") }
        alphaBit = false
        compression = .lossy
    }
}

/// The RIFF walk's reads (one window, `WindowedReader`) and the RIFF header's claimed end.
struct ChunkReader {
    private var reader: WindowedReader
    /// 8 + the RIFF header's size field (set once it is read).
    var riffEnd = 0
    var size: Int { reader.size }

    init(_ reader: WindowedReader) {
        self.reader = reader
    }

    /// Up to `count` bytes from `offset` (fewer at the end of the file).
    mutating func bytes(at offset: Int, count: Int) throws(ImageError) -> ArraySlice<UInt8> {
        try reader.bytes(at: offset, count: count)
    }

    /// The file ends before what its RIFF header gives.
    var truncated: ImageError { ImageError(.malformed, "truncated WebP file (\(size) of \(riffEnd) bytes)") }
}

extension Int {
    /// The little-endian unsigned number of `bytes` bytes at `at` (relative to the slice's start).
    init(littleEndian slice: ArraySlice<UInt8>, at: Int, bytes: Int) {
        var value = 0
        for i in (0..<bytes).reversed() { value = value << 8 | Int(slice[slice.startIndex + at + i]) }
        self = value
    }
}
