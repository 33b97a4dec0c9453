// Helpers for the JPEG tests: fixtures and their cases, the tile pipeline the sheet will use
// (decode at scale → resample → orient → composite over white), PSNR, and byte surgery on
// JPEG files for the hostile tests.

import Foundation
import JPEGCodec
import CodecCore
import PNGCodec
import Raster
@_exported import TestSupport
import Testing

/// This target's fixtures.
let fixtureFolder = FixtureFolder(in: .module)

/// The lines of `cases.txt` (written by make_fixtures.py from what Pillow read).
let fixtureCases: [FixtureCase] = {
    let text = (try? fixtureFolder.text("cases.txt")) ?? ""
    return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap(FixtureCase.init)
}()

/// One fixture JPEG and what Pillow says about it.
struct FixtureCase: Sendable, CustomTestStringConvertible {
    let name: String
    let tileWidth: Int, tileHeight: Int
    let storedWidth: Int, storedHeight: Int
    let components: Int
    let progressive: Bool
    let orientation: Int

    init?(_ line: Substring) {
        let fields = line.split(separator: " ")
        guard fields.count == 8 else { return nil }
        let numbers = fields.dropFirst().compactMap { Int($0) }
        guard numbers.count == 7 else { return nil }
        name = String(fields[0])
        (tileWidth, tileHeight, storedWidth, storedHeight) = (numbers[0], numbers[1], numbers[2], numbers[3])
        components = numbers[4]
        progressive = numbers[5] == 1
        orientation = numbers[6]
    }

    var jpegPath: String { fixtureFolder.path(name + ".jpg") }
    var goldenPath: String { fixtureFolder.path(name + ".golden.png") }
    var testDescription: String { name }
}

/// A tile as the sheet will draw it: RGB8 over white, display orientation.
struct RenderedTile {
    let width: Int, height: Int
    let rgb: [UInt8]
    let scaleEighths: Int
    let trailingProblem: ImageError?
}

/// Decodes `path` at the scale chosen for a `tileWidth` × `tileHeight` tile (display
/// orientation), resamples in stored orientation, orients, composites over white.
func renderTile(_ path: String, tileWidth: Int, tileHeight: Int, limits: DecodeLimits = DecodeLimits()) throws -> RenderedTile {
    let file = try InputFile(path: path)
    let header = try JPEGHeader(file: file)
    let (storedWidth, storedHeight) = header.orientation.displaySize(width: tileWidth, height: tileHeight)
    let decoder = try JPEGDecoder(file: file, limits: limits, minimumWidth: storedWidth, minimumHeight: storedHeight)
    let rgb = try tileOverWhite(decoder, orientation: header.orientation, tileWidth: tileWidth, tileHeight: tileHeight)
    return RenderedTile(width: tileWidth, height: tileHeight, rgb: rgb, scaleEighths: decoder.scaleEighths,
                        trailingProblem: decoder.trailingProblem)
}

/// Byte surgery on a JPEG file: where its segments are.
enum JPEGSurgery {
    /// Offsets of each marker segment before the first scan: (marker, offset of the FF).
    static func segments(_ bytes: [UInt8]) -> [(marker: UInt8, offset: Int)] {
        var result: [(UInt8, Int)] = []
        var i = 2
        while i + 3 < bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1]
            result.append((marker, i))
            if marker == 0xDA { break }
            i += 2 + (Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]))
        }
        return result
    }

    static func offset(of marker: UInt8, in bytes: [UInt8]) -> Int? {
        segments(bytes).first { $0.marker == marker }?.offset
    }

    /// Where the first scan's entropy-coded data starts.
    static func scanDataStart(_ bytes: [UInt8]) -> Int {
        let sos = offset(of: 0xDA, in: bytes)!
        return sos + 2 + (Int(bytes[sos + 2]) << 8 | Int(bytes[sos + 3]))
    }

    /// The offset of the first SOFn (C0, C1, C2).
    static func frameOffset(_ bytes: [UInt8]) -> Int {
        segments(bytes).first { [0xC0, 0xC1, 0xC2].contains($0.marker) }!.offset
    }

    /// The file with its frame header claiming `width` × `height`.
    static func withSize(_ bytes: [UInt8], width: Int, height: Int) -> [UInt8] {
        var copy = bytes
        let sof = frameOffset(bytes)
        copy[sof + 5] = UInt8(height >> 8); copy[sof + 6] = UInt8(height & 0xFF)
        copy[sof + 7] = UInt8(width >> 8); copy[sof + 8] = UInt8(width & 0xFF)
        return copy
    }

    /// `bytes` with an APP1 Exif segment (TIFF block `tiff`) inserted after SOI.
    static func withExif(_ bytes: [UInt8], tiff: [UInt8], declaredLength: Int? = nil) -> [UInt8] {
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = declaredLength ?? payload.count + 2
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + bytes.dropFirst(2)
    }

    /// A big-endian TIFF block whose IFD0 holds `entries` (tag, type, count, value), followed
    /// by `nextIFD` as its link.
    static func tiff(entries: [(tag: UInt16, type: UInt16, count: UInt32, value: UInt32)], ifdOffset: UInt32 = 8,
                     entryCount: UInt16? = nil, nextIFD: UInt32 = 0) -> [UInt8] {
        func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func be32(_ v: UInt32) -> [UInt8] { be16(UInt16(v >> 16)) + be16(UInt16(v & 0xFFFF)) }
        var block: [UInt8] = Array("MM".utf8) + be16(42) + be32(ifdOffset)
        block += be16(entryCount ?? UInt16(entries.count))
        for entry in entries {
            // A SHORT value sits left-justified in the 4-byte value field.
            let value = entry.type == 3 ? be16(UInt16(entry.value)) + [0, 0] : be32(entry.value)
            block += be16(entry.tag) + be16(entry.type) + be32(entry.count) + value
        }
        return block + be32(nextIFD)
    }
}

extension TemporaryFolder {
    /// Writes `bytes` to `name` here and returns the path.
    func write(_ name: String, _ bytes: [UInt8]) -> String {
        let path = file(name)
        precondition(FileManager.default.createFile(atPath: path, contents: Data(bytes)), "cannot write \(path)")
        return path
    }
}

/// Opens and decodes `path` for a `tile` × `tile` tile, returning the error thrown (nil when
/// every row was read) and the decoder's trailing problem.
func decodeOutcome(_ path: String, tile: Int = 32, limits: DecodeLimits = DecodeLimits()) -> (error: ImageError?, trailing: ImageError?, rows: Int) {
    do {
        let decoder = try JPEGDecoder(file: InputFile(path: path), limits: limits, minimumWidth: tile, minimumHeight: tile)
        var rows = 0
        try decoder.readRows { _, _ in rows += 1 }
        return (nil, decoder.trailingProblem, rows)
    } catch let error as ImageError {
        return (error, nil, 0)
    } catch {
        return (ImageError(.io, "unexpected error \(error)"), nil, 0)
    }
}
