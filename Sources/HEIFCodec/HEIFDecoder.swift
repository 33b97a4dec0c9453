import CHEIFBridge
import CodecCore
import Raster

/// A HEIF/AVIF decoder (libheif 1.15: HEVC through libde265, AV1 through aom, which unlike
/// dav1d never prints; `libraryVersion(for:)` names the one used).
///
/// - The header is read first by Masonry's own box parser (`HEIFHeader`), which refuses
///   lying boxes, reference loops and bad grids; every size libheif would allocate for
///   (coded size, grid tiles, alpha plane, displayed size, and every other `ispe` of the file,
///   which libheif checks on reading) must pass `limits.refusal` before libheif sees the file.
///   libheif's own size limit is set too, and grid tiles are decoded on the calling thread, so
///   a decode costs one of Masonry's workers.
/// - libheif reads the file through a reader over `pread` (not from memory): it holds only
///   the boxes and the coded data it asks for, so a large photo is never copied whole. Where
///   libheif 1.15 would refuse a file Masonry reads (`iden` items without `iloc` entries, a
///   sequence's brands), the reader shows it a few bytes otherwise (`HEIFHeader.libheifView`).
/// - Picture: the primary image with its transformations (`clap`, `irot`, `imir`) applied, or
///   the smallest thumbnail at least twice `minimumWidth` × `minimumHeight` that can stand
///   in for it (same aspect, transformations and alpha: `HEIFThumbnail.canStandIn`). Grids are
///   assembled by libheif. 10- and 12-bit samples are scaled to 8 bits with rounding.
/// - Monochrome (4:0:0) pictures: luma becomes grey in the bridge, limited-range luma expanded
///   to full (the range of the `colr` nclx box, else of the coded stream), as libavif does.
/// - Rows: `.rgba8` (straight alpha) when the picture has alpha, else `.rgb8`, top to bottom
///   from libheif's plane. libheif decodes the whole picture in `init` (its YCbCr planes and
///   the RGB plane: a 12 MP HEIC took a run's peak RSS from 28 to 127 MB); nothing is found
///   after it, so `trailingProblem` is always nil.
public final class HEIFDecoder: RowSource {
    /// The header as read before decoding.
    public let header: HEIFHeader
    /// The thumbnail decoded in place of the primary image, or nil.
    public let thumbnail: HEIFThumbnail?
    public let width: Int
    public let height: Int
    public let rowFormat: PixelFormat
    public let trailingProblem: ImageError? = nil

    private let bridge: OpaquePointer
    /// Kept open while libheif may read it.
    private let file: InputFile
    private var cursor: RowCursor

    /// The run-time libheif version and the decoder it uses for `format`, for cache keys:
    /// "libheif 1.15.1, libde265 HEVC decoder, version 1.0.11".
    public static func libraryVersion(for format: HEIFFormat) -> String {
        let decoder = mheif_decoder_name(format == .avif ? 1 : 0).map { String(cString: $0) } ?? "no decoder"
        return "libheif \(String(cString: mheif_version())), \(decoder)"
    }

