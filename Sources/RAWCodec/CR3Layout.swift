import CodecCore
import Raster
import TIFFCodec

/// Where a Canon CR3's JPEGs lie, read by Masonry's own bounded walk of its ISOBMFF boxes (the
/// layout LibRaw's CR3 parser and ExifTool read), so that a card of CR3s is drawn from their
/// previews without LibRaw reading each whole file:
/// - `moov`'s Canon box (`uuid` 85c0b687-820f-11e0-8111-f4ce462b6a48): `CMT1`, a TIFF IFD0 whose
///   Orientation is LibRaw's `flip`; `THMB`, a 160×120 thumbnail (its JPEG's length at payload
///   byte 8, the JPEG at 16);
/// - each `trak`'s `stsd` entry `CRAW` (its width and height as a visual sample entry's, its own
///   boxes 82 bytes after its header): holding a `JPEG` box, the track is the camera's full-size
///   JPEG (LibRaw's thumbnail), its bytes at the track's `co64` offset for its `stsz` size;
///   holding `CMP1`, it is a raw track, whose size is the sensor's;
/// - the top-level preview box (`uuid` eaf42b5e-1c98-4b88-b9fb-b7dc406e4d16, then 8 bytes):
///   `PRVW`, a 1620×1080 preview (its JPEG's length at payload byte 12, the JPEG at 16), whose
///   own size is not checked, as LibRaw never reads it.
///
/// A box running past its parent refuses the file (a top-level one running past the end of a cut
/// file is read to the end), as do more than `maxBoxes`
/// boxes in one parent or a `moov` over `maxMovieBytes`; a JPEG's length is checked against
/// the file (`RAWHeader` refuses one past its end). Nothing is decoded here.
struct CR3Layout {
    /// The JPEGs' byte ranges in file order of discovery: thumbnail, full-size track, preview.
    private(set) var jpegs: [(offset: UInt64, length: UInt64)] = []
    /// CMT1's IFD0 Orientation, when it has one.
    private(set) var orientation: ExifOrientation?
    /// The largest raw track's pixels (0 without one).
    private(set) var sensorPixels = 0

    /// The most boxes read in one parent.
    static let maxBoxes = 256
    /// The largest `moov` read (a camera's is 10-100 KB).
    static let maxMovieBytes = 4 << 20

    private static let canonBox: [UInt8] = [0x85, 0xC0, 0xB6, 0x87, 0x82, 0x0F, 0x11, 0xE0, 0x81, 0x11, 0xF4, 0xCE, 0x46, 0x2B, 0x6A, 0x48]
    private static let previewBox: [UInt8] = [0xEA, 0xF4, 0x2B, 0x5E, 0x1C, 0x98, 0x4B, 0x88, 0xB9, 0xFB, 0xB7, 0xDC, 0x40, 0x6E, 0x4D, 0x16]

    /// One box: its type and where its payload lies, in file offsets.
    private struct Box {
        let type: String
        let start: Int
        let payload: Range<Int>
    }

    private var reader: WindowedReader

    init(_ reader: WindowedReader) throws(ImageError) {
        self.reader = reader
        for box in try boxes(in: 0 ..< reader.size, parent: nil) {
            switch box.type {
            case "moov":
                guard box.payload.count <= Self.maxMovieBytes else {
                    throw Self.malformed("its 'moov' box of \(box.payload.count) bytes is over the \(Self.maxMovieBytes)-byte limit")
                }
                try readMovie(box)
            case "uuid":
                // 16 bytes of UUID, then 8 of Canon's, then the PRVW box. Its own size is not
                // checked (ExifTool's stripped files leave it larger than its parent); its JPEG's
                // length is checked against the file.
                let start = box.payload.lowerBound + 24
                if try uuid(of: box) == Self.previewBox, Array(try self.reader.bytes(at: start + 4, count: 4)) == Array("PRVW".utf8) {
                    try addJPEG(in: Box(type: "PRVW", start: start, payload: start + 8 ..< max(start + 8, box.payload.upperBound)),
                                lengthAt: 12, dataAt: 16)
                }
            default:
                continue
            }
        }
    }

    private static func malformed(_ detail: String) -> ImageError {
        ImageError(.malformed, "malformed CR3 file: \(detail)")
    }

