import CWebPBridge
import CodecCore
import Raster

/// A row-streaming WebP decoder (libwebp's incremental decoder, fed 64 KiB `pread` blocks
/// of the picture's bitstream, rows handed out as they are decoded).
///
/// - Stills: libwebp scales while decoding when the scaled size still leaves at least twice
///   `minimumWidth` × `minimumHeight` (stored orientation; see `outputSize`), never up.
/// - Animations: the first frame, full size, composited as libwebp's `WebPAnimDecoder`
///   does on a transparent canvas (the first frame is a key frame: nothing to blend with),
///   without allocating the canvas: rows outside the frame are transparent.
/// - Colour: `.rgba8` with straight alpha when the file says it has alpha (or an animation's
///   first frame leaves part of the canvas bare), and for every lossless (VP8L) picture, else
///   `.rgb8`. A VP8L header's `alpha_is_used` bit is only a hint: its ARGB pixels carry alpha
///   whatever the bit says, and an index past a colour-indexing transform's palette decodes to
///   transparent black (WebP lossless spec, §4.4), so VP8L is always decoded with its alpha,
///   as `dwebp -pam` does. ICC profiles are not applied.
/// - Memory: the stored size must pass `limits.refusal` before anything is allocated.
///   libwebp holds the output picture (at the output size) and the compressed bytes not yet
///   consumed; lossless pictures also hold their ARGB pixels at full size (the format's
///   backward references need them). Those pictures must fit in `memoryBudget`, checked from
///   the header, so a few-byte file claiming 13000×13000 (1.2 GB as lossless) is refused
///   before libwebp allocates them.
/// - Damage: corrupt or cut image data throws; damage after the picture (a cut EXIF chunk, a
///   RIFF size longer than the file) is `trailingProblem`.
public final class WebPDecoder: RowSource {
    /// The header as read before decoding.
    public let header: WebPHeader
    /// The size of the delivered rows: the canvas, or a scaled-down still.
    public let width: Int
    public let height: Int
    public let rowFormat: PixelFormat
    public private(set) var trailingProblem: ImageError?

    private let bridge: OpaquePointer
    /// Kept open while the bridge reads its descriptor.
    private let file: InputFile
    private var cursor: RowCursor
    /// A canvas row, for an animation frame smaller than the canvas (allocated on first use).
    private var canvasRow: UnsafeMutableBufferPointer<UInt8>?

    /// What libwebp may hold for one picture by default (as `JPEGDecoder.defaultMemoryBudget`):
    /// a full-size lossy RGB picture of about 89 megapixels, a lossless one of about 38.
    public static let defaultMemoryBudget = 256 << 20

    /// Opens `file` for decoding to at least twice `minimumWidth` × `minimumHeight` (stored
    /// orientation; 0 × 0 gives the smallest size). Throws `ImageError` with a one-line reason
    /// for a file that is not a readable WebP or is over the limits or `memoryBudget`.
    public init(file: InputFile, limits: DecodeLimits, minimumWidth: Int, minimumHeight: Int,
                memoryBudget: Int = WebPDecoder.defaultMemoryBudget) throws(ImageError) {
        let header = try WebPHeader(file: file)
        if let refusal = limits.refusal(width: header.width, height: header.height) { throw refusal }
        let frame = header.firstFrame
        let coversCanvas = (frame.width, frame.height) == (header.width, header.height)
        let output = header.isAnimated
            ? (width: header.width, height: header.height)
            : Self.outputSize(width: header.width, height: header.height, minimumWidth: minimumWidth, minimumHeight: minimumHeight)
        let alpha = header.hasAlpha || !coversCanvas || header.compression == .lossless
        // libwebp's output picture (the frame's, for an animation), and a lossless picture's ARGB pixels.
        let held = (header.isAnimated ? frame.width * frame.height : output.width * output.height) * (alpha ? 4 : 3)
            + (header.compression == .lossless ? frame.width * frame.height * 4 : 0)
        guard held <= memoryBudget else {
            throw ImageError(.limitExceeded, "image needs more decoding memory than the budget allows")
        }
        let scale = !header.isAnimated && (output.width, output.height) != (frame.width, frame.height)
        guard let bridge = mwebp_decoder_create(file.descriptor, Int64(frame.bitstream.lowerBound), Int64(frame.bitstream.count),
                                                Int32(output.width), Int32(output.height), scale ? 1 : 0, alpha ? 1 : 0) else {
            throw ImageError(.outOfMemory)
        }
        self.bridge = bridge
        self.file = file
        self.header = header
        (width, height) = output
        rowFormat = alpha ? .rgba8 : .rgb8
        cursor = RowCursor(height: output.height)
    }

