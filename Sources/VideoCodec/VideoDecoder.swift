import CBridgeSupport
import CodecCore
import CVideoBridge
import Raster

/// What the header pass knows of a video: its first video stream's picture, turn and length,
/// read by Masonry's own container walk (no FFmpeg): `MP4Header` for MP4 and MOV,
/// `MatroskaHeader` for Matroska/WebM, `AVIHeader` for AVI.
public struct VideoHeader: Sendable, Hashable {
    public let container: VideoContainer
    public let codedWidth: Int, codedHeight: Int
    /// The sample aspect ratio the container gives (1:1 when it gives none), reduced.
    public let sampleAspectNumerator: Int, sampleAspectDenominator: Int
    /// The display matrix's clockwise rotation: 0, 90, 180 or 270 (MP4 and MOV `tkhd`, Matroska
    /// `Projection`; none for AVI).
    public let rotation: Int
    /// Microseconds, nil when unknown.
    public let durationMicroseconds: Int?
    /// Frames of the stream when the container says (0 when it does not: Matroska).
    public let frameCount: Int
    /// The container's name of the codec: the sample entry ("avc1"), CodecID ("V_VP9") or
    /// biCompression ("FMP4").
    public let codec: String
    /// The transfer characteristics the container gives (ITU-T H.273; MP4/MOV `colr`, Matroska
    /// `Colour`; nil for AVI or without them).
    public let transfer: Int?
    /// A PQ or HLG transfer: FFmpeg decodes such a stream to 16-bit samples, and the poster is
    /// converted through 16-bit RGB before it is tone-mapped.
    public var isHDR: Bool { transfer == 16 || transfer == 18 }

    /// The picture as stored, its sample aspect ratio applied (the width rounded): what the
    /// decoder's rows hold before `orientation` turns them. Saturates at `Int.max`, which the
    /// limits refuse: AVI's `vprp` can make the ratio 2⁴⁸ and BITMAPINFOHEADER the width 2³¹.
    public var width: Int {
        let shown = (Double(codedWidth) * Double(sampleAspectNumerator) / Double(sampleAspectDenominator)).rounded()
        return shown < 9e18 ? max(1, Int(shown)) : .max
    }
    public var height: Int { codedHeight }
    /// The display matrix as a turn of the stored picture.
    public var orientation: ExifOrientation {
        switch rotation {
        case 90: .right
        case 180: .down
        case 270: .left
        default: .up
        }
    }

    /// Reads the header of `file`, of the container its signature named.
    public init(file: InputFile, container: VideoContainer) throws(ImageError) {
        switch container {
        case .mp4, .mov:
            let mp4 = try MP4Header(file: file, container: container)
            self.init(container: container, codedWidth: mp4.codedWidth, codedHeight: mp4.codedHeight, sampleAspect: mp4.sampleAspect,
                      rotation: mp4.rotation, durationMicroseconds: mp4.durationMicroseconds, frameCount: mp4.frameCount, codec: mp4.codec,
                      transfer: mp4.transfer)
        case .matroska:
            let matroska = try MatroskaHeader(file: file)
            self.init(container: container, codedWidth: matroska.codedWidth, codedHeight: matroska.codedHeight,
                      sampleAspect: matroska.sampleAspect, rotation: matroska.rotation, durationMicroseconds: matroska.durationMicroseconds,
                      frameCount: 0, codec: matroska.codec, transfer: matroska.transfer)
        case .avi:
            let avi = try AVIHeader(file: file)
            self.init(container: container, codedWidth: avi.codedWidth, codedHeight: avi.codedHeight, sampleAspect: avi.sampleAspect,
                      rotation: 0, durationMicroseconds: avi.durationMicroseconds, frameCount: avi.frameCount, codec: avi.codec,
                      transfer: nil)
        }
    }

    private init(container: VideoContainer, codedWidth: Int, codedHeight: Int, sampleAspect: (numerator: Int, denominator: Int),
                 rotation: Int, durationMicroseconds: Int?, frameCount: Int, codec: String, transfer: Int?) {
        self.container = container
        self.codedWidth = codedWidth
        self.codedHeight = codedHeight
        let aspect = reducedRatio(sampleAspect.numerator, sampleAspect.denominator)
        sampleAspectNumerator = aspect.numerator
        sampleAspectDenominator = aspect.denominator
        self.rotation = rotation
        self.durationMicroseconds = durationMicroseconds
        self.frameCount = frameCount
        self.codec = codec
        self.transfer = transfer
    }
}

/// One FFmpeg demuxer over a file (the bridge's `mvid_video`), released with it.
final class VideoSession {
    let video: OpaquePointer
    /// Kept open while FFmpeg reads it.
    private let file: InputFile

    /// How long one file may take, header and poster: 30 s.
    static let deadlineMilliseconds: Int32 = 30_000
    /// Streams a container may hold (a phone clip has two to five).
    static let maxStreams: Int32 = 64

    init(file: InputFile) throws(ImageError) {
        if let failure = mvid_library_failure() { throw ImageError(.unsupported, String(cString: failure)) }
        guard let video = mvid_create(file.descriptor, Int64(file.size), Self.deadlineMilliseconds) else { throw ImageError(.outOfMemory) }
        self.video = video
        self.file = file
    }