    /// Opens `file` and decodes it to at least twice `minimumWidth` × `minimumHeight` (0 × 0:
    /// the smallest thumbnail that can stand in, if any). Throws `ImageError` with a one-line
    /// reason for a file that is not a readable HEIF/AVIF or is over the limits.
    public init(file: InputFile, limits: DecodeLimits, minimumWidth: Int, minimumHeight: Int) throws(ImageError) {
        let header = try HEIFHeader(file: file)
        for size in header.decodedSizes {
            if let refusal = limits.refusal(width: size.width, height: size.height) { throw refusal }
        }
        if let failure = mheif_library_failure() { throw ImageError(.unsupported, String(cString: failure)) }
        guard mheif_decoder_name(header.format == .avif ? 1 : 0) != nil else {
            throw ImageError(.unsupported, "this libheif has no \(header.format == .avif ? "AV1" : "HEVC") decoder")
        }
        let thumbnail = header.thumbnail(minimumWidth: minimumWidth, minimumHeight: minimumHeight)
        let maxSide = Int32(clamping: min(limits.maxPixels, Int(Int32.max) - 1) + 1)
        guard let bridge = mheif_decoder_create_fd(file.descriptor, Int64(file.size), maxSide) else {
            throw ImageError(.outOfMemory)
        }
        if let view = header.libheifView {
            var status = MB_OK
            for overlay in view.overlays where status == MB_OK {
                status = overlay.bytes.withUnsafeBufferPointer { mheif_decoder_overlay(bridge, Int64(overlay.offset), $0.baseAddress) }
            }
            if status == MB_OK && !view.appended.isEmpty {
                status = view.appended.withUnsafeBufferPointer { mheif_decoder_append(bridge, $0.baseAddress, $0.count) }
            }
            guard status == MB_OK else {
                mheif_decoder_destroy(bridge)
                throw ImageError(.outOfMemory)
            }
        }
        let info: mheif_image_info
        do throws(ImageError) {
            info = try Self.decode(bridge, header: header, thumbnail: thumbnail)
        } catch {
            mheif_decoder_destroy(bridge)
            throw error
        }
        self.bridge = bridge
        self.file = file
        self.header = header
        self.thumbnail = thumbnail
        width = Int(info.width)
        height = Int(info.height)
        rowFormat = info.channels == 4 ? .rgba8 : .rgb8
        cursor = RowCursor(height: height)
    }

    /// Has libheif read the file and decode the primary image or `thumbnail`, which must be the
    /// item and the size the header found.
    private static func decode(_ bridge: OpaquePointer, header: HEIFHeader, thumbnail: HEIFThumbnail?)
        throws(ImageError) -> mheif_image_info {
        var primaryID: UInt32 = 0
        try check(mheif_decoder_read(bridge, &primaryID), bridge)
        guard Int(primaryID) == header.primaryItemID else {
            throw ImageError(.malformed, "malformed HEIF file: libheif finds primary item \(primaryID), the header \(header.primaryItemID)")
        }
        var info = mheif_image_info()
        let av1 = thumbnail.map(\.isAV1) ?? (header.format == .avif)
        let monochrome = thumbnail.map(\.isMonochrome) ?? header.isMonochrome
        try check(mheif_decoder_decode(bridge, UInt32(thumbnail?.itemID ?? 0), av1 ? 1 : 0, monochrome ? 1 : 0, &info), bridge)
        let expected = thumbnail.map { ($0.width, $0.height) } ?? (header.width, header.height)
        guard (Int(info.width), Int(info.height)) == expected else {
            throw ImageError(.malformed, "malformed HEIF file: libheif decoded \(info.width)×\(info.height) where the header says \(expected.0)×\(expected.1)")
        }
        return info
    }

    deinit { mheif_decoder_destroy(bridge) }

    /// Returns the next row, top to bottom, in `rowFormat`, valid until the next call or until
    /// the decoder is released; nil after the last row.
    public func nextRow() throws(ImageError) -> UnsafeBufferPointer<UInt8>? {
        try cursor.next(read: { y throws(ImageError) in
            guard let row = mheif_decoder_row(bridge, UInt32(y)) else { throw ImageError(.misuse("no decoded row \(y)")) }
            return UnsafeBufferPointer(start: row, count: width * rowFormat.bytesPerPixel)
        }, finish: {})
    }

    public var rowsStarted: Bool { cursor.started }

    private static func check(_ status: mb_status, _ bridge: OpaquePointer) throws(ImageError) {
        guard status != MB_OK else { return }
        // libheif's messages may hold line breaks (one printed an empty line): one line each.
        let message = ImageError.text(mheif_decoder_message(bridge).pointee).split(whereSeparator: \.isNewline)
            .map { $0.split(separator: " ").joined(separator: " ") }.filter { !$0.isEmpty }.joined(separator: "; ")
        let reason = message.isEmpty ? "libheif failed" : message.prefix(1).lowercased() + message.dropFirst()
        let context = switch status {
        case MB_LIMIT: "HEIF image over libheif's limits: "
        case MB_IO: ""
        case MB_UNSUPPORTED: "unsupported HEIF file: "
        default: "corrupt HEIF file: "
        }
        throw ImageError(bridge: status, reason: context + reason)
    }
}
