import CodecCore
import CPNGBridge
import CPNGFastDecode
import Raster
#if canImport(Glibc)
import Glibc
#endif

/// PNG's own limits, beside the `DecodeLimits` every format shares.
public struct PNGLimits: Sendable, Hashable {
    /// The most bytes libpng may allocate for any one ancillary chunk.
    public var maxChunkBytes: Int
    /// The most bytes of filtered image data (height × (row bytes + 1)), and of file, the
    /// fast decode path holds at once; larger files stream through libpng. A decoder's
    /// peak memory on the fast path is at most twice this (file and image data).
    public var fastDecodeBudget: Int

    public static let defaultFastDecodeBudget = 32 << 20

    public init(maxChunkBytes: Int = 4 << 20, fastDecodeBudget: Int = PNGLimits.defaultFastDecodeBudget) {
        self.maxChunkBytes = maxChunkBytes
        self.fastDecodeBudget = fastDecodeBudget
    }
}

/// A whole image decoded to 8-bit straight-alpha RGBA, row-major.
public struct DecodedImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let pixels: [UInt8]
}

/// Which decoder reads a file's pixels.
public enum PNGDecodeRoute: Sendable, Hashable {
    /// The fast whole-image path (CPNGFastDecode) for a plain non-interlaced file whose
    /// filtered image fits `PNGLimits.fastDecodeBudget`; libpng for everything else,
    /// including every file the fast path finds anything unusual or wrong in.
    case automatic
    /// libpng alone: the reference the fast path is tested against, and the benchmark's floor.
    case libpngOnly
}

/// A row-streaming decoder from any PNG to 8-bit straight-alpha RGBA (or, when asked
/// for compact rows, to 8-bit RGB or grey for an image without alpha or tRNS); rows are
/// pulled one at a time (`nextRow()`) or pushed to a closure (`readRows`).
///
/// Palette and tRNS are expanded, low bit depths scaled up, 16-bit samples
/// scaled down with rounding, grey replicated. gAMA, cHRM, sRGB and iCCP are
/// not applied, and every ancillary chunk but tRNS is skipped unread.
/// A plain non-interlaced file whose filtered image fits `PNGLimits.fastDecodeBudget`
/// is inflated whole by libdeflate and unfiltered with vector code (`PNGDecodeRoute`);
/// any other is read by libpng, non-interlaced images one row at a time without ever
/// holding the whole image, Adam7 images buffered whole (within the pixel limit).
/// Both give identical rows; every error reason comes from libpng (through CPNGBridge,
/// which reads libpng's words into a `PNGFailure`).
/// The size limit is checked from IHDR before any pixel memory is allocated.
public final class PNGDecoder: RowSource {
    /// The header as read from IHDR.
    public let header: PNGHeader
    /// True when the image has neither an alpha channel nor tRNS: every decoded alpha is 255.
    public let isOpaque: Bool
    /// The layout of the delivered rows: `.rgba8`, or `.opaqueRGBA8` when `isOpaque`, unless
    /// compact rows were asked for (then `.rgb8` or `.grey8` when `isOpaque`).
    public let rowFormat: PixelFormat
    /// True when the fast path decodes this file (false: libpng does).
    public var usesFastPath: Bool {
        if case .fast = backend { true } else { false }
    }
    /// A problem found after every row was delivered (for example a missing
    /// IEND, or an ancillary chunk dropped for its bad CRC): the picture is
    /// complete, but the file is not.
    public private(set) var trailingProblem: ImageError?

    /// Who delivers the rows.
    private enum Backend {
        /// CPNGBridge (libpng), streaming.
        case libpng(OpaquePointer)
        /// CPNGFastDecode: the image is already inflated.
        case fast(OpaquePointer)
    }

    private let backend: Backend
    private let source: Any
    private var cursor: RowCursor
    /// The libpng route's row buffer, or a whole Adam7 image; malloc'd, nil when not needed.
    private var rowStorage: UnsafeMutablePointer<UInt8>?

    /// Decodes the regular file at `path`.
    public convenience init(contentsOfFile path: String, limits: DecodeLimits = .init(), pngLimits: PNGLimits = .init(),
                            route: PNGDecodeRoute = .automatic) throws(ImageError) {
        try self.init(file: InputFile(path: path), limits: limits, pngLimits: pngLimits, route: route)
    }

    /// Decodes an already opened file (see `InputFile`). With `compactOpaqueRows`, an image
    /// without alpha or tRNS is delivered as `.rgb8` (grey images as `.grey8`): the same
    /// colours without the pass that adds a constant alpha (8-25 % of a libpng decode).
    public convenience init(file: InputFile, limits: DecodeLimits = .init(), pngLimits: PNGLimits = .init(), compactOpaqueRows: Bool = false,
                            route: PNGDecodeRoute = .automatic) throws(ImageError) {
        var info = mfast_info()
        var options = Self.fastOptions(limits, pngLimits, compactOpaqueRows)
        if route == .automatic, let fast = mfast_decode_fd(file.descriptor, UInt64(max(file.size, 0)), &options, &info) {
            self.init(fast: fast, info: info, keeping: file)
            return
        }
        guard let bridge = mpng_decoder_create_fd(file.descriptor) else {
            throw ImageError(.outOfMemory)
        }
        try self.init(bridge: bridge, keeping: file, limits: limits, maxChunkBytes: pngLimits.maxChunkBytes, compactOpaqueRows: compactOpaqueRows)
    }

