// Helpers for the TIFF tests: the fixtures and their goldens (written by
// scripts/make-tiff-fixtures.py), whole decodes, and a builder of small TIFFs byte by byte.

import Foundation
import CodecCore
import Raster
@_exported import TestSupport
import Testing
import TIFFCodec

/// This target's fixtures.
let fixtureFolder = FixtureFolder(in: .module)

/// One line of `goldens.txt`.
struct TIFFFixture: Sendable, CustomTestStringConvertible {
    let name: String
    let width: Int, height: Int
    let pages: Int
    let orientation: Int
    let levels: Int
    /// "grey8", "rgb8" or "rgba8".
    let rows: String
    /// SHA-256 of the expected rows.
    let digest: String
    /// "pillow", "formula", "psnr" or "level" (a pyramid level's rows, no file of its own).
    let check: String

    var path: String { fixtureFolder.path(name + ".tif") }
    var fullGoldenPath: String { fixtureFolder.path(name + ".full.png") }
    var testDescription: String { name }
    var rowFormat: PixelFormat { rows == "grey8" ? .grey8 : rows == "rgba8" ? .rgba8 : .rgb8 }

    static let everyLine: [TIFFFixture] = {
        let lines = fixtureFolder.goldenFields("goldens.txt")
        precondition(!lines.isEmpty, "Tests/TIFFCodecTests/Fixtures/goldens.txt is missing or empty")
        return lines.map { fields in
            TIFFFixture(name: fields[0], width: Int(fields[1])!, height: Int(fields[2])!, pages: Int(fields[3])!,
                        orientation: Int(fields[4])!, levels: Int(fields[5])!, rows: fields[6], digest: fields[7], check: fields[8])
        }
    }()

    /// The fixtures that are files.
    static let all = everyLine.filter { $0.check != "level" }

    static func named(_ name: String) -> TIFFFixture { everyLine.first { $0.name == name }! }
}

/// Every row of a decoder, concatenated.
func allRows(_ decoder: some RowSource) throws -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(decoder.width * decoder.height * decoder.rowFormat.bytesPerPixel)
    try decoder.readRows { _, row in bytes.append(contentsOf: row) }
    return bytes
}

/// A minimum no fixture can shrink for: full-size decoding.
let fullSize = 1 << 20

func openDecoder(_ path: String, minimum: Int = fullSize, limits: DecodeLimits = DecodeLimits(),
                 memoryBudget: Int = TIFFDecoder.defaultMemoryBudget) throws -> TIFFDecoder {
    try TIFFDecoder(file: InputFile(path: path), limits: limits, minimumWidth: minimum, minimumHeight: minimum, memoryBudget: memoryBudget)
}

/// The row format and every row of `bytes` written to a file, decoded at full size.
func decodedRows(_ bytes: [UInt8]) throws -> (format: PixelFormat, rows: [UInt8]) {
    let folder = TemporaryFolder()
    let path = folder.file("built.tif")
    precondition(FileManager.default.createFile(atPath: path, contents: Data(bytes)), "cannot write \(path)")
    let decoder = try openDecoder(path)
    return (decoder.rowFormat, try allRows(decoder))
}

/// What opening and decoding `bytes` (written to a file) ends in: the error, or nil when every row was read.
func decodeError(_ bytes: [UInt8], limits: DecodeLimits = DecodeLimits(), memoryBudget: Int = TIFFDecoder.defaultMemoryBudget) -> ImageError? {
    let folder = TemporaryFolder()
    let path = folder.file("hostile.tif")
    precondition(FileManager.default.createFile(atPath: path, contents: Data(bytes)), "cannot write \(path)")
    do {
        let decoder = try openDecoder(path, limits: limits, memoryBudget: memoryBudget)
        _ = try allRows(decoder)
        return nil
    } catch let error as ImageError {
        return error
    } catch {
        return ImageError(.io, "\(error)")
    }
}

/// A little-endian classic TIFF built entry by entry: the header, `data` at offset 8, then one
/// IFD (entries sorted by tag; arrays of more than 4 bytes after the IFD).
struct TIFFBytes {
    struct Entry {
        let tag: UInt16
        /// 3 SHORT, 4 LONG, 7 UNDEFINED.
        let type: UInt16
        let values: [UInt32]
    }

    var entries: [Entry] = []
    var data: [UInt8] = []
    /// The IFD's next-IFD offset; nil: 0.
    var next: UInt32?
    /// Overrides of an entry's count (to claim more values than are written).
    var claimedCounts: [UInt16: UInt32] = [:]

    /// An 8-bit grey strip image of `width` × `height` with one strip at offset 8.
    static func grey(width: Int, height: Int) -> TIFFBytes {
        var tiff = TIFFBytes()
        tiff.data = (0 ..< width * height).map { UInt8(truncatingIfNeeded: $0 * 7) }
        tiff.set(256, 4, [UInt32(width)])
        tiff.set(257, 4, [UInt32(height)])
        tiff.set(258, 3, [8])
        tiff.set(259, 3, [1])
        tiff.set(262, 3, [1])
        tiff.set(273, 4, [8])
        tiff.set(277, 3, [1])
        tiff.set(278, 4, [UInt32(height)])
        tiff.set(279, 4, [UInt32(width * height)])
        return tiff
    }

    mutating func set(_ tag: UInt16, _ type: UInt16, _ values: [UInt32]) {
        entries.removeAll { $0.tag == tag }
        entries.append(Entry(tag: tag, type: type, values: values))
        entries.sort { $0.tag < $1.tag }
    }

    /// Where the IFD starts.
    var ifdOffset: Int { 8 + data.count + (data.count & 1) }

    var bytes: [UInt8] {
        var out: [UInt8] = [0x49, 0x49, 0x2A, 0x00]
        func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(v >> (8 * $0) & 0xFF) } }
        out += u32(ifdOffset)
        out += data
        if data.count & 1 == 1 { out.append(0) }
        var extra: [UInt8] = []
        let extraStart = ifdOffset + 2 + entries.count * 12 + 4
        var table: [UInt8] = u16(entries.count)
        for entry in entries {
            let size = entry.type == 3 ? 2 : entry.type == 7 ? 1 : 4
            let payload = entry.values.flatMap { value -> [UInt8] in
                size == 2 ? u16(Int(value)) : size == 1 ? [UInt8(truncatingIfNeeded: value)] : u32(Int(value))
            }
            table += u16(Int(entry.tag)) + u16(Int(entry.type)) + u32(Int(claimedCounts[entry.tag] ?? UInt32(entry.values.count)))
            if payload.count <= 4 {
                table += payload + [UInt8](repeating: 0, count: 4 - payload.count)
            } else {
                table += u32(extraStart + extra.count)
                extra += payload
            }
        }
        table += u32(Int(next ?? 0))
        return out + table + extra
    }
}
