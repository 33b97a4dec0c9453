import CJPEGBridge
import ColorManagement
import CodecCore
import Raster

/// A row-streaming JPEG decoder (libjpeg-turbo) that shrinks in the DCT domain.
///
/// - Scale: the smallest of 1/8, 1/4, 1/2 and 1 whose output is still at least twice
///   `minimumWidth` × `minimumHeight` (see `scaleEighths`); the resampler does the rest.
///   The minimum is in *stored* orientation: swap a tile's sides for the 90° orientations.
/// - Colour: greyscale files give `.grey8` rows; YCbCr, RGB, CMYK and YCCK give `.rgb8`
///   (CMYK converted as Pillow does: samples read as inverted, Photoshop's convention, or
///   through the file's CMYK profile when a `cmykTransform` is given). RGB and grey profiles
///   are applied by the caller, after resampling.
/// - Limits, before anything is allocated: the stored size must pass `limits.refusal`, and
///   libjpeg's memory manager gets `memoryBudget` (`max_memory_to_use`): the whole-image
///   buffers a progressive or multi-scan file needs (its coefficients, 2 bytes a sample)
///   must fit in it, else the file is refused before they are allocated; at most 1000
///   progressive scans are read.
/// - Damage inside the image data (truncation, corrupt entropy-coded data) is not fatal:
///   libjpeg fills what is missing with grey and the rows still arrive; the first such
///   problem is `trailingProblem` once `nextRow()` returned nil.
public final class JPEGDecoder: RowSource {
    /// The header as read before decoding (size, components, orientation).
    public let header: JPEGHeader
    /// The DCT scale chosen, in eighths (8 is full size).
    public let scaleEighths: Int
    /// The size of the delivered rows: the stored size scaled by `scaleEighths`/8, rounded up.
    public let outputWidth: Int
    public let outputHeight: Int
    /// `.grey8` for greyscale files, `.rgb8` otherwise.
    public let rowFormat: PixelFormat
    /// A problem met in the image data that still let every row be produced (for example
    /// "truncated image data"), or nil.
    public private(set) var trailingProblem: ImageError?

    /// What libjpeg may allocate for one image by default: enough for the coefficients of a
    /// progressive 4:2:0 photo of about 85 megapixels, while a 581-byte progressive file
    /// claiming 13000×13000 (about 500 MB of coefficients) is refused.
    public static let defaultMemoryBudget = 256 << 20

    private let bridge: OpaquePointer
    /// Kept open while the bridge reads its descriptor.
    private let file: InputFile
    private var cursor: RowCursor
    /// The row buffer, allocated by the first `nextRow()`.
    private var row: UnsafeMutableBufferPointer<UInt8>?
    /// CMYK through a profile: the transform, and libjpeg's CMYK row.
    private let cmykTransform: ColorTransform?
    private var cmykRow: UnsafeMutableBufferPointer<UInt8>?

    /// Opens `file` for decoding to at least twice `minimumWidth` × `minimumHeight` (stored
    /// orientation; 0 × 0 gives the smallest scale, 1/8). Throws `ImageError` with a one-line reason for a
    /// file that is not a readable JPEG or is over the limits.
    /// `cmykTransform` (an `.invertedCMYK8` transform) converts a CMYK or YCCK file's samples
    /// through its profile; other files ignore it.
    /// `range`, when given, is where the JPEG lies in `file` (a camera RAW's embedded preview):
    /// only those bytes are read, as if they were the whole file.
    public init(file: InputFile, range: Range<Int>? = nil, limits: DecodeLimits, minimumWidth: Int, minimumHeight: Int,
                memoryBudget: Int = JPEGDecoder.defaultMemoryBudget, cmykTransform: ColorTransform? = nil) throws(ImageError) {
        let header = if let range { try JPEGHeader(file: file, range: range) } else { try JPEGHeader(file: file) }
        if let refusal = limits.refusal(width: header.width, height: header.height) { throw refusal }
        let opened = if let range {
            mjpg_decoder_create_fd_range(file.descriptor, off_t(range.lowerBound), off_t(range.count), max(memoryBudget, 0))
        } else {
            mjpg_decoder_create_fd(file.descriptor, max(memoryBudget, 0))
        }
        guard let bridge = opened else {
            throw ImageError(.outOfMemory)
        }
        self.bridge = bridge
        self.file = file
        self.header = header
        self.cmykTransform = header.componentCount == 4 ? cmykTransform : nil
        var info = mjpg_image_info()
        do throws(ImageError) {
            try Self.check(mjpg_decoder_read_header(bridge, &info), bridge)
            // The header pass and libjpeg must agree on what will be allocated.
            guard Int(info.width) == header.width, Int(info.height) == header.height else {
                throw ImageError(.malformed, "malformed JPEG file (more than one frame header)")
            }
            scaleEighths = Self.scaleEighths(width: header.width, height: header.height,
                                             minimumWidth: minimumWidth, minimumHeight: minimumHeight)
            try Self.check(mjpg_decoder_start(bridge, Int32(scaleEighths), &info), bridge)
        } catch {
            mjpg_decoder_destroy(bridge)
            throw error
        }
        outputWidth = Int(info.output_width)
        outputHeight = Int(info.output_height)
        rowFormat = info.output_channels == 1 ? .grey8 : .rgb8
        cursor = RowCursor(height: outputHeight)
    }

