import CBridgeSupport
import CTIFFBridge
import CodecCore
import ColorManagement
import Raster

/// A row-streaming decoder of a TIFF's first page (libtiff, fed through Masonry's descriptor),
/// one strip, or one row of tiles, at a time.
///
/// - Levels: of the first page and its reduced-resolution levels (`TIFFHeader.levels`: SubIFDs
///   and the pyramid IFDs after it), the smallest that leaves at least twice `minimumWidth` ×
///   `minimumHeight` is decoded (`ShrinkOnLoad.pyramidLevels`); the full page otherwise.
/// - Samples: integers of 1 to 16 bits and of 32 bits, unsigned or signed, and floats of 16,
///   32 and 64 bits; contiguous or in separate planes; strips or tiles; every compression this
///   libtiff decodes (none, LZW, Deflate, PackBits, JPEG, CCITT fax, …). Integers are scaled to
///   8 bits exactly (rounded; 32-bit ones from their top 16 bits). Signed ones first get half their range
///   added (the sign bit flipped: the least is black, zero mid grey, the greatest white), alpha
///   too; the header refuses them with premultiplied alpha. Floats are taken as linear light,
///   0 to 1 (clamped; NaN is 0), and encoded with the sRGB curve: libvips's reading of float
///   TIFFs (scRGB), so an HDR or scientific picture keeps its tones instead of being cast to
///   black. Halves are converted exactly (subnormals, infinities, NaNs), doubles rounded to
///   the nearest 32-bit float; then each is scaled as a 32-bit float is.
/// - Colour: grey (min-is-white inverted) gives `.grey8`; RGB, palette (the colour map's high
///   bytes, as libtiff and Pillow read it), JPEG's YCbCr (converted by libjpeg) and CMYK give
///   `.rgb8`. CMYK goes through its ICC profile when `cmykTransform` is given, else through
///   Pillow's naive conversion ((255 − C)(255 − K)/255 …). Other ICC profiles are applied by the
///   colour stage on the rows.
/// - Alpha: the first extra sample, associated (premultiplied: divided out) or unassociated,
///   gives straight-alpha `.rgba8`; an unspecified extra sample is ignored, as Pillow does (in
///   separate planes, its plane is not decoded). A CMYK picture's alpha is dropped when it goes
///   through its profile.
/// - Memory: the stored size must pass `limits.refusal` before anything is allocated; the
///   buffers of one strip or one row of tiles must fit in `memoryBudget` (a contiguous strip
///   that does not is read scanline by scanline; anything else is refused), and each of
///   libtiff's own allocations (a strip's compressed bytes, its tables) is capped at
///   `memoryBudget`, or `libraryAllocationFloor` for a smaller budget.
/// - The directory libtiff reads must be the one the header walk read (size, samples, coding).
public final class TIFFDecoder: RowSource {
    /// The libtiff that decodes in this process ("libtiff 4.5.0").
    public static let libraryVersion = "libtiff \(String(cString: mtiff_library_version()))"
    /// What one decoder may hold for a strip or a row of tiles (as `JPEGDecoder.defaultMemoryBudget`).
    public static let defaultMemoryBudget = 256 << 20

    /// The least cap on one libtiff allocation: a small budget still lets libtiff hold a
    /// strip's compressed bytes while the decoder reads it scanline by scanline.
    public static let libraryAllocationFloor = 64 << 20

    /// The header read before decoding.
    public let header: TIFFHeader
    /// The directory decoded: the first page, or one of its levels.
    public let level: TIFFImageDirectory
    public let width: Int
    public let height: Int
    public let rowFormat: PixelFormat
    /// Always nil: libtiff's damage is thrown.
    public let trailingProblem: ImageError? = nil
    public var rowsStarted: Bool { cursor.started }

    private let bridge: OpaquePointer
    /// Kept open while the bridge reads its descriptor.
    private let file: InputFile
    private var cursor: RowCursor
    private let row: UnsafeMutableBufferPointer<UInt8>
    private let cmykTransform: ColorTransform?
    private let cmykRow: UnsafeMutableBufferPointer<UInt8>?

