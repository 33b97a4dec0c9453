import CodecCore
import Raster

/// What a sheet needs to know about a TIFF before libtiff sees a byte of it: the first page's
/// size, samples and coding, its orientation and ICC profile, its reduced-resolution levels,
/// and how many pages the file holds.
///
/// Masonry's own walk over the image file directories (classic TIFF and BigTIFF, either byte
/// order), through one `WindowedReader`, with every count, offset and size checked against the
/// file's size before it is used:
/// - the IFD chain is followed to count the pages (a page is an IFD whose NewSubfileType does
///   not mark it a reduced-resolution copy); an IFD met twice (a loop), or one that lies past
///   the end of the file, refuses the file with its reason, as the issue's hostile files ask;
///   at most `maxPages` IFDs are walked (the count stops there, `note` says so);
/// - the first page and its levels (its SubIFDs, and the reduced-resolution IFDs that follow it
///   in the chain, as libvips and GDAL write pyramids) are read entry by entry: a value array
///   past the end of the file, a strip or tile whose bytes lie past the end or claim more bytes
///   than the file has, a strip or tile count that does not match the size, or a sample layout
///   libtiff cannot hand over (see `TIFFImageDirectory.check`) is refused with its reason;
/// - a level is kept only when it reads as the first page does (same photometric, samples and
///   bits) and has the page's aspect; a damaged level is left out, never fatal.
public struct TIFFHeader: Sendable, Hashable, WindowedHeader {
    /// The first page's stored size (before `orientation`).
    public let width: Int
    public let height: Int
    /// The first page's Orientation tag (274); `.up` when absent or out of range.
    public let orientation: ExifOrientation
    /// The pages of the main IFD chain that are not reduced-resolution copies (at least 1).
    public let pageCount: Int
    /// True for BigTIFF (version 43, 64-bit offsets).
    public let isBigTIFF: Bool
    /// The first page.
    public let page: TIFFImageDirectory
    /// The first page's reduced-resolution levels, largest first (each smaller than the page).
    public let levels: [TIFFImageDirectory]
    /// The ICC profile of the first page (tag 34675), or nil (none, or over `maxICCProfileBytes`).
    public let iccProfile: [UInt8]?
    /// Why a profile the file holds is not in `iccProfile`.
    public let colorNote: String?
    /// Why the IFD chain's walk stopped before its end (more than `maxPages`), or nil.
    public let note: String?

    /// The most IFDs the page count walks (a million-page file is counted up to here).
    public static let maxPages = 65_536
    /// The largest ICC profile kept.
    public static let maxICCProfileBytes = 4 << 20

    /// True when `prefix` starts with a TIFF or BigTIFF signature: "II*\0", "MM\0*", "II+\0", "MM\0+".
    @inlinable
    public static func hasSignature(_ prefix: some Collection<UInt8>) -> Bool {
        var bytes = prefix.makeIterator()
        guard let a = bytes.next(), let b = bytes.next(), let c = bytes.next(), let d = bytes.next() else { return false }
        return (a, b, c, d) == (0x49, 0x49, 0x2A, 0x00) || (a, b, c, d) == (0x4D, 0x4D, 0x00, 0x2A)
            || (a, b, c, d) == (0x49, 0x49, 0x2B, 0x00) || (a, b, c, d) == (0x4D, 0x4D, 0x00, 0x2B)
    }