    /// Decodes a PNG held in memory (`compactOpaqueRows`: see `init(file:limits:compactOpaqueRows:route:)`).
    public convenience init(bytes: [UInt8], limits: DecodeLimits = .init(), pngLimits: PNGLimits = .init(), compactOpaqueRows: Bool = false,
                            route: PNGDecodeRoute = .automatic) throws(ImageError) {
        var info = mfast_info()
        var options = Self.fastOptions(limits, pngLimits, compactOpaqueRows)
        if route == .automatic,
           let fast = bytes.withUnsafeBufferPointer({ mfast_decode_memory($0.baseAddress, $0.count, &options, &info) }) {
            self.init(fast: fast, info: info, keeping: ())
            return
        }
        let storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(bytes.count, 1))
        _ = storage.initialize(from: bytes)
        guard let bridge = mpng_decoder_create_memory(storage.baseAddress, bytes.count) else {
            storage.deallocate()
            throw ImageError(.outOfMemory)
        }
        try self.init(bridge: bridge, keeping: OwnedBytes(storage), limits: limits, maxChunkBytes: pngLimits.maxChunkBytes, compactOpaqueRows: compactOpaqueRows)
    }

    private static func fastOptions(_ limits: DecodeLimits, _ pngLimits: PNGLimits, _ compact: Bool) -> mfast_options {
        mfast_options(max_pixels: UInt64(max(limits.maxPixels, 0)), max_width: UInt64(max(limits.maxWidth, 0)),
                      max_chunk_bytes: UInt64(max(pngLimits.maxChunkBytes, 0)),
                      budget: UInt64(max(pngLimits.fastDecodeBudget, 0)), compact: compact ? 1 : 0)
    }

    private init(fast: OpaquePointer, info: mfast_info, keeping source: Any) {
        backend = .fast(fast)
        self.source = source
        isOpaque = info.has_transparency == 0
        rowFormat = Self.format(channels: info.channels, opaque: isOpaque)
        // The fast path accepts only valid colour types.
        header = PNGHeader(width: Int(info.width), height: Int(info.height), bitDepth: Int(info.bit_depth),
                           colorType: PNGColorType(rawValue: UInt8(info.color_type)) ?? .rgba, isInterlaced: false)
        cursor = RowCursor(height: header.height)
    }

    private init(bridge: OpaquePointer, keeping source: Any, limits: DecodeLimits, maxChunkBytes: Int, compactOpaqueRows: Bool) throws(ImageError) {
        backend = .libpng(bridge)
        self.source = source
        var info = mpng_image_info()
        let status = mpng_decoder_start(bridge, UInt64(max(limits.maxPixels, 0)), UInt64(max(limits.maxWidth, 0)),
                                        max(maxChunkBytes, 0), compactOpaqueRows ? 1 : 0, &info)
        // A throwing init never reaches deinit: the bridge is destroyed here.
        if status != MPNG_OK {
            let error = Self.error(bridge)
            mpng_decoder_destroy(bridge)
            throw error
        }
        guard let colorType = PNGColorType(rawValue: UInt8(truncatingIfNeeded: info.color_type)) else {
            mpng_decoder_destroy(bridge)
            throw ImageError(.invalidColourType(Int(info.color_type)))
        }
        isOpaque = info.has_transparency == 0
        rowFormat = Self.format(channels: info.channels, opaque: isOpaque)
        header = PNGHeader(width: Int(info.width), height: Int(info.height), bitDepth: Int(info.bit_depth),
                           colorType: colorType, isInterlaced: info.interlaced != 0)
        cursor = RowCursor(height: header.height)
    }

    private static func format(channels: Int32, opaque: Bool) -> PixelFormat {
        switch channels {
        case 1: .grey8
        case 3: .rgb8
        default: opaque ? .opaqueRGBA8 : .rgba8
        }
    }

    deinit {
        free(rowStorage)
        switch backend {
        case .libpng(let bridge): mpng_decoder_destroy(bridge)
        case .fast(let image): mfast_destroy(image)
        }
    }

    /// Returns the next row, top to bottom, in `rowFormat` (`width * bytesPerPixel` bytes), valid
    /// until the next call or until the decoder is released; nil after the last row (that call
    /// also sets `trailingProblem`). Throws `ImageError` for a bad file, and the same error again
    /// on any later call. Stopping early is fine: releasing the decoder frees everything.
    /// An Adam7 image is decoded whole on the first call (the pixel limit bounds it) and its
    /// buffer freed at the end; other libpng files hold one row.
    public func nextRow() throws(ImageError) -> UnsafeBufferPointer<UInt8>? {
        try cursor.next(read: row, finish: finish)
    }

    public var rowsStarted: Bool { cursor.started }

    private func row(_ y: Int) throws(ImageError) -> UnsafeBufferPointer<UInt8> {
        let rowBytes = header.width * rowFormat.bytesPerPixel
        switch backend {
        case .fast(let image):
            return UnsafeBufferPointer(start: mfast_next_row(image), count: rowBytes)
        case .libpng(let bridge) where header.isInterlaced:
            if y == 0 {
                let image = try allocateRows(rowBytes, header.height,
                                             orElse: ImageError(.outOfMemoryForInterlacedImage(width: header.width, height: header.height)))
                var rows = (0..<header.height).map { Optional(image + $0 * rowBytes) }
                try check(mpng_decoder_read_image(bridge, &rows), bridge)
            }
            return UnsafeBufferPointer(start: rowStorage! + y * rowBytes, count: rowBytes)
        case .libpng(let bridge):
            let row = if let rowStorage { rowStorage } else { try allocateRows(rowBytes, 1, orElse: ImageError(.outOfMemory)) }
            try check(mpng_decoder_read_row(bridge, row), bridge)
            return UnsafeBufferPointer(start: row, count: rowBytes)
        }
    }

    /// `count` rows of `rowBytes` in `rowStorage`. malloc rather than `allocate`: with a raised
    /// pixel limit a whole interlaced image can be gigabytes, and a failed `allocate` traps; a
    /// failed malloc is reported as this file's problem instead.
    private func allocateRows(_ rowBytes: Int, _ count: Int, orElse failure: ImageError) throws(ImageError) -> UnsafeMutablePointer<UInt8> {
        let (total, overflow) = rowBytes.multipliedReportingOverflow(by: count)
        guard !overflow, let memory = malloc(max(total, 1)) else { throw failure }
        rowStorage = memory.assumingMemoryBound(to: UInt8.self)
        return rowStorage!
    }

    /// After the last row: frees the row memory and reads the rest of the file (libpng).
    private func finish() {
        free(rowStorage)
        rowStorage = nil
        guard case .libpng(let bridge) = backend else { return }
        if mpng_decoder_finish(bridge) != MPNG_OK {
            trailingProblem = Self.error(bridge)
        } else if let warning = mpng_decoder_warning(bridge)?.pointee, warning.status != MPNG_OK {
            // libpng dropped an ancillary chunk with a bad CRC: the picture is
            // complete, but the file is damaged, so say so (as for a missing IEND).
            trailingProblem = ImageError(bridge: warning)
        }
    }

    /// Decodes a whole in-memory PNG.
    public static func decodeRGBA(bytes: [UInt8], limits: DecodeLimits = .init(), pngLimits: PNGLimits = .init(),
                                  route: PNGDecodeRoute = .automatic) throws -> DecodedImage {
        try PNGDecoder(bytes: bytes, limits: limits, pngLimits: pngLimits, route: route).decodeAll()
    }

    /// Decodes a whole PNG file.
    public static func decodeRGBA(contentsOfFile path: String, limits: DecodeLimits = .init(), pngLimits: PNGLimits = .init(),
                                  route: PNGDecodeRoute = .automatic) throws -> DecodedImage {
        try PNGDecoder(contentsOfFile: path, limits: limits, pngLimits: pngLimits, route: route).decodeAll()
    }

    private func decodeAll() throws -> DecodedImage {
        var pixels = [UInt8]()
        // Reserve at most 64 MiB up front: the header's size is only a claim
        // until the rows arrive, and a raised limit must not reserve gigabytes.
        pixels.reserveCapacity(min(header.width * header.height * 4, 64 << 20))
        try readRows { _, row in pixels.append(contentsOf: row) }
        return DecodedImage(width: header.width, height: header.height, pixels: pixels)
    }

    private func check(_ status: mpng_status, _ bridge: OpaquePointer) throws(ImageError) {
        if status != MPNG_OK { throw Self.error(bridge) }
    }

    /// The bridge's last failure.
    private static func error(_ bridge: OpaquePointer) -> ImageError {
        ImageError(bridge: mpng_decoder_failure(bridge).pointee)
    }
}

extension PNGDecoder {
    /// The libraries that decode PNGs in this process (libpng, and libdeflate for the fast path).
    public static let libraryVersion = "libpng \(String(cString: mpng_library_version())), libdeflate \(String(cString: mfast_library_version()))"

    public var width: Int { header.width }
    public var height: Int { header.height }
}

extension PNGHeader {
    init(width: Int, height: Int, bitDepth: Int, colorType: PNGColorType, isInterlaced: Bool) {
        self.width = width
        self.height = height
        self.bitDepth = bitDepth
        self.colorType = colorType
        self.isInterlaced = isInterlaced
    }
}

/// Memory a decoder reads from, freed with the decoder.
private final class OwnedBytes {
    let buffer: UnsafeMutableBufferPointer<UInt8>
    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) { self.buffer = buffer }
    deinit { buffer.deallocate() }
}