    deinit {
        row?.deallocate()
        cmykRow?.deallocate()
        mjpg_decoder_destroy(bridge)
    }

    /// The smallest N in 1, 2, 4, 8 such that a `width` × `height` image decoded at N/8
    /// (libjpeg rounds each side up) is at least `2 * minimumWidth` × `2 * minimumHeight`;
    /// 8 when even full size is smaller.
    ///
    /// Only the power-of-two scales: libjpeg-turbo has SIMD inverse DCTs for those, while
    /// 3/8, 5/8, 6/8 and 7/8 run scalar code. Measured with `masonry-bench` (JPEG stage, CPU
    /// time over the re-encoded photo corpus, 290 px tiles): the scaled decode alone cost
    /// 0.85× the full-size decode with these four scales against 0.91× with all eight, and
    /// decode + resample 1.10× against 1.14×, though the resampler gets larger inputs.
    public static func scaleEighths(width: Int, height: Int, minimumWidth: Int, minimumHeight: Int) -> Int {
        DecodeTarget(minimumWidth: minimumWidth, minimumHeight: minimumHeight).dctEighths(width: width, height: height)
    }

    /// Returns the next row, top to bottom, in `rowFormat` (`outputWidth * bytesPerPixel` bytes),
    /// valid until the next call or until the decoder is released; nil after the last row (that
    /// call also sets `trailingProblem`). Throws `ImageError` for a fatal decoding error, and the
    /// same error again on any later call. Stopping early is fine: releasing the decoder frees
    /// everything.
    public func nextRow() throws(ImageError) -> UnsafeBufferPointer<UInt8>? {
        try cursor.next(read: { _ throws(ImageError) in try readRow() }, finish: finish)
    }

    public var rowsStarted: Bool { cursor.started }

    private func readRow() throws(ImageError) -> UnsafeBufferPointer<UInt8> {
        let row = self.row ?? .allocate(capacity: outputWidth * rowFormat.bytesPerPixel)
        self.row = row
        if let cmykTransform {
            let cmykRow = self.cmykRow ?? .allocate(capacity: outputWidth * 4)
            self.cmykRow = cmykRow
            try Self.check(mjpg_decoder_read_cmyk_row(bridge, cmykRow.baseAddress), bridge)
            cmykTransform.apply(cmyk: cmykRow.baseAddress!, into: row.baseAddress!, count: outputWidth)
        } else {
            try Self.check(mjpg_decoder_read_row(bridge, row.baseAddress), bridge)
        }
        return UnsafeBufferPointer(row)
    }

    /// After the last row: reads what follows the image data and notes any damage.
    private func finish() {
        let status = mjpg_decoder_finish(bridge)
        if status != MB_OK {
            trailingProblem = Self.error(status, bridge)
        } else if let warning = String(validatingCString: mjpg_decoder_warning(bridge)), !warning.isEmpty {
            trailingProblem = ImageError(.malformed, LibJPEGMessage.humanReason(warning))
        }
    }

    private static func check(_ status: mb_status, _ bridge: OpaquePointer) throws(ImageError) {
        if status != MB_OK { throw error(status, bridge) }
    }

    private static func error(_ status: mb_status, _ bridge: OpaquePointer) -> ImageError {
        let message = String(cString: mjpg_decoder_message(bridge))
        return ImageError(bridge: status, reason: status == MB_IO || status == MB_USAGE ? message : LibJPEGMessage.humanReason(message))
    }
}

/// Turns libjpeg's messages into the short lower-case reasons users see.
enum LibJPEGMessage {
    static func humanReason(_ message: String) -> String {
        let known: [(fragment: String, reason: String)] = [
            ("Premature end of JPEG file", "truncated image data"),
            ("Backing store not supported", "image needs more decoding memory than the budget allows"),
            ("Insufficient memory", "image needs more decoding memory than the budget allows"),
            ("Not a JPEG file", "not a JPEG file"),
            ("JPEG datastream contains no image", "no image in the JPEG file"),
        ]
        for entry in known where message.contains(entry.fragment) { return entry.reason }
        guard let first = message.first else { return "malformed JPEG file" }
        // "Corrupt JPEG data: bad Huffman code" -> "corrupt JPEG data: bad Huffman code"
        return first.lowercased() + message.dropFirst()
    }
}

extension JPEGDecoder {
    /// The library that decodes JPEGs in this process.
    public static let libraryVersion = "libjpeg-turbo \(mjpg_library_version())"

    public var width: Int { outputWidth }
    public var height: Int { outputHeight }
    /// A DCT-scaled picture's rows stand for the stored size times the scale: libjpeg rounds the
    /// scaled size up, so the last column or row may be part of a block (451 px by ½: 226 rows
    /// for 225.5).
    public var extent: (width: Double, height: Double) {
        (Double(header.width * scaleEighths) / 8, Double(header.height * scaleEighths) / 8)
    }
}