    public init(reader windowed: inout WindowedReader) throws(ImageError) {
        var reader = TIFFReader(windowed: windowed)
        defer { windowed = reader.windowed }
        let start = try reader.windowed.bytes(at: 0, count: 16)
        guard Self.hasSignature(start) else { throw ImageError(.malformed, "not a TIFF file") }
        reader.bigEndian = start[start.startIndex] == 0x4D
        reader.isBigTIFF = try reader.uint(at: 2, size: 2) == 43
        isBigTIFF = reader.isBigTIFF
        let first: UInt64
        if isBigTIFF {
            guard start.count == 16 else { throw Self.truncated }
            guard try reader.uint(at: 4, size: 2) == 8, try reader.uint(at: 6, size: 2) == 0 else {
                throw ImageError(.malformed, "malformed BigTIFF header (offsets are not 8 bytes)")
            }
            first = try reader.uint(at: 8, size: 8)
        } else {
            guard start.count >= 8 else { throw Self.truncated }
            first = try reader.uint(at: 4, size: 4)
        }
        guard first != 0 else { throw ImageError(.malformed, "TIFF file has no image directory") }

        // The main chain: the first IFD in full, then each later one for its NewSubfileType.
        var visited: Set<UInt64> = []
        var offset = first
        var pages = 0
        var chainLevels: [TIFFImageDirectory] = []
        var firstIFD: TIFFDirectoryEntries?
        var note: String?
        while offset != 0 {
            guard visited.count < Self.maxPages else {
                note = "more than \(Self.maxPages) image directories: counted up to there"
                break
            }
            guard visited.insert(offset).inserted else {
                throw ImageError(.malformed, "loop in the TIFF image directory chain (directory \(visited.count) points back to an earlier one)")
            }
            let entries = try reader.directory(at: offset)
            let subfileType: UInt64? = try? entries.value(of: .newSubfileType, &reader) ?? 0
            let reduced = (subfileType ?? 0) & 1 == 1
            if firstIFD == nil {
                firstIFD = entries
                pages = 1
            } else if reduced && pages == 1, let level = try? TIFFImageDirectory(entries, &reader) {
                // A pyramid in the main chain: reduced copies right after the first page.
                chainLevels.append(level)
            } else if !reduced {
                pages += 1
            }
            offset = entries.next
        }
        guard let firstIFD else { throw ImageError(.malformed, "TIFF file has no image directory") }
        let page = try TIFFImageDirectory(firstIFD, &reader)
        try page.check()

        var subLevels: [TIFFImageDirectory] = []
        if let subIFDs = try? firstIFD.values(of: .subIFDs, &reader, maxCount: 64) {
            for subOffset in subIFDs where !visited.contains(subOffset) {
                visited.insert(subOffset)
                guard let entries = try? reader.directory(at: subOffset),
                      let level = try? TIFFImageDirectory(entries, &reader) else { continue }
                subLevels.append(level)
            }
        }
        levels = (subLevels + chainLevels)
            .filter { (try? $0.check()) != nil && $0.isLevel(of: page) }
            .sorted { $0.width > $1.width }

        var profile: [UInt8]?
        var colorNote: String?
        if let icc = firstIFD.entry(.iccProfile) {
            if icc.count > UInt64(Self.maxICCProfileBytes) {
                colorNote = "ICC profile of \(icc.count) bytes is over the \(Self.maxICCProfileBytes)-byte limit: ignored"
            } else if let bytes = try? reader.rawBytes(of: icc), bytes.count == Int(icc.count) {
                profile = bytes
            } else {
                colorNote = "ICC profile lies past the end of the file: ignored"
            }
        }
        width = page.width
        height = page.height
        let orientationTag: UInt64? = try? firstIFD.value(of: .orientation, &reader) ?? 1
        orientation = ExifOrientation(rawValue: Int(clamping: orientationTag ?? 1)) ?? .up
        pageCount = pages
        self.page = page
        iccProfile = profile
        self.colorNote = colorNote
        self.note = note
    }

    static var truncated: ImageError { ImageError(.malformed, "truncated TIFF file (in its header)") }
}

