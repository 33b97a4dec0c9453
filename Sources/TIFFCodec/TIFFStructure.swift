import CodecCore

/// TIFF's directory walk for formats built on TIFF's structure (camera RAWs: DNG, CR2, NEF,
/// ARW, PEF, and ORF and RW2 with their own magic numbers), over the same bounded reader
/// `TIFFHeader` uses: every directory's entry count and every value array is checked against
/// the size of what is read before it is read.
public struct TIFFStructure {
    private var reader: TIFFReader
    /// The offset of the first image file directory (IFD0), as the header gives it.
    public let firstDirectory: UInt64
    /// The size of what is read (the file's, or the bytes').
    public var size: Int { reader.windowed.size }

    /// Classic TIFF's magic number (42); camera makers' variants put another in its place.
    public static let tiffMagic: UInt16 = 42

    /// Reads the 8-byte header ("II" or "MM", a 16-bit magic number in `magics`, the first
    /// directory's 32-bit offset) through `windowed`. BigTIFF is not a RAW container.
    public init(_ windowed: WindowedReader, magics: Set<UInt16> = [TIFFStructure.tiffMagic]) throws(ImageError) {
        reader = TIFFReader(windowed: windowed)
        let start = try reader.windowed.bytes(at: 0, count: 8)
        guard start.count == 8 else { throw TIFFHeader.truncated }
        let order = Array(start.prefix(2))
        guard order == [0x49, 0x49] || order == [0x4D, 0x4D] else { throw ImageError(.malformed, "not a TIFF-structured file") }
        reader.bigEndian = order == [0x4D, 0x4D]
        let magic = UInt16(try reader.uint(at: 2, size: 2))
        guard magics.contains(magic) else { throw ImageError(.malformed, "not a TIFF-structured file (magic number \(magic))") }
        firstDirectory = try reader.uint(at: 4, size: 4)
    }

    /// The directory at `offset`: refused when it lies past the end, is empty, or claims more
    /// entries than the file holds.
    public mutating func directory(at offset: UInt64) throws(ImageError) -> TIFFDirectory {
        TIFFDirectory(entries: try reader.directory(at: offset))
    }

    /// Up to `limit` integer values of `tag` in `directory`; nil when the tag is absent. A value
    /// array that runs past the end of the file, or a tag of a non-integer type, is refused.
    public mutating func integers(_ tag: UInt16, in directory: TIFFDirectory, limit: Int) throws(ImageError) -> [UInt64]? {
        guard let entry = directory.entries.entries[tag] else { return nil }
        return try reader.integers(of: entry, limit: limit)
    }

    /// The first integer value of `tag`, nil when absent.
    public mutating func integer(_ tag: UInt16, in directory: TIFFDirectory) throws(ImageError) -> UInt64? {
        try integers(tag, in: directory, limit: 1)?.first
    }

    /// Up to `limit` values of `tag` in `directory` as real numbers, LibRaw's way (`getreal`): a
    /// RATIONAL or SRATIONAL is its numerator over its denominator (a zero denominator gives an
    /// infinity or NaN, as in C), an integer type its value. Nil when the tag is absent or of
    /// another type; an array that runs past the end of the file is refused.
    public mutating func reals(_ tag: UInt16, in directory: TIFFDirectory, limit: Int) throws(ImageError) -> [Double]? {
        guard let entry = directory.entries.entries[tag] else { return nil }
        switch entry.type {
        case 5, 10:
            // Each value is two 32-bit words: read them as twice as many LONGs.
            guard entry.count <= UInt64(UInt32.max) else {
                throw ImageError(.malformed, "TIFF tag \(entry.tag)'s \(entry.count) values lie past the end of the file")
            }
            let words = TIFFEntry(tag: entry.tag, type: 4, count: 2 * entry.count, valueOffset: entry.valueOffset)
            let pairs = try reader.integers(of: words, limit: 2 * limit)
            let signed = entry.type == 10
            func word(_ value: UInt64) -> Double { signed ? Double(Int32(truncatingIfNeeded: value)) : Double(value) }
            return stride(from: 0, to: pairs.count - 1, by: 2).map { (at: Int) -> Double in word(pairs[at]) / word(pairs[at + 1]) }
        case 1, 3, 4:
            return try reader.integers(of: entry, limit: limit).map(Double.init)
        default:
            return nil
        }
    }

    /// An ASCII tag's text up to its first NUL (at most `limit` bytes), nil when absent or
    /// past the end of the file.
    public mutating func text(_ tag: UInt16, in directory: TIFFDirectory, limit: Int = 64) throws(ImageError) -> String? {
        guard let entry = directory.entries.entries[tag], entry.type == 2 else { return nil }
        let clipped = TIFFEntry(tag: entry.tag, type: entry.type, count: min(entry.count, UInt64(limit)), valueOffset: entry.valueOffset)
        guard let bytes = try reader.rawBytes(of: clipped) else { return nil }
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }
}

/// One image file directory as `TIFFStructure` read it.
public struct TIFFDirectory: Sendable, Hashable {
    fileprivate let entries: TIFFDirectoryEntries
    /// Where the directory starts.
    public var offset: UInt64 { entries.offset }
    /// The next directory's offset in its chain (0 at the end).
    public var next: UInt64 { entries.next }
    /// Whether the directory holds `tag`.
    public func contains(_ tag: UInt16) -> Bool { entries.entries[tag] != nil }
}
