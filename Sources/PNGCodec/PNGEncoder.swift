import CodecCore
import CPNGBridge
import Raster
#if canImport(Glibc)
import Glibc
#endif

extension PixelFormat {
    /// The PNG colour type of an 8-bit image in this layout (opaque RGBA is written as RGBA).
    var pngColorType: PNGColorType {
        switch self {
        case .rgba8, .opaqueRGBA8: .rgba
        case .rgb8: .rgb
        case .grey8: .grey
        }
    }
}

/// Compressor and row filter: the whole of what decides the bytes.
public struct PNGEncodingSettings: Sendable, Hashable {
    /// The zlib strategy.
    public enum Strategy: Sendable, Hashable {
        case `default`, filtered, rle

        var zlibValue: Int32 {
            switch self {
            case .default: 0   // Z_DEFAULT_STRATEGY
            case .filtered: 1  // Z_FILTERED
            case .rle: 3       // Z_RLE
            }
        }
    }

    /// The PNG row filter (`adaptive` chooses per row, libpng's way).
    public enum Filter: Sendable, Hashable {
        case none, sub, up, average, paeth, adaptive

        var bridgeValue: mpng_filter {
            switch self {
            case .none: MPNG_FILTER_NONE
            case .sub: MPNG_FILTER_SUB
            case .up: MPNG_FILTER_UP
            case .average: MPNG_FILTER_AVERAGE
            case .paeth: MPNG_FILTER_PAETH
            case .adaptive: MPNG_FILTER_ADAPTIVE
            }
        }
    }

    /// What compresses the filtered rows.
    public enum Compressor: Sendable, Hashable {
        /// Masonry's own deflate in Swift (`RunLengthDeflater`): runs of a repeated
        /// byte or pixel plus literals, dynamic Huffman blocks. Its bytes depend only
        /// on the pixels, never on the installed zlib.
        case masonryRLE
        /// zlib through libpng at `level` 0-9 with `strategy`.
        case zlib(level: Int, strategy: Strategy)
    }

    public var compressor: Compressor
    public var filter: Filter

    public init(compressor: Compressor, filter: Filter) {
        self.compressor = compressor
        self.filter = filter
    }

    /// zlib through libpng.
    public init(level: Int, strategy: Strategy = .default, filter: Filter = .up) {
        self.init(compressor: .zlib(level: level, strategy: strategy), filter: filter)
    }

    /// The sheet default: Masonry's run-length deflate with the Up filter. On a
    /// 1200×14843 photo sheet it encodes in a fraction of the time zlib level 6 with
    /// `Z_RLE` took, at about the same size (Notes/performance.md), and, unlike
    /// zlib's output, its bytes cannot change with the zlib version installed.
    public static let `default` = PNGEncodingSettings(compressor: .masonryRLE, filter: .up)
    /// The same as `default`: nothing measured was faster without being much larger.
    public static let fast = PNGEncodingSettings.default
    /// Small: zlib level 9, `Z_FILTERED`, Paeth: about 10 % smaller than `default` on photo
    /// sheets, 30-45× slower (Notes/performance.md).
    public static let small = PNGEncodingSettings(level: 9, strategy: .filtered, filter: .paeth)
}

/// A PNG encoder that takes rows in order, so a tall sheet can be streamed
/// without being held in memory. Writes 8-bit non-interlaced RGBA, RGB or grey with
/// no time or text chunks: identical pixels and settings give identical bytes.
public final class PNGEncoder {
    public let width: Int
    public let height: Int
    public let format: PixelFormat
    private let backend: Backend
    private var rowsWritten = 0

    /// Who writes the file: libpng (zlib settings) or Masonry's own writer.
    private enum Backend {
        case libpng(OpaquePointer)
        case runLength(RunLengthPNGWriter)
    }