/// One image file directory as the decoder needs it: the size, the samples, the coding, and
/// where its strips or tiles are.
public struct TIFFImageDirectory: Sendable, Hashable {
    /// Where the IFD starts (libtiff is pointed at it with `TIFFSetSubDirectory`).
    public let offset: UInt64
    public let width: Int
    public let height: Int
    public let samplesPerPixel: Int
    public let bitsPerSample: Int
    /// 1 unsigned integer, 2 signed integer, 3 IEEE float (SampleFormat, tag 339).
    public let sampleFormat: Int
    public let photometric: Int
    public let compression: Int
    /// 1 contiguous (chunky), 2 separate planes.
    public let planarConfiguration: Int
    /// The ExtraSamples tag's values (0 unspecified, 1 associated alpha, 2 unassociated alpha).
    public let extraSamples: [Int]
    /// 1 CMYK (the default), 2 another ink set (InkSet, tag 332).
    public let inkSet: Int
    /// The tile size, or nil for strips.
    public let tileWidth: Int?
    public let tileHeight: Int?
    /// Rows a strip holds (the height, at most, for one strip).
    public let rowsPerStrip: Int
    /// How many strips or tiles the directory lists.
    public let chunkCount: Int
    /// The largest byte count of a strip or tile (0 when the file gives none).
    public let largestChunkBytes: Int

    /// Photometric interpretations.
    public static let minIsWhite = 0, minIsBlack = 1, rgb = 2, palette = 3, separated = 5, yCbCr = 6
    /// The JPEG compression libtiff writes and reads ("new-style" JPEG, 7).
    public static let jpegCompression = 7

    /// True for tiled directories.
    public var isTiled: Bool { tileWidth != nil }

    /// The colour samples a pixel has before its extra samples.
    public var colorSamples: Int { samplesPerPixel - extraSamples.count }

    /// The alpha the first extra sample carries: nil for none (or unspecified, which is ignored
    /// as Pillow does), else associated (premultiplied) or not.
    public var alpha: TIFFAlpha? {
        guard let first = extraSamples.first else { return nil }
        return first == 1 ? .associated : first == 2 ? .unassociated : nil
    }

    /// Whether the samples are what the decoder draws as CMYK.
    public var isCMYK: Bool { photometric == Self.separated && inkSet == 1 && colorSamples == 4 }

