import CodecCore

/// What a sheet needs of an AVI file before FFmpeg sees it, read by Masonry's own RIFF walk:
/// the top-level chunks' headers up to `LIST 'hdrl'`, which is read whole (at most
/// `maxHeaderListBytes`), and in it `avih` (frames, microseconds a frame, stream count) and per
/// `LIST 'strl'` its `strh` (kind, `dwScale`, `dwRate`, `dwLength`), `strf` (for the first video
/// stream, a BITMAPINFOHEADER: size and compression) and `vprp` (the frame aspect ratio).
/// OpenDML's extended index and `AVIX` chunks are not needed for the header and not read.
///
/// Every chunk is bounded by its parent and the file (the RIFF size may pass the end of a file
/// cut short, as FFmpeg allows; the chunks may not); more than `maxTopLevelChunks` chunks before
/// `hdrl`, more than `maxStreams` streams, or a stream count that `avih` and the `strl` lists do
/// not agree on is refused with its reason.
public struct AVIHeader: Sendable, WindowedHeader {
    /// The first video stream's coded size (BITMAPINFOHEADER's biWidth and |biHeight|: a
    /// negative height is a top-down picture of that height).
    public let codedWidth: Int, codedHeight: Int
    /// The sample aspect ratio FFmpeg derives from `vprp` (1:1 without one).
    public let sampleAspect: (numerator: Int, denominator: Int)
    /// `dwLength` × `dwScale` / `dwRate` of the video stream (else `avih`'s frames ×
    /// microseconds a frame), in microseconds; nil when unknown.
    public let durationMicroseconds: Int?
    /// The video stream's `dwLength` (else `avih`'s `dwTotalFrames`).
    public let frameCount: Int
    /// BITMAPINFOHEADER's biCompression ("FMP4", "H264", "MJPG"), or strh's fccHandler when it is 0.
    public let codec: String
    public let streamCount: Int

    /// The largest `LIST 'hdrl'` read: 1 MiB (an OpenDML super index of an hour is a few KiB).
    public static let maxHeaderListBytes = 1 << 20
    public static let maxTopLevelChunks = 4096
    public static let maxStreams = 64

    public init(reader: inout WindowedReader) throws(ImageError) {
        let riff = Array(try reader.bytes(at: 0, count: 12))
        guard riff.count == 12, fourCC(riff[0..<4]) == "RIFF", fourCC(riff[8..<12]) == "AVI " else {
            throw Self.malformed("no RIFF 'AVI ' header")
        }
        let riffEnd = min(8 + Int(readLittleEndian32(riff, 4)), reader.size)
        var at = 12, count = 0, listStart = 0
        var headerList: [UInt8]?
        while headerList == nil, at < riffEnd {
            count += 1
            guard count <= Self.maxTopLevelChunks else { throw Self.malformed("more than \(Self.maxTopLevelChunks) chunks before 'hdrl'") }
            let header = Array(try reader.bytes(at: at, count: 12))
            let chunk = try Self.chunk(header, at: 0, offset: at, parentEnd: riffEnd - at)
            if chunk.type == "LIST", header.count == 12, fourCC(header[8..<12]) == "hdrl" {
                guard chunk.size - 4 <= Self.maxHeaderListBytes else {
                    throw ImageError(.limitExceeded, "AVI file's 'hdrl' list is \(chunk.size - 4) bytes, more than \(Self.maxHeaderListBytes >> 20) MiB")
                }
                let list = Array(try reader.bytes(at: at + 12, count: chunk.size - 4))
                guard list.count == chunk.size - 4 else { throw ImageError(.truncatedFile) }
                headerList = list
                listStart = at + 12
            }
            at += chunk.paddedSize
        }
        guard let list = headerList else { throw Self.malformed("no 'hdrl' list") }

        var totalFrames = 0, microsecondsPerFrame = 0, declaredStreams: Int?
        var streams = 0
        var video: Stream?
        var offset = 0
        while offset < list.count {
            let chunk = try Self.chunk(list, at: offset, offset: listStart + offset, parentEnd: list.count - offset)
            let payload = (offset + 8)..<(offset + 8 + chunk.size)
            switch chunk.type {
            case "avih":
                guard payload.count >= 40 else { throw Self.malformed("'avih' chunk is \(payload.count) bytes, less than 40") }
                microsecondsPerFrame = Int(readLittleEndian32(list, payload.lowerBound))
                totalFrames = Int(readLittleEndian32(list, payload.lowerBound + 16))
                declaredStreams = Int(readLittleEndian32(list, payload.lowerBound + 24))
            case "LIST" where payload.count >= 4 && fourCC(list[payload.lowerBound..<(payload.lowerBound + 4)]) == "strl":
                streams += 1
                guard streams <= Self.maxStreams else { throw ImageError(.limitExceeded, "AVI file has more than \(Self.maxStreams) streams") }
                if video == nil { video = try Stream(list, (payload.lowerBound + 4)..<payload.upperBound, fileOffset: listStart) }
            default:
                break
            }
            offset += min(chunk.paddedSize, list.count - offset)
        }
        guard let declaredStreams else { throw Self.malformed("no 'avih' chunk") }
        guard declaredStreams == streams else {
            throw Self.malformed("'avih' counts \(declaredStreams) streams where 'hdrl' has \(streams) 'strl' lists")
        }
        guard let video else { throw ImageError(.unsupported, "AVI file has no video stream") }
        guard video.width > 0, video.height > 0 else { throw Self.malformed("the video stream's 'strf' has no picture size") }
        codedWidth = video.width
        codedHeight = video.height
        sampleAspect = video.sampleAspect
        codec = video.codec
        streamCount = streams
        frameCount = video.length > 0 ? video.length : totalFrames
        let microseconds = video.length > 0 && video.scale > 0 && video.rate > 0
            ? Double(video.length) * Double(video.scale) * 1_000_000 / Double(video.rate)
            : Double(totalFrames) * Double(microsecondsPerFrame)
        durationMicroseconds = microseconds >= 1 && microseconds < 9e18 ? Int(microseconds) : nil
    }