    private mutating func uint(_ at: Int, _ size: Int) throws(ImageError) -> UInt64? {
        let bytes = try reader.bytes(at: at, count: size)
        guard bytes.count == size else { return nil }
        return bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The boxes filling `range`; a size of 0 (to the end) only at the top level.
    private mutating func boxes(in range: Range<Int>, parent: Box?) throws(ImageError) -> [Box] {
        var found: [Box] = []
        var offset = range.lowerBound
        let place = parent.map { "its '\($0.type)' box at byte \($0.start)" } ?? "the file"
        while offset + 8 <= range.upperBound {
            guard found.count < Self.maxBoxes else { throw Self.malformed("more than \(Self.maxBoxes) boxes in \(place)") }
            let typeBytes = try reader.bytes(at: offset + 4, count: 4)
            guard let size32 = try uint(offset, 4), typeBytes.count == 4 else { throw Self.malformed("truncated box header at byte \(offset)") }
            let type = fourCC(typeBytes)
            var header = 8
            var size = Int(size32)
            if size32 == 1 {
                guard let size64 = try uint(offset + 8, 8) else { throw Self.malformed("truncated box header at byte \(offset)") }
                header = 16
                size = size64 > UInt64(range.upperBound - offset) ? Int.max : Int(size64)
            } else if size32 == 0 {
                guard parent == nil else { throw Self.malformed("box '\(type)' at byte \(offset) has size 0 inside \(place)") }
                size = range.upperBound - offset
            }
            guard size >= header else { throw Self.malformed("box '\(type)' at byte \(offset) claims \(size) bytes, less than its header") }
            if size > range.upperBound - offset {
                // A cut copy (a card read short) ends inside its last box, `mdat`: read what is
                // there; a JPEG cut short is still refused, by its length.
                guard parent == nil else { throw Self.malformed("box '\(type)' at byte \(offset) runs past the end of \(place)") }
                size = range.upperBound - offset
            }
            found.append(Box(type: type, start: offset, payload: offset + header ..< offset + size))
            offset += size
        }
        return found
    }

    private mutating func uuid(of box: Box) throws(ImageError) -> [UInt8] {
        Array(try reader.bytes(at: box.payload.lowerBound, count: min(16, box.payload.count)))
    }

    /// A JPEG whose length is the 32-bit field `lengthAt` bytes into `box`'s payload and whose
    /// bytes start `dataAt` bytes into it.
    private mutating func addJPEG(in box: Box, lengthAt: Int, dataAt: Int) throws(ImageError) {
        guard let length = try uint(box.payload.lowerBound + lengthAt, 4), length > 0 else { return }
        jpegs.append((UInt64(box.payload.lowerBound + dataAt), length))
    }

    private mutating func readMovie(_ movie: Box) throws(ImageError) {
        for box in try boxes(in: movie.payload, parent: movie) {
            if box.type == "uuid", try uuid(of: box) == Self.canonBox {
                for item in try boxes(in: box.payload.lowerBound + 16 ..< box.payload.upperBound, parent: box) {
                    if item.type == "CMT1" { try readOrientation(item) }
                    if item.type == "THMB" { try addJPEG(in: item, lengthAt: 8, dataAt: 16) }
                }
            } else if box.type == "trak" {
                try readTrack(box)
            }
        }
    }

    /// CMT1 is a whole little TIFF (offsets from its own start): its IFD0's Orientation.
    private mutating func readOrientation(_ box: Box) throws(ImageError) {
        guard box.payload.count <= 1 << 16 else { return }
        let tiffBytes = Array(try reader.bytes(at: box.payload.lowerBound, count: box.payload.count))
        guard var tiff = try? TIFFStructure(WindowedReader(bytes: tiffBytes)),
              let first = try? tiff.directory(at: tiff.firstDirectory),
              let value = try? tiff.integer(RAWHeader.Tag.orientation, in: first) else { return }
        orientation = ExifOrientation(rawValue: Int(clamping: value)) ?? .up
    }

    /// A track's sample table: its `CRAW` entry, `stsz` and `co64`.
    private mutating func readTrack(_ track: Box) throws(ImageError) {
        var table = track
        for name in ["mdia", "minf", "stbl"] {
            guard let inner = try boxes(in: table.payload, parent: table).first(where: { $0.type == name }) else { return }
            table = inner
        }
        var isJPEG = false
        var rawSize: (width: Int, height: Int)?
        var sampleSize: UInt64?
        var sampleOffset: UInt64?
        for box in try boxes(in: table.payload, parent: table) {
            switch box.type {
            case "stsd":
                // version and flags, entry count, then the first entry.
                let entries = box.payload.lowerBound + 8 ..< box.payload.upperBound
                guard entries.lowerBound <= entries.upperBound,
                      let entry = try boxes(in: entries, parent: box).first, entry.type == "CRAW" else { continue }
                guard let width = try uint(entry.start + 32, 2), let height = try uint(entry.start + 34, 2) else { continue }
                let children = entry.start + 8 + 82 ..< entry.payload.upperBound
                guard children.lowerBound <= children.upperBound else { continue }
                for child in try boxes(in: children, parent: entry) {
                    if child.type == "JPEG" { isJPEG = true }
                    if child.type == "CMP1" { rawSize = (Int(width), Int(height)) }
                }
            case "stsz":
                // version and flags, sample size, count, then each size when the sample size is 0.
                guard let size = try uint(box.payload.lowerBound + 4, 4) else { continue }
                sampleSize = size != 0 ? size : try uint(box.payload.lowerBound + 12, 4)
            case "co64":
                guard let count = try uint(box.payload.lowerBound + 4, 4), count > 0 else { continue }
                sampleOffset = try uint(box.payload.lowerBound + 8, 8)
            default:
                continue
            }
        }
        if let rawSize { sensorPixels = max(sensorPixels, RAWHeader.pixels(rawSize)) }
        if isJPEG, let sampleSize, let sampleOffset, sampleSize > 0 { jpegs.append((sampleOffset, sampleSize)) }
    }
}