    fileprivate init(_ entries: TIFFDirectoryEntries, _ reader: inout TIFFReader) throws(ImageError) {
        offset = entries.offset
        func required(_ tag: TIFFTag) throws(ImageError) -> Int {
            guard let value = try entries.value(of: tag, &reader) else {
                throw ImageError(.malformed, "TIFF image directory has no \(tag.name)")
            }
            return Int(clamping: value)
        }
        func optional(_ tag: TIFFTag, _ fallback: Int) throws(ImageError) -> Int {
            Int(clamping: try entries.value(of: tag, &reader) ?? UInt64(fallback))
        }
        width = try required(.imageWidth)
        height = try required(.imageLength)
        guard width > 0, height > 0, width <= Int(UInt32.max), height <= Int(UInt32.max) else {
            throw ImageError(.malformed, "TIFF image is \(width)×\(height)")
        }
        samplesPerPixel = try optional(.samplesPerPixel, 1)
        guard (1...64).contains(samplesPerPixel) else {
            throw ImageError(.malformed, "TIFF image has \(samplesPerPixel) samples a pixel")
        }
        let bits = try entries.values(of: .bitsPerSample, &reader, maxCount: 64) ?? [1]
        guard let firstBits = bits.first, bits.allSatisfy({ $0 == firstBits }) else {
            throw ImageError(.unsupported, "TIFF samples of different bit depths are not supported")
        }
        bitsPerSample = Int(clamping: firstBits)
        let formats = try entries.values(of: .sampleFormat, &reader, maxCount: 64) ?? [1]
        let firstFormat = formats.first ?? 1
        guard formats.allSatisfy({ $0 == firstFormat }) else {
            throw ImageError(.unsupported, "TIFF samples of different formats are not supported")
        }
        sampleFormat = Int(clamping: firstFormat)
        compression = try optional(.compression, 1)
        planarConfiguration = try optional(.planarConfiguration, 1)
        extraSamples = (try entries.values(of: .extraSamples, &reader, maxCount: 64) ?? []).map { Int(clamping: $0) }
        // Without the tag, libtiff's guess (and Pillow's): RGB for three colour samples or
        // more, else min-is-black.
        let guessed = samplesPerPixel - extraSamples.count >= 3 ? Self.rgb : Self.minIsBlack
        photometric = Int(clamping: try entries.value(of: .photometric, &reader) ?? UInt64(guessed))
        inkSet = try optional(.inkSet, 1)
        guard extraSamples.count < samplesPerPixel else {
            throw ImageError(.malformed, "TIFF image lists \(extraSamples.count) extra samples of \(samplesPerPixel)")
        }

        let planes = planarConfiguration == 2 ? samplesPerPixel : 1
        let offsets: [UInt64], counts: [UInt64]?
        if let tileWidthValue = try entries.value(of: .tileWidth, &reader) {
            let tileWidth = Int(clamping: tileWidthValue), tileHeight = try required(.tileLength)
            guard tileWidth > 0, tileHeight > 0, tileWidth % 16 == 0, tileHeight % 16 == 0 else {
                throw ImageError(.malformed, "TIFF tiles of \(tileWidth)×\(tileHeight) (not multiples of 16)")
            }
            // A LONG8 may claim a side near Int.max (2^63 - 16 is a multiple of 16), over which
            // the tile count's rounding up overflows; libtiff keeps the sides in 32 bits.
            guard tileWidth <= Int(UInt32.max), tileHeight <= Int(UInt32.max) else {
                throw ImageError(.malformed, "TIFF tiles of \(tileWidth)×\(tileHeight) (over 32-bit sides)")
            }
            self.tileWidth = tileWidth
            self.tileHeight = tileHeight
            rowsPerStrip = tileHeight
            let across = (width + tileWidth - 1) / tileWidth, down = (height + tileHeight - 1) / tileHeight
            chunkCount = across.multipliedReportingOverflow(by: down).partialValue.multipliedReportingOverflow(by: planes).partialValue
            offsets = try entries.chunkValues(of: .tileOffsets, &reader, expected: chunkCount)
            counts = try entries.chunkValuesIfPresent(of: .tileByteCounts, &reader, expected: chunkCount)
        } else {
            tileWidth = nil
            tileHeight = nil
            rowsPerStrip = max(1, min(height, try optional(.rowsPerStrip, height)))
            chunkCount = ((height + rowsPerStrip - 1) / rowsPerStrip) * planes
            offsets = try entries.chunkValues(of: .stripOffsets, &reader, expected: chunkCount)
            counts = try entries.chunkValuesIfPresent(of: .stripByteCounts, &reader, expected: chunkCount)
        }
        let kind = tileWidth == nil ? "strip" : "tile"
        let size = UInt64(reader.windowed.size)
        var largest: UInt64 = 0
        for index in offsets.indices {
            let start = offsets[index], count = counts?[index] ?? 0
            if count > size {
                throw ImageError(.malformed, "TIFF \(kind) \(index) claims \(count) bytes, more than the file's \(size)")
            }
            if count > 0, start > size - count {
                throw ImageError(.malformed, "TIFF \(kind) \(index) lies past the end of the file")
            }
            if counts == nil, start >= size {
                throw ImageError(.malformed, "TIFF \(kind) \(index) starts past the end of the file")
            }
            largest = max(largest, count)
        }
        largestChunkBytes = Int(largest)
    }