    static func malformed(_ detail: String) -> ImageError { ImageError(.malformed, "malformed AVI file: \(detail)") }

    /// A chunk header at `at` of `bytes` (at `offset` of the file, for messages), whose chunk
    /// must fit in the `parentEnd` bytes left of its parent.
    private static func chunk(_ bytes: [UInt8], at: Int, offset: Int, parentEnd: Int) throws(ImageError) -> (type: String, size: Int, paddedSize: Int) {
        guard parentEnd >= 8, at + 8 <= bytes.count else { throw malformed("truncated chunk header at byte \(offset)") }
        let type = fourCC(bytes[at..<(at + 4)])
        let size = Int(readLittleEndian32(bytes, at + 4))
        guard size <= parentEnd - 8 else { throw malformed("chunk '\(type)' at byte \(offset) claims \(size) bytes, past the end of its parent") }
        // A chunk is padded to an even size; the pad byte may be missing at the parent's end.
        return (type, size, min(8 + size + (size & 1), parentEnd))
    }

    /// A `strl` list's fields; `length` etc. of the first video stream.
    private struct Stream {
        var width = 0, height = 0
        var scale = 0, rate = 0, length = 0
        var codec = ""
        var sampleAspect = (numerator: 1, denominator: 1)

        /// Nil unless `strh` says `vids`.
        init?(_ bytes: [UInt8], _ range: Range<Int>, fileOffset: Int) throws(ImageError) {
            var isVideo = false, handler = ""
            var at = range.lowerBound
            while at < range.upperBound {
                let chunk = try AVIHeader.chunk(bytes, at: at, offset: fileOffset + at, parentEnd: range.upperBound - at)
                let payload = at + 8
                switch chunk.type {
                case "strh":
                    guard chunk.size >= 36 else { throw AVIHeader.malformed("'strh' chunk is \(chunk.size) bytes, less than 36") }
                    isVideo = fourCC(bytes[payload..<(payload + 4)]) == "vids"
                    handler = fourCC(bytes[(payload + 4)..<(payload + 8)])
                    scale = Int(readLittleEndian32(bytes, payload + 20))
                    rate = Int(readLittleEndian32(bytes, payload + 24))
                    length = Int(readLittleEndian32(bytes, payload + 32))
                case "strf" where isVideo:
                    guard chunk.size >= 20 else { throw AVIHeader.malformed("'strf' chunk is \(chunk.size) bytes, less than a BITMAPINFOHEADER") }
                    width = Int(Int32(bitPattern: readLittleEndian32(bytes, payload + 4)))
                    height = abs(Int(Int32(bitPattern: readLittleEndian32(bytes, payload + 8))))
                    let compression = bytes[(payload + 16)..<(payload + 20)]
                    codec = compression.allSatisfy { $0 == 0 } ? handler : fourCC(compression)
                case "vprp" where chunk.size > 36:
                    // FFmpeg: dwFrameAspectRatio's high word over its low word, divided by the
                    // active frame's width over its height.
                    let aspect = Int(readLittleEndian32(bytes, payload + 20))
                    let frameWidth = Int(readLittleEndian32(bytes, payload + 24)), frameHeight = Int(readLittleEndian32(bytes, payload + 28))
                    let (x, y) = (aspect >> 16, aspect & 0xFFFF)
                    if x > 0, y > 0, frameWidth > 0, frameHeight > 0 {
                        sampleAspect = reducedRatio(x * frameHeight, y * frameWidth)
                    }
                default:
                    break
                }
                at += chunk.paddedSize
            }
            guard isVideo else { return nil }
        }
    }
}

func readLittleEndian32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
    UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
}