    deinit { mvid_destroy(video) }

    func open(_ container: VideoContainer) throws(ImageError) -> mvid_info {
        var info = mvid_info()
        try check(mvid_open(video, container.demuxer, Self.maxStreams, &info), container)
        return info
    }

    func check(_ status: mb_status, _ container: VideoContainer) throws(ImageError) {
        guard status != MB_OK else { return }
        let message = mvid_message(video)!.pointee
        if status == MB_IO, message.error_number != 0 { throw ImageError(.readFailed(errno: message.error_number)) }
        let words = ImageError.text(message)
        let what = switch status {
        case MB_UNSUPPORTED: "unsupported \(container.rawValue) file"
        case MB_LIMIT: "\(container.rawValue) file over the limits"
        default: "unreadable \(container.rawValue) file"
        }
        throw ImageError(bridge: status, reason: "\(what): \(words.isEmpty ? "FFmpeg failed" : words)")
    }
}

/// A video's poster frame (FFmpeg 5.1's demuxers and decoders, through CVideoBridge).
///
/// - The header is read first (`VideoHeader`, Masonry's own walk); its sizes must pass
///   `limits.refusal` before FFmpeg sees a byte, and FFmpeg must find the coded size, rotation
///   and container sample aspect ratio the own reader found.
/// - The poster: the first frame at or after 10 % of the duration (FFmpeg seeks to the keyframe
///   before and decodes forward), the first frame of a clip under a second or of unknown length;
///   at most `maxPackets` packets, one decoder thread.
/// - Rows: `.rgb8`, top to bottom in the stored orientation (the display matrix is the header's
///   `orientation`), the sample aspect ratio applied, scaled by swscale with the stream's matrix
///   and range to the smallest size at least twice the minimum (`DecodeTarget.anyScaleSize`).
///   The whole poster is converted in `init`; `trailingProblem` is always nil.
public final class VideoDecoder: RowSource {
    public let header: VideoHeader
    public let width: Int
    public let height: Int
    public let rowFormat: PixelFormat = .rgb8
    public let trailingProblem: ImageError? = nil
    private let session: VideoSession
    private var cursor: RowCursor

    /// Packets read looking for the poster, after the seek.
    public static let maxPackets: Int32 = 2000

    /// FFmpeg's run-time version, for cache keys: "libavformat 59.27.100 (FFmpeg 5.1.…)".
    public static var libraryVersion: String { String(cString: mvid_version()) }

    public init(file: InputFile, container: VideoContainer, limits: DecodeLimits, minimumWidth: Int, minimumHeight: Int) throws(ImageError) {
        let header = try VideoHeader(file: file, container: container)
        try Self.checkLimits(header, limits)
        let session = try VideoSession(file: file)
        let info = try session.open(container)
        let aspect = info.sar_num > 0 && info.sar_den > 0 ? reducedRatio(Int(info.sar_num), Int(info.sar_den)) : (numerator: 1, denominator: 1)
        guard (Int(info.width), Int(info.height), Int(info.rotation), aspect.numerator, aspect.denominator)
                == (header.codedWidth, header.codedHeight, header.rotation, header.sampleAspectNumerator, header.sampleAspectDenominator) else {
            throw ImageError(.malformed, "malformed \(container.rawValue) file: FFmpeg reads \(info.width)×\(info.height) turned \(info.rotation)° "
                             + "with pixels \(aspect.numerator):\(aspect.denominator) where the header says \(header.codedWidth)×\(header.codedHeight) "
                             + "turned \(header.rotation)° with pixels \(header.sampleAspectNumerator):\(header.sampleAspectDenominator)")
        }
        // 0 × 0 asks for the full size.
        let size = minimumWidth == 0 && minimumHeight == 0 ? (width: header.width, height: header.height)
            : DecodeTarget(minimumWidth: minimumWidth, minimumHeight: minimumHeight).anyScaleSize(width: header.width, height: header.height)
        try session.check(mvid_decode_poster(session.video, Int32(size.width), Int32(size.height), Self.maxPackets,
                                             Int64(limits.maxPixels)), container)
        self.header = header
        self.session = session
        width = size.width
        height = size.height
        cursor = RowCursor(height: size.height)
    }

    /// The coded and the shown size must both pass `limits`.
    static func checkLimits(_ header: VideoHeader, _ limits: DecodeLimits) throws(ImageError) {
        for (width, height) in [(header.codedWidth, header.codedHeight), (header.width, header.height)] {
            if let refusal = limits.refusal(width: width, height: height) { throw refusal }
        }
    }

    public func nextRow() throws(ImageError) -> UnsafeBufferPointer<UInt8>? {
        try cursor.next(read: { y throws(ImageError) in
            guard let row = mvid_row(session.video, Int32(y)) else { throw ImageError(.misuse("no poster row \(y)")) }
            return UnsafeBufferPointer(start: row, count: width * 3)
        }, finish: {})
    }

    public var rowsStarted: Bool { cursor.started }
}