    /// Throws the reason the decoder cannot read this directory's samples ("not supported"), or
    /// why they are inconsistent ("malformed").
    public func check() throws(ImageError) {
        switch sampleFormat {
        case 1, 2:
            guard (1...16).contains(bitsPerSample) || bitsPerSample == 32 else {
                throw ImageError(.unsupported, "TIFF samples of \(bitsPerSample) bits are not supported")
            }
            // Signed samples are drawn with zero as mid grey: colour premultiplied by such an
            // alpha cannot be divided back out.
            guard sampleFormat == 1 || alpha != .associated else {
                throw ImageError(.unsupported, "TIFF premultiplied alpha of signed integer samples is not supported")
            }
        case 3:
            guard [16, 32, 64].contains(bitsPerSample) else {
                throw ImageError(.unsupported, "TIFF floating-point samples of \(bitsPerSample) bits are not supported (16, 32 and 64 are)")
            }
        default: throw ImageError(.unsupported, "TIFF sample format \(sampleFormat) is not supported")
        }
        guard planarConfiguration == 1 || planarConfiguration == 2 else {
            throw ImageError(.malformed, "TIFF planar configuration \(planarConfiguration)")
        }
        let needed: Int
        switch photometric {
        case Self.minIsWhite, Self.minIsBlack: needed = 1
        case Self.rgb: needed = 3
        case Self.palette:
            needed = 1
            // Indices are unsigned integers.
            guard sampleFormat == 1, bitsPerSample <= 16 else {
                let kind = sampleFormat == 2 ? "signed " : sampleFormat == 3 ? "floating-point " : ""
                throw ImageError(.malformed, "TIFF palette image of \(bitsPerSample)-bit \(kind)samples")
            }
        case Self.separated:
            guard isCMYK else { throw ImageError(.unsupported, "TIFF separated samples other than CMYK are not supported") }
            needed = 4
        case Self.yCbCr:
            guard compression == Self.jpegCompression else {
                throw ImageError(.unsupported, "TIFF YCbCr samples are only read JPEG-compressed")
            }
            needed = 3
        default:
            throw ImageError(.unsupported, "TIFF photometric interpretation \(photometric) is not supported")
        }
        guard colorSamples >= needed else {
            throw ImageError(.malformed, "TIFF image has \(colorSamples) colour samples, its photometric interpretation needs \(needed)")
        }
    }

    /// Whether this directory can stand in for `page` at a smaller size: the same samples, a
    /// smaller size, and the page's aspect (to one pixel of rounding each way).
    func isLevel(of page: TIFFImageDirectory) -> Bool {
        guard width < page.width, height < page.height, photometric == page.photometric,
              samplesPerPixel == page.samplesPerPixel, bitsPerSample == page.bitsPerSample,
              sampleFormat == page.sampleFormat, extraSamples == page.extraSamples else { return false }
        let scaledHeight = Double(page.height) * Double(width) / Double(page.width)
        return abs(scaledHeight - Double(height)) <= max(1, Double(page.height) / Double(page.width))
    }
}

/// The alpha of a TIFF's first extra sample.
public enum TIFFAlpha: Sendable, Hashable {
    /// Premultiplied colour (ExtraSamples 1).
    case associated
    /// Straight colour (ExtraSamples 2).
    case unassociated
}

/// The tags the header reads.
enum TIFFTag: UInt16 {
    case newSubfileType = 254, imageWidth = 256, imageLength = 257, bitsPerSample = 258, compression = 259
    case photometric = 262, stripOffsets = 273, orientation = 274, samplesPerPixel = 277, rowsPerStrip = 278
    case stripByteCounts = 279, planarConfiguration = 284, tileWidth = 322, tileLength = 323, tileOffsets = 324
    case tileByteCounts = 325, subIFDs = 330, inkSet = 332, extraSamples = 338, sampleFormat = 339
    case iccProfile = 34675

    var name: String {
        switch self {
        case .imageWidth: "ImageWidth"
        case .imageLength: "ImageLength"
        case .tileLength: "TileLength"
        case .stripOffsets: "StripOffsets"
        case .tileOffsets: "TileOffsets"
        default: "tag \(rawValue)"
        }
    }
}

/// One IFD entry: its tag, type, count, and where its value is (inline in the entry, or at an offset).
struct TIFFEntry: Hashable {
    let tag: UInt16
    let type: UInt16
    let count: UInt64
    /// Where the value's bytes start in the file.
    let valueOffset: UInt64

