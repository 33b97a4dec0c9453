import CBridgeSupport
import CJXLBridge
import CodecCore
import Raster

/// A JPEG XL decoder (libjxl 0.7, loaded on the first JPEG XL file).
///
/// - The header is read first by Masonry's own parser (`JXLHeader`); its stored size must pass
///   `limits.refusal` before libjxl sees a byte, and libjxl's own basic info must then agree
///   with it (size, orientation, grey or colour, alpha, animation, XYB).
/// - Picture: the first frame, as libjxl composites it (an animation's first shown frame on its
///   canvas), in the stored orientation (`JxlDecoderSetKeepOrientation`): the header's
///   orientation is applied by the sheet as EXIF's is. A recompressed JPEG (`jbrd`) is drawn
///   through the same pixel decode. No shrink on load (see `Notes/SPEC.md` §12: libjxl 0.7
///   offers no cheaper sufficient level for the pictures measured).
/// - Rows: 8-bit `.grey8`, `.rgb8` or `.rgba8` (straight alpha), deeper samples rounded by libjxl.
/// - Colour: an XYB (lossy) picture is decoded to sRGB; any other keeps the samples of its
///   encoded colour space, described by `embeddedProfile` or the header's enumerated encoding.
/// - Memory: libjxl decodes the frame whole, into one buffer this decoder holds (counted in
///   `SourceHeader.wholePictureBytes` with what libjxl holds beside it, `heldBytes`). libjxl's
///   memory manager is capped at `allocationBudget`, though libjxl 0.7 allocates only its
///   decoder object through it (measured: 3.7 KB for a 3.8-megapixel decode): the header's
///   checks are what bound a decode.
public final class JXLDecoder: RowSource {
    /// The header as read before decoding.
    public let header: JXLHeader
    /// The ICC profile of a non-XYB picture whose colour encoding is one, as libjxl read it.
    public let embeddedProfile: [UInt8]?
    public let width: Int
    public let height: Int
    public let rowFormat: PixelFormat
    public let trailingProblem: ImageError? = nil

    private let bridge: OpaquePointer
    /// Kept open while libjxl reads it.
    private let file: InputFile
    private var cursor: RowCursor

    /// What libjxl's memory manager may hand out for one file.
    public static let allocationBudget: UInt64 = 256 << 20
    /// The most frames counted in an animation (more: the file is refused).
    public static let maxFrames = 1 << 20

    /// The libjxl that runs, "libjxl 0.7.0" (part of the thumbnail cache key), or why it cannot load.
    public static let libraryVersion: String = {
        let version = mjxl_version()
        if version == 0 { return "libjxl not loaded" }
        return "libjxl \(version / 1_000_000).\(version / 1000 % 1000).\(version % 1000)"
    }()

    /// The bytes a full decode of `header` holds at once: the 8-bit output frame, and libjxl's
    /// own planes (a modular picture's 32-bit channels; an XYB picture's are measured at about
    /// 4 bytes a pixel), twice for an animation, whose canvas libjxl keeps beside the frame.
    /// Saturates.
    public static func heldBytes(_ header: JXLHeader) -> Int {
        let planes = header.isXYB ? 4 : 4 * (header.colorChannels + header.extraChannelCount)
        let perPixel = outputChannels(header) + planes * (header.isAnimated ? 2 : 1)
        let (pixels, overflow) = header.width.multipliedReportingOverflow(by: header.height)
        let (bytes, overflow2) = pixels.multipliedReportingOverflow(by: perPixel)
        return overflow || overflow2 ? .max : bytes
    }

    private static func outputChannels(_ header: JXLHeader) -> Int {
        header.colorChannels == 1 ? (header.hasAlpha ? 4 : 1) : (header.hasAlpha ? 4 : 3)
    }

    /// Opens `file` and decodes its first frame. Throws `ImageError` with a one-line reason for
    /// a file that is not a readable JPEG XL or is over the limits.
    public init(file: InputFile, limits: DecodeLimits) throws(ImageError) {
        let header = try JXLHeader(file: file)
        if let refusal = limits.refusal(width: header.width, height: header.height) { throw refusal }
        let bridge = try Self.open(file)
        do throws(ImageError) {
            var info = mjxl_info()
            try Self.check(mjxl_decoder_read_info(bridge, &info), bridge)
            try Self.checkAgreement(info, header)
            embeddedProfile = Self.profile(bridge)
            let channels = Self.outputChannels(header)
            try Self.check(mjxl_decoder_decode(bridge, Int32(channels)), bridge)
            rowFormat = switch channels {
            case 1: .grey8
            case 3: .rgb8
            default: .rgba8
            }
        } catch {
            mjxl_decoder_destroy(bridge)
            throw error
        }
        self.bridge = bridge
        self.file = file
        self.header = header
        width = header.width
        height = header.height
        cursor = RowCursor(height: height)
    }