    /// Opens `file` for rows at least twice `minimumWidth` × `minimumHeight` (0 × 0: the
    /// smallest level; the page's size or more: the page). Throws `ImageError` with a one-line
    /// reason for a file that is not a readable TIFF or is over the limits or `memoryBudget`.
    public init(file: InputFile, limits: DecodeLimits, minimumWidth: Int, minimumHeight: Int,
                memoryBudget: Int = TIFFDecoder.defaultMemoryBudget, cmykTransform: ColorTransform? = nil) throws(ImageError) {
        let header = try TIFFHeader(file: file)
        if let refusal = limits.refusal(width: header.width, height: header.height) { throw refusal }
        let target = DecodeTarget(minimumWidth: minimumWidth, minimumHeight: minimumHeight)
        let level = target.smallestAccepted([header.page] + header.levels) { ($0.width, $0.height) } ?? header.page

        var opened: OpaquePointer?
        var directory = mtiff_directory()
        var message = mb_message()
        let status = mtiff_open(file.descriptor, Int64(file.size), level.offset, Int64(max(memoryBudget, Self.libraryAllocationFloor)),
                                &opened, &directory, &message)
        guard status == MB_OK, let bridge = opened else {
            throw ImageError(bridge: status, message: message, fallback: "libtiff could not open the file")
        }
        guard Self.agrees(directory, level) else {
            mtiff_destroy(bridge)
            throw ImageError(.malformed, "malformed TIFF file (libtiff reads its image directory differently)")
        }
        let transform = level.isCMYK ? cmykTransform : nil
        let output: mtiff_output
        if level.isCMYK && transform != nil {
            output = MTIFF_CMYK8_INVERTED
        } else if level.alpha != nil {
            output = MTIFF_RGBA8
        } else if level.colorSamples < 3 && level.photometric != TIFFImageDirectory.palette {
            output = MTIFF_GREY8
        } else {
            output = MTIFF_RGB8
        }
        let alpha: Int32 = switch level.alpha {
        case .associated: 1
        case .unassociated: 2
        case nil: 0
        }
        let started = mtiff_start(bridge, output, transform != nil ? 0 : alpha, level.isCMYK ? 1 : 0, memoryBudget)
        guard started == MB_OK else {
            let error = ImageError(bridge: started, message: mtiff_message(bridge).pointee, fallback: "libtiff could not start decoding")
            mtiff_destroy(bridge)
            throw error
        }
        self.bridge = bridge
        self.file = file
        self.header = header
        self.level = level
        width = level.width
        height = level.height
        rowFormat = switch output {
        case MTIFF_GREY8: .grey8
        case MTIFF_RGBA8: .rgba8
        default: .rgb8
        }
        cursor = RowCursor(height: height)
        self.cmykTransform = transform
        row = .allocate(capacity: width * rowFormat.bytesPerPixel)
        cmykRow = transform != nil ? .allocate(capacity: width * 4) : nil
    }

    deinit {
        row.deallocate()
        cmykRow?.deallocate()
        mtiff_destroy(bridge)
    }

    /// Returns the next row, top to bottom (stored orientation), in `rowFormat`, valid until
    /// the next call or until the decoder is released; nil after the last row. Throws
    /// `ImageError` for damaged image data, and the same error again on any later call.
    public func nextRow() throws(ImageError) -> UnsafeBufferPointer<UInt8>? {
        try cursor.next(read: { _ throws(ImageError) in try readRow() }, finish: {})
    }

    private func readRow() throws(ImageError) -> UnsafeBufferPointer<UInt8> {
        var decoded: UnsafePointer<UInt8>?
        if let cmykTransform, let cmykRow {
            try check(mtiff_read_row(bridge, cmykRow.baseAddress, &decoded))
            cmykTransform.apply(cmyk: decoded!, into: row.baseAddress!, count: width)
            return UnsafeBufferPointer(row)
        }
        // The strip's own bytes when they need no conversion (no copy), else `row`.
        try check(mtiff_read_row(bridge, row.baseAddress, &decoded))
        return UnsafeBufferPointer(start: decoded, count: row.count)
    }

    private func check(_ status: mb_status) throws(ImageError) {
        guard status == MB_OK else {
            throw ImageError(bridge: status, message: mtiff_message(bridge).pointee, fallback: "libtiff could not decode the image data")
        }
    }

    /// Whether libtiff's reading of the directory is the header walk's.
    private static func agrees(_ directory: mtiff_directory, _ level: TIFFImageDirectory) -> Bool {
        Int(directory.width) == level.width && Int(directory.height) == level.height
            && Int(directory.samples_per_pixel) == level.samplesPerPixel && Int(directory.bits_per_sample) == level.bitsPerSample
            && Int(directory.sample_format) == level.sampleFormat && Int(directory.photometric) == level.photometric
            && Int(directory.planar_configuration) == level.planarConfiguration && Int(directory.compression) == level.compression
            && Int(directory.tile_width) == (level.tileWidth ?? 0) && Int(directory.tile_height) == (level.tileHeight ?? 0)
    }

    /// libtiff's own full decode of the first page (every strip or tile, no conversion): the
    /// floor masonry-bench measures the TIFF sheet against. Returns the page's pixel count.
    public static func libraryFloorDecode(file: InputFile) throws(ImageError) -> Int {
        var pixels: UInt64 = 0
        var message = mb_message()
        let status = mtiff_floor_decode(file.descriptor, Int64(file.size), &pixels, &message)
        guard status == MB_OK else { throw ImageError(bridge: status, message: message, fallback: "libtiff could not decode the file") }
        return Int(pixels)
    }
}