    /// The bytes of one value of `type` (0 for types the header never reads as numbers).
    var typeSize: Int {
        switch type {
        case 1, 2, 6, 7: 1      // BYTE, ASCII, SBYTE, UNDEFINED
        case 3, 8: 2            // SHORT, SSHORT
        case 4, 9, 11, 13: 4    // LONG, SLONG, FLOAT, IFD
        case 5, 10, 12, 16, 17, 18: 8    // RATIONAL, SRATIONAL, DOUBLE, LONG8, SLONG8, IFD8
        default: 0
        }
    }
}

/// The entries of one IFD and the offset of the next.
struct TIFFDirectoryEntries: Hashable {
    let offset: UInt64
    let entries: [UInt16: TIFFEntry]
    let next: UInt64

    func entry(_ tag: TIFFTag) -> TIFFEntry? { entries[tag.rawValue] }

    /// The first value of an integer tag, or nil when the tag is absent.
    func value(of tag: TIFFTag, _ reader: inout TIFFReader) throws(ImageError) -> UInt64? {
        try values(of: tag, &reader, maxCount: 1)?.first
    }

    /// Up to `maxCount` values of an integer tag, nil when absent.
    func values(of tag: TIFFTag, _ reader: inout TIFFReader, maxCount: Int) throws(ImageError) -> [UInt64]? {
        guard let entry = entry(tag) else { return nil }
        return try reader.integers(of: entry, limit: maxCount)
    }

    /// Exactly `expected` offsets (a strip or tile array); a different count is malformed.
    func chunkValues(of tag: TIFFTag, _ reader: inout TIFFReader, expected: Int) throws(ImageError) -> [UInt64] {
        guard let values = try chunkValuesIfPresent(of: tag, &reader, expected: expected) else {
            throw ImageError(.malformed, "TIFF image directory has no \(tag.name)")
        }
        return values
    }

    func chunkValuesIfPresent(of tag: TIFFTag, _ reader: inout TIFFReader, expected: Int) throws(ImageError) -> [UInt64]? {
        guard let entry = entry(tag) else { return nil }
        guard entry.count == UInt64(expected) else {
            throw ImageError(.malformed, "TIFF image lists \(entry.count) \(tag == .stripOffsets || tag == .stripByteCounts ? "strips" : "tiles"), its size needs \(expected)")
        }
        return try reader.integers(of: entry, limit: expected)
    }
}

/// Positioned reads of TIFF integers in the file's byte order, every array bounded by the file's size.
struct TIFFReader {
    var windowed: WindowedReader
    var bigEndian = false
    var isBigTIFF = false

    /// An unsigned integer of `size` bytes at `offset`; a read past the end is a truncation.
    mutating func uint(at offset: UInt64, size: Int) throws(ImageError) -> UInt64 {
        guard offset <= UInt64(Int.max) else { throw TIFFHeader.truncated }
        let bytes = try windowed.bytes(at: Int(offset), count: size)
        guard bytes.count == size else { throw TIFFHeader.truncated }
        return Self.integer(bytes, bigEndian: bigEndian)
    }

    static func integer(_ bytes: ArraySlice<UInt8>, bigEndian: Bool) -> UInt64 {
        var value: UInt64 = 0
        if bigEndian {
            for byte in bytes { value = value << 8 | UInt64(byte) }
        } else {
            for byte in bytes.reversed() { value = value << 8 | UInt64(byte) }
        }
        return value
    }