    deinit {
        canvasRow?.deallocate()
        mwebp_decoder_destroy(bridge)
    }

    /// The libwebp decoder that runs, e.g. "libwebp 1.2.4" (part of the thumbnail cache key).
    public static let libraryVersion: String = {
        let version = Int(mwebp_decoder_version())
        return "libwebp \(version >> 16).\((version >> 8) & 0xFF).\(version & 0xFF)"
    }()

    /// The size a `width` × `height` still is decoded at: the smallest size with the stored
    /// aspect (the binding side exactly twice its minimum, the other rounded up) that is at
    /// least `2 * minimumWidth` × `2 * minimumHeight`; the stored size when that is not
    /// smaller on both sides.
    public static func outputSize(width: Int, height: Int, minimumWidth: Int, minimumHeight: Int) -> (width: Int, height: Int) {
        DecodeTarget(minimumWidth: minimumWidth, minimumHeight: minimumHeight).anyScaleSize(width: width, height: height)
    }

    /// Returns the next row, top to bottom, in `rowFormat` (`width * bytesPerPixel` bytes),
    /// valid until the next call or until the decoder is released; nil after the last row
    /// (that call also sets `trailingProblem`). Throws `ImageError` for corrupt or truncated
    /// image data, and the same error again on any later call.
    public func nextRow() throws(ImageError) -> UnsafeBufferPointer<UInt8>? {
        try cursor.next(read: { y throws(ImageError) in try readRow(y) }, finish: { trailingProblem = header.damageAfterImage })
    }

    public var rowsStarted: Bool { cursor.started }

    private func readRow(_ y: Int) throws(ImageError) -> UnsafeBufferPointer<UInt8> {
        let frame = header.firstFrame
        let bytesPerPixel = rowFormat.bytesPerPixel
        if !header.isAnimated || (frame.width, frame.height) == (header.width, header.height) {
            return UnsafeBufferPointer(start: try frameRow(y), count: width * bytesPerPixel)
        }
        let row = canvasRow ?? {
            let row = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: width * bytesPerPixel)
            row.initialize(repeating: 0)
            return row
        }()
        canvasRow = row
        let frameBytes = frame.width * bytesPerPixel
        let inFrame = frame.y ..< frame.y + frame.height
        if inFrame.contains(y) {
            let source = try frameRow(y - frame.y)
            UnsafeMutableRawPointer(row.baseAddress! + frame.x * bytesPerPixel).copyMemory(from: source, byteCount: frameBytes)
        } else if y == inFrame.upperBound {
            (row.baseAddress! + frame.x * bytesPerPixel).update(repeating: 0, count: frameBytes)
        }
        return UnsafeBufferPointer(row)
    }

    /// Row `y` of the decoded picture (the frame's, before placing it on the canvas).
    private func frameRow(_ y: Int) throws(ImageError) -> UnsafePointer<UInt8> {
        var row: UnsafePointer<UInt8>?
        let status = mwebp_decoder_row(bridge, Int32(y), &row)
        guard status == MB_OK, let row else { throw error(status) }
        return row
    }

    private func error(_ status: mb_status) -> ImageError {
        let codec = header.compression == .lossy ? "VP8" : "VP8L"
        return switch status {
        case MB_LIMIT: ImageError(.outOfMemory)
        case MB_IO: ImageError(.readFailed(errno: mwebp_decoder_errno(bridge)))
        case MB_TRUNCATED: ImageError(bridge: status, reason: "truncated \(codec) image data")
        case MB_UNSUPPORTED: ImageError(bridge: status, reason: "\(codec) feature not supported by libwebp")
        case MB_USAGE: ImageError(bridge: status, reason: "libwebp refused the decoding parameters")
        default: ImageError(bridge: status, reason: "corrupt \(codec) image data")
        }
    }
}