    deinit { mjxl_decoder_destroy(bridge) }

    /// The colour a header pass needs beside `JXLHeader`: the ICC profile of a non-XYB picture
    /// whose encoding is one (libjxl reads the profile only, no pixel), else nil.
    public static func embeddedProfile(of file: InputFile, header: JXLHeader) throws(ImageError) -> [UInt8]? {
        guard !header.isXYB, case .icc = header.colorEncoding else { return nil }
        let bridge = try open(file)
        defer { mjxl_decoder_destroy(bridge) }
        var info = mjxl_info()
        try check(mjxl_decoder_read_info(bridge, &info), bridge)
        try checkAgreement(info, header)
        return profile(bridge)
    }

    /// The frames libjxl shows of an animation (1 for a still, without reading it): counted by
    /// libjxl from the frame headers and tables of contents, no pixel decoded, every byte of the
    /// file read once.
    public static func frameCount(of file: InputFile, header: JXLHeader) throws(ImageError) -> Int {
        guard header.isAnimated else { return 1 }
        if let failure = mjxl_library_failure() { throw ImageError(.unsupported, String(cString: failure)) }
        var frames: UInt32 = 0
        var message = mb_message()
        let status = mjxl_count_frames(file.descriptor, Int64(file.size), allocationBudget, UInt32(maxFrames), &frames, &message)
        guard status == MB_OK else { throw ImageError(bridge: status, message: message, fallback: "corrupt JPEG XL codestream") }
        return max(1, Int(frames))
    }

    private static func open(_ file: InputFile) throws(ImageError) -> OpaquePointer {
        if let failure = mjxl_library_failure() { throw ImageError(.unsupported, String(cString: failure)) }
        guard let bridge = mjxl_decoder_create(file.descriptor, Int64(file.size), allocationBudget) else {
            throw ImageError(.outOfMemory)
        }
        return bridge
    }

    private static func profile(_ bridge: OpaquePointer) -> [UInt8]? {
        var size = 0
        guard let bytes = mjxl_decoder_icc(bridge, &size), size > 0 else { return nil }
        return Array(UnsafeBufferPointer(start: bytes, count: size))
    }

    /// libjxl must read the picture Masonry's header describes.
    private static func checkAgreement(_ info: mjxl_info, _ header: JXLHeader) throws(ImageError) {
        guard (Int(info.width), Int(info.height)) == (header.width, header.height) else {
            throw ImageError(.malformed, "malformed JPEG XL header: libjxl reads \(info.width)×\(info.height), the header \(header.width)×\(header.height)")
        }
        let libjxl = (Int(info.orientation), Int(info.color_channels), info.alpha_bits > 0, info.have_animation != 0, info.xyb != 0)
        let ours = (header.orientation.rawValue, header.colorChannels, header.hasAlpha, header.isAnimated, header.isXYB)
        guard libjxl == ours else {
            throw ImageError(.malformed, "malformed JPEG XL header: libjxl reads other metadata (orientation, channels, animation or XYB)")
        }
    }

    /// The decode floor of masonry-bench: libjxl alone decodes the first frame of `file` in full
    /// to 8-bit RGBA, on the calling thread. Returns the frame's pixel count.
    public static func libraryFloorDecode(file: InputFile) throws(ImageError) -> Int {
        var pixels: UInt64 = 0
        var message = mb_message()
        let status = mjxl_floor_decode(file.descriptor, Int64(file.size), &pixels, &message)
        guard status == MB_OK else { throw ImageError(bridge: status, message: message, fallback: "libjxl could not decode the file") }
        return Int(pixels)
    }

    /// Returns the next row, top to bottom, in `rowFormat`, valid until the next call or until
    /// the decoder is released; nil after the last row.
    public func nextRow() throws(ImageError) -> UnsafeBufferPointer<UInt8>? {
        try cursor.next(read: { y throws(ImageError) in
            guard let row = mjxl_decoder_row(bridge, UInt32(y)) else { throw ImageError(.misuse("no decoded row \(y)")) }
            return UnsafeBufferPointer(start: row, count: width * rowFormat.bytesPerPixel)
        }, finish: {})
    }

    public var rowsStarted: Bool { cursor.started }

    private static func check(_ status: mb_status, _ bridge: OpaquePointer) throws(ImageError) {
        guard status != MB_OK else { return }
        throw ImageError(bridge: status, message: mjxl_decoder_message(bridge).pointee, fallback: "corrupt JPEG XL codestream")
    }
}