    /// The IFD at `offset`: its entries (the first of a repeated tag wins) and the next offset.
    mutating func directory(at offset: UInt64) throws(ImageError) -> TIFFDirectoryEntries {
        let size = UInt64(windowed.size)
        let countBytes = isBigTIFF ? 8 : 2, entryBytes: UInt64 = isBigTIFF ? 20 : 12, nextBytes = isBigTIFF ? 8 : 4
        guard offset < size, size - offset >= UInt64(countBytes) else {
            throw ImageError(.malformed, "TIFF image directory at offset \(offset) lies past the end of the file")
        }
        let count = try uint(at: offset, size: countBytes)
        guard count > 0 else { throw ImageError(.malformed, "TIFF image directory at offset \(offset) is empty") }
        guard count <= (size - offset - UInt64(countBytes)) / entryBytes else {
            throw ImageError(.malformed, "TIFF image directory at offset \(offset) claims \(count) entries, more than the file holds")
        }
        let start = offset + UInt64(countBytes)
        let table = Array(try windowed.bytes(at: Int(start), count: Int(count * entryBytes)))
        guard table.count == Int(count * entryBytes) else { throw TIFFHeader.truncated }
        var entries: [UInt16: TIFFEntry] = [:]
        for index in 0 ..< Int(count) {
            let at = index * Int(entryBytes)
            let field = table[at ..< at + Int(entryBytes)]
            let tag = UInt16(Self.integer(field.prefix(2), bigEndian: bigEndian))
            let type = UInt16(Self.integer(field.dropFirst(2).prefix(2), bigEndian: bigEndian))
            let valueCount = Self.integer(field.dropFirst(4).prefix(isBigTIFF ? 8 : 4), bigEndian: bigEndian)
            let inlineBytes = isBigTIFF ? 8 : 4
            let valueField = start + UInt64(at) + (isBigTIFF ? 12 : 8)
            var entry = TIFFEntry(tag: tag, type: type, count: valueCount, valueOffset: valueField)
            let (total, overflow) = valueCount.multipliedReportingOverflow(by: UInt64(max(entry.typeSize, 1)))
            if overflow || total > UInt64(inlineBytes) {
                let pointer = Self.integer(field.suffix(inlineBytes), bigEndian: bigEndian)
                entry = TIFFEntry(tag: tag, type: type, count: valueCount, valueOffset: pointer)
            }
            if entries[tag] == nil { entries[tag] = entry }
        }
        let next = try uint(at: start + count * entryBytes, size: nextBytes)
        return TIFFDirectoryEntries(offset: offset, entries: entries, next: next)
    }

    /// Up to `limit` integer values of `entry` (BYTE, SHORT, LONG, LONG8, IFD, IFD8); its whole
    /// array must lie in the file.
    mutating func integers(of entry: TIFFEntry, limit: Int) throws(ImageError) -> [UInt64] {
        let size = entry.typeSize
        guard [1, 3, 4, 16, 13, 18].contains(entry.type) else {
            throw ImageError(.malformed, "TIFF tag \(entry.tag) has type \(entry.type), not an integer type")
        }
        let file = UInt64(windowed.size)
        let (total, overflow) = entry.count.multipliedReportingOverflow(by: UInt64(size))
        guard !overflow, entry.valueOffset <= file, total <= file - entry.valueOffset else {
            throw ImageError(.malformed, "TIFF tag \(entry.tag)'s \(entry.count) values lie past the end of the file")
        }
        let count = Int(min(entry.count, UInt64(limit)))
        let bytes = try windowed.bytes(at: Int(entry.valueOffset), count: count * size)
        guard bytes.count == count * size else { throw TIFFHeader.truncated }
        var values: [UInt64] = []
        values.reserveCapacity(count)
        var at = bytes.startIndex
        for _ in 0 ..< count {
            values.append(Self.integer(bytes[at ..< at + size], bigEndian: bigEndian))
            at += size
        }
        return values
    }

    /// The raw bytes of `entry` (an ICC profile), nil when they run past the end.
    mutating func rawBytes(of entry: TIFFEntry) throws(ImageError) -> [UInt8]? {
        let file = UInt64(windowed.size)
        guard entry.valueOffset <= file, entry.count <= file - entry.valueOffset else { return nil }
        return Array(try windowed.bytes(at: Int(entry.valueOffset), count: Int(entry.count)))
    }
}
