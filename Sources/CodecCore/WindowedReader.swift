#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Positioned reads of a header through one window: walking many small records (GIF blocks,
/// RIFF chunks, JPEG segments, ISOBMFF boxes, TIFF IFDs) costs one `pread` per window, and a
/// skip moves the offset without reading. Reads past the end return fewer bytes, never fail.
///
/// The same reader serves a file (`InputFile`) and bytes in memory (the fuzz targets, tests),
/// so a header parser is written once against it.
public struct WindowedReader {
    /// The size of what is read: the file's at opening, or the bytes'.
    public let size: Int
    /// Where `read(_:)`, `byte()` and `skip(_:)` continue.
    public var offset = 0
    private let file: InputFile?
    /// Where in the file offset 0 is (a range of a larger file: a RAW's embedded JPEG).
    private let base: Int
    private var window: [UInt8]
    private var windowStart = 0
    private let windowSize: Int

    /// 64 KiB: one read holds most headers, and a walk over a 100,000-frame GIF stays cheap.
    public static let defaultWindowSize = 1 << 16

    /// Reads `file` with positioned reads (the descriptor's offset is never used).
    public init(file: InputFile, windowSize: Int = WindowedReader.defaultWindowSize) {
        self.init(file: file, range: 0 ..< file.size, windowSize: windowSize)
    }

    /// Reads `range` of `file` as if it were the whole file (offsets count from its start; the
    /// part of it past the file's end reads as missing).
    public init(file: InputFile, range: Range<Int>, windowSize: Int = WindowedReader.defaultWindowSize) {
        self.file = file
        base = max(0, range.lowerBound)
        size = max(0, min(range.upperBound, file.size) - base)
        self.windowSize = max(windowSize, 1)
        window = []
    }

    /// Reads bytes held in memory: the window is all of them.
    public init(bytes: [UInt8]) {
        file = nil
        base = 0
        size = bytes.count
        windowSize = max(bytes.count, 1)
        window = bytes
    }

    /// Up to `count` bytes from `offset` (fewer at the end); `self.offset` is not moved.
    public mutating func bytes(at offset: Int, count: Int) throws(ImageError) -> ArraySlice<UInt8> {
        guard offset >= 0, offset < size, count > 0 else { return [] }
        let wanted = min(count, size - offset)
        if offset >= windowStart, offset + wanted <= windowStart + window.count {
            return window[offset - windowStart ..< offset - windowStart + wanted]
        }
        guard let file else { return [] }
        var block = [UInt8](repeating: 0, count: max(wanted, min(windowSize, size - offset)))
        let got = try block.withUnsafeMutableBufferPointer { buffer throws(ImageError) in try file.read(at: base + offset, into: buffer) }
        block.removeLast(block.count - got)
        window = block
        windowStart = offset
        return window[0 ..< min(wanted, got)]
    }

    /// Up to `count` bytes from `offset`, which moves past them.
    public mutating func read(_ count: Int) throws(ImageError) -> [UInt8] {
        let taken = Array(try bytes(at: offset, count: count))
        offset += taken.count
        return taken
    }

    /// The byte at `offset`, which moves past it; nil at the end.
    public mutating func byte() throws(ImageError) -> UInt8? {
        guard let value = try bytes(at: offset, count: 1).first else { return nil }
        offset += 1
        return value
    }

    /// Moves past `count` bytes; false (offset unchanged) when fewer are left.
    public mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, offset <= size - count else { return false }
        offset += count
        return true
    }
}

/// A header parsed through a `WindowedReader`, so that one parser reads an open file and bytes
/// in memory (the fuzz targets, tests) alike.
public protocol WindowedHeader {
    /// Parses the header through `reader`, which starts at offset 0.
    init(reader: inout WindowedReader) throws(ImageError)
}

extension WindowedHeader {
    /// Reads the header of an open file with positioned reads (the descriptor's offset is not used).
    public init(file: InputFile) throws(ImageError) {
        var reader = WindowedReader(file: file)
        try self.init(reader: &reader)
    }

    /// Reads a header held in memory.
    public init(bytes: [UInt8]) throws(ImageError) {
        var reader = WindowedReader(bytes: bytes)
        try self.init(reader: &reader)
    }
}
