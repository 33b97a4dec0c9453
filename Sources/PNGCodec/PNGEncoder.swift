import CPNGBridge
#if canImport(Glibc)
import Glibc
#endif

/// The pixel layout the encoder accepts and writes: 8-bit RGB or RGBA.
public enum PNGPixelFormat: Sendable, Hashable {
    case rgb8, rgba8

    public var channels: Int { self == .rgb8 ? 3 : 4 }
}

/// zlib level, strategy and row filter: the whole of what decides the bytes.
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

    /// The PNG row filter (`adaptive` lets libpng choose per row).
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

    public var level: Int
    public var strategy: Strategy
    public var filter: Filter

    public init(level: Int, strategy: Strategy = .default, filter: Filter = .up) {
        self.level = level
        self.strategy = strategy
        self.filter = filter
    }

    /// The sheet default: zlib level 6 with the `Z_RLE` strategy and the Up filter. Measured
    /// on photo and clipart sheets it is the fastest setting we found that stays within a few
    /// percent of the smallest (Notes/performance.md): about 8x faster than level 9 with
    /// adaptive filters.
    public static let `default` = PNGEncodingSettings(level: 6, strategy: .rle, filter: .up)
    /// The same as `default`: with `Z_RLE`, zlib 1.2.13 uses one routine at every level, and
    /// no other setting we measured was faster without being much larger.
    public static let fast = PNGEncodingSettings.default
    /// Small: level 9, `Z_FILTERED`, Paeth: 7-13 % smaller than `default`, about 10x slower.
    public static let small = PNGEncodingSettings(level: 9, strategy: .filtered, filter: .paeth)
}

/// A PNG encoder that takes rows in order, so a tall sheet can be streamed
/// without being held in memory. Writes 8-bit non-interlaced RGB or RGBA with
/// no time or text chunks: identical pixels and settings give identical bytes.
public final class PNGEncoder {
    public let width: Int
    public let height: Int
    public let format: PNGPixelFormat
    private let bridge: OpaquePointer
    private var rowsWritten = 0

    /// Starts a PNG on an open file descriptor (not closed by the encoder).
    public convenience init(fileDescriptor: Int32, width: Int, height: Int, format: PNGPixelFormat,
                            settings: PNGEncodingSettings = .default) throws(PNGError) {
        guard let bridge = mpng_encoder_create_fd(fileDescriptor) else { throw PNGError(.io, "out of memory") }
        try self.init(bridge: bridge, width: width, height: height, format: format, settings: settings)
    }

    private init(bridge: OpaquePointer, width: Int, height: Int, format: PNGPixelFormat,
                 settings: PNGEncodingSettings) throws(PNGError) {
        self.bridge = bridge
        self.width = width
        self.height = height
        self.format = format
        guard (1...0x7FFF_FFFF).contains(width), (1...0x7FFF_FFFF).contains(height) else {
            throw PNGError(.unsupported, "cannot encode a \(width)×\(height) image")
        }
        guard (0...9).contains(settings.level) else {
            throw PNGError(.unsupported, "compression level \(settings.level) is not in 0...9")
        }
        try check(mpng_encoder_start(bridge, UInt32(width), UInt32(height), Int32(format.channels),
                                     Int32(settings.level), settings.strategy.zlibValue, settings.filter.bridgeValue))
    }

    deinit { mpng_encoder_destroy(bridge) }

    /// Writes the next row (`width * channels` bytes).
    public func writeRow(_ row: UnsafeBufferPointer<UInt8>) throws(PNGError) {
        guard row.count == width * format.channels, rowsWritten < height else {
            throw PNGError(.unsupported, "row \(rowsWritten) has \(row.count) bytes or is past the last row")
        }
        try check(mpng_encoder_write_row(bridge, row.baseAddress))
        rowsWritten += 1
    }

    /// Writes IEND and flushes; every row must have been written.
    public func finish() throws(PNGError) {
        guard rowsWritten == height else {
            throw PNGError(.unsupported, "only \(rowsWritten) of \(height) rows were written")
        }
        try check(mpng_encoder_finish(bridge))
    }

    /// Encodes a whole image held in memory (`width * height * channels` bytes).
    public static func encode(pixels: [UInt8], width: Int, height: Int, format: PNGPixelFormat,
                              settings: PNGEncodingSettings = .default) throws(PNGError) -> [UInt8] {
        guard pixels.count == width * height * format.channels else {
            throw PNGError(.unsupported, "expected \(width * height * format.channels) bytes, got \(pixels.count)")
        }
        guard let bridge = mpng_encoder_create_memory() else { throw PNGError(.io, "out of memory") }
        let encoder = try PNGEncoder(bridge: bridge, width: width, height: height, format: format, settings: settings)
        let rowBytes = width * format.channels
        try pixels.withUnsafeBufferPointer { (all) throws(PNGError) in
            for y in 0..<height {
                try encoder.writeRow(UnsafeBufferPointer(rebasing: all[y * rowBytes ..< (y + 1) * rowBytes]))
            }
        }
        try encoder.finish()
        var count = 0
        let bytes = mpng_encoder_memory(bridge, &count)
        return Array(UnsafeBufferPointer(start: bytes, count: count))
    }

    private func check(_ status: mpng_status) throws(PNGError) {
        guard status != MPNG_OK else { return }
        let message = String(cString: mpng_encoder_message(bridge))
        throw PNGError(status == MPNG_IO ? .io : .unsupported, message)
    }
}