    /// The worker count encoders use unless told otherwise: one per online processor.
    public static let defaultWorkers = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))

    /// Starts a PNG on an open file descriptor (not closed by the encoder). With Masonry's
    /// own compressor, `workers` groups of rows are deflated at once on other threads
    /// (the bytes do not depend on it); zlib through libpng always uses one. `sRGBChunk` adds
    /// an `sRGB` chunk (perceptual intent): the pixels were converted to sRGB.
    public convenience init(fileDescriptor: Int32, width: Int, height: Int, format: PixelFormat,
                            settings: PNGEncodingSettings = .default,
                            workers: Int = PNGEncoder.defaultWorkers, sRGBChunk: Bool = false,
                            reuse: (any RowGroupReuse)? = nil) throws(ImageError) {
        try self.init(destination: .fileDescriptor(fileDescriptor), width: width, height: height, format: format,
                      settings: settings, workers: workers, sRGBChunk: sRGBChunk, reuse: reuse)
    }

    /// The rows of each independently compressed group (`RowGroupReuse`'s groups) of a page
    /// `width` pixels wide, with Masonry's own compressor; the last group may hold fewer.
    public static func rowsPerGroup(width: Int, format: PixelFormat) -> Int {
        RunLengthPNGWriter.rowsPerGroup(rowBytes: width * format.bytesPerPixel)
    }

    /// The version of the bytes Masonry's own compressor makes of given rows and settings: raise
    /// it whenever they change, so that row groups stored by an older binary are not reused.
    public static let rowGroupVersion: UInt32 = 1

    private init(destination: RunLengthPNGWriter.Destination, width: Int, height: Int, format: PixelFormat,
                 settings: PNGEncodingSettings, workers: Int, sRGBChunk: Bool = false,
                 reuse: (any RowGroupReuse)? = nil) throws(ImageError) {
        self.width = width
        self.height = height
        self.format = format
        guard (1...0x7FFF_FFFF).contains(width), (1...0x7FFF_FFFF).contains(height) else {
            throw ImageError(.cannotEncodeSize(width: width, height: height))
        }
        switch settings.compressor {
        case .masonryRLE:
            backend = .runLength(try RunLengthPNGWriter(destination: destination, width: width, height: height,
                                                        format: format, filter: settings.filter, workers: workers,
                                                        sRGBChunk: sRGBChunk, reuse: reuse))
        case .zlib(let level, let strategy):
            precondition(reuse == nil, "only Masonry's own compressor reuses row groups")
            guard (0...9).contains(level) else {
                throw ImageError(.compressionLevelOutOfRange(level))
            }
            let created = switch destination {
            case .fileDescriptor(let descriptor): mpng_encoder_create_fd(descriptor)
            case .memory: mpng_encoder_create_memory()
            }
            guard let bridge = created else { throw ImageError(.outOfMemory) }
            backend = .libpng(bridge)
            if sRGBChunk { mpng_encoder_set_srgb(bridge) }
            try check(mpng_encoder_start(bridge, UInt32(width), UInt32(height), Int32(format.bytesPerPixel),
                                         Int32(level), strategy.zlibValue, settings.filter.bridgeValue))
        }
    }

    deinit {
        if case .libpng(let bridge) = backend { mpng_encoder_destroy(bridge) }
    }

    /// Writes the next row (`width * channels` bytes).
    public func writeRow(_ row: UnsafeBufferPointer<UInt8>) throws(ImageError) {
        guard row.count == width * format.bytesPerPixel, rowsWritten < height, let start = row.baseAddress else {
            throw ImageError(.wrongRow(index: rowsWritten, byteCount: row.count))
        }
        switch backend {
        case .libpng(let bridge): try check(mpng_encoder_write_row(bridge, start))
        case .runLength(let writer): try writer.writeRow(start)
        }
        rowsWritten += 1
    }

    /// Passes over the next row, whose group `reuse` holds (Masonry's own compressor only).
    public func skipRow() throws(ImageError) {
        guard rowsWritten < height, case .runLength(let writer) = backend else {
            throw ImageError(.wrongRow(index: rowsWritten, byteCount: 0))
        }
        try writer.skipRow()
        rowsWritten += 1
    }

    /// Writes IEND and flushes; every row must have been written.
    public func finish() throws(ImageError) {
        guard rowsWritten == height else {
            throw ImageError(.missingRows(written: rowsWritten, height: height))
        }
        switch backend {
        case .libpng(let bridge): try check(mpng_encoder_finish(bridge))
        case .runLength(let writer): try writer.finish()
        }
    }

    /// Encodes a whole image held in memory (`width * height * channels` bytes).
    public static func encode(pixels: [UInt8], width: Int, height: Int, format: PixelFormat,
                              settings: PNGEncodingSettings = .default,
                              workers: Int = PNGEncoder.defaultWorkers) throws(ImageError) -> [UInt8] {
        guard pixels.count == width * height * format.bytesPerPixel else {
            throw ImageError(.wrongPixelCount(expected: width * height * format.bytesPerPixel, got: pixels.count))
        }
        let encoder = try PNGEncoder(destination: .memory, width: width, height: height, format: format,
                                     settings: settings, workers: workers)
        let rowBytes = width * format.bytesPerPixel
        try pixels.withUnsafeBufferPointer { (all) throws(ImageError) in
            for y in 0..<height {
                try encoder.writeRow(UnsafeBufferPointer(rebasing: all[y * rowBytes ..< (y + 1) * rowBytes]))
            }
        }
        try encoder.finish()
        switch encoder.backend {
        case .libpng(let bridge):
            var count = 0
            let bytes = mpng_encoder_memory(bridge, &count)
            return Array(UnsafeBufferPointer(start: bytes, count: count))
        case .runLength(let writer):
            return writer.memory
        }
    }

    /// Turns a libpng bridge status into a `ImageError`.
    private func check(_ status: mpng_status) throws(ImageError) {
        guard status != MPNG_OK, case .libpng(let bridge) = backend else { return }
        throw ImageError(bridge: mpng_encoder_failure(bridge).pointee)
    }
}
