// Helpers for the WebP tests: the fixtures and what Pillow said about them (written by
// scripts/make-webp-fixtures.py), whole decodes, and byte surgery for the hostile tests.

import Foundation
import CodecCore
import PNGCodec
import Raster
@_exported import TestSupport
import Testing
import WebPCodec

/// This target's fixtures.
let fixtureFolder = FixtureFolder(in: .module)

/// One fixture and what Pillow read from it (a line of `goldens.txt`).
struct WebPFixture: Sendable, CustomTestStringConvertible {
    let name: String
    /// Pillow's mode: "RGB" or "RGBA".
    let mode: String
    let width: Int, height: Int
    let frames: Int
    let orientation: Int
    let iccBytes: Int
    /// SHA-256 of Pillow's full-size decode (its `tobytes()`).
    let digest: String
    /// The tile of `tiles.txt` (display orientation).
    let tileWidth: Int, tileHeight: Int

    var path: String { fixtureFolder.path(name + ".webp") }
    var isLossy: Bool { !name.contains("lossless") }
    /// Pillow's full-size decode as PNG (lossy fixtures; the orientation variants share one).
    var fullGoldenPath: String { fixtureFolder.path((name.hasPrefix("cat-orientation-") ? "cat-orientation-1" : name) + ".full.png") }
    var tileGoldenPath: String { fixtureFolder.path(name + ".tile.png") }
    var testDescription: String { name }

    static let all: [WebPFixture] = {
        let tiles = Dictionary(uniqueKeysWithValues: fixtureFolder.goldenFields("tiles.txt").map { ($0[0], (Int($0[1])!, Int($0[2])!)) })
        return fixtureFolder.goldenFields("goldens.txt").map { fields in
            WebPFixture(name: fields[0], mode: fields[1], width: Int(fields[2])!, height: Int(fields[3])!,
                        frames: Int(fields[4])!, orientation: Int(fields[5])!, iccBytes: Int(fields[6])!, digest: fields[7],
                        tileWidth: tiles[fields[0]]!.0, tileHeight: tiles[fields[0]]!.1)
        }
    }()

    static func named(_ name: String) -> WebPFixture { all.first { $0.name == name }! }
}

/// Every row of a decoder, concatenated.
func allRows(_ decoder: WebPDecoder) throws -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(decoder.width * decoder.height * decoder.rowFormat.bytesPerPixel)
    try decoder.readRows { _, row in bytes.append(contentsOf: row) }
    return bytes
}

/// A tile minimum no fixture can be shrunk for: full-size decoding.
let fullSize = 1 << 20

/// Opens `path` for a `minimum` × `minimum` tile.
func openDecoder(_ path: String, minimum: Int = fullSize, limits: DecodeLimits = DecodeLimits()) throws -> WebPDecoder {
    try WebPDecoder(file: InputFile(path: path), limits: limits, minimumWidth: minimum, minimumHeight: minimum)
}

/// A Pillow golden PNG's pixels in `channels` (3 or 4) bytes a pixel.
func goldenPixels(_ path: String, channels: Int) throws -> [UInt8] {
    let image = try PNGDecoder.decodeRGBA(contentsOfFile: path)
    guard channels == 3 else { return image.pixels }
    return try goldenRGB(path).rgb
}


/// What decoding `bytes` (written to a file) at full size ends in: the error thrown (nil when
/// every row was read), the rows read, the trailing problem.
func decodeOutcome(_ bytes: [UInt8], limits: DecodeLimits = DecodeLimits()) -> (error: ImageError?, rows: Int, trailing: ImageError?) {
    let folder = TemporaryFolder()
    let path = folder.file("hostile.webp")
    precondition(FileManager.default.createFile(atPath: path, contents: Data(bytes)), "cannot write \(path)")
    do {
        let decoder = try openDecoder(path, limits: limits)
        var rows = 0
        try decoder.readRows { _, _ in rows += 1 }
        return (nil, rows, decoder.trailingProblem)
    } catch let error as ImageError {
        return (error, 0, nil)
    } catch {
        return (ImageError(.io, "unexpected error \(error)"), 0, nil)
    }
}

/// Byte surgery on WebP files.
enum WebPSurgery {
    static func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
    static func le24(_ value: Int) -> [UInt8] { Array(le32(value).prefix(3)) }

    static func chunk(_ name: String, _ payload: [UInt8]) -> [UInt8] {
        Array(name.utf8) + le32(payload.count) + payload + (payload.count % 2 == 1 ? [0] : [])
    }

    /// "RIFF", the size of what follows (or `declaredSize`), "WEBP", the chunks.
    static func riff(_ chunks: [[UInt8]], declaredSize: Int? = nil) -> [UInt8] {
        let body = Array("WEBP".utf8) + chunks.joined()
        return Array("RIFF".utf8) + le32(declaredSize ?? body.count) + body
    }

    static func vp8x(flags: UInt8, width: Int, height: Int) -> [UInt8] {
        chunk("VP8X", [flags, 0, 0, 0] + le24(width - 1) + le24(height - 1))
    }

    /// (name, offset of the chunk header) of each top-level chunk.
    static func chunks(_ bytes: [UInt8]) -> [(name: String, offset: Int, size: Int)] {
        var result: [(String, Int, Int)] = []
        var at = 12
        while at + 8 <= bytes.count {
            let size = Int(bytes[at + 4]) | Int(bytes[at + 5]) << 8 | Int(bytes[at + 6]) << 16 | Int(bytes[at + 7]) << 24
            result.append((String(decoding: bytes[at ..< at + 4], as: UTF8.self), at, size))
            at += 8 + size + (size & 1)
        }
        return result
    }

    static func offset(of name: String, in bytes: [UInt8]) -> Int { chunks(bytes).first { $0.name == name }!.offset }

    /// `bytes` with the 4 bytes at `at` replaced by `value`, little-endian.
    static func setting(_ bytes: [UInt8], le32 value: Int, at: Int) -> [UInt8] {
        var copy = bytes
        copy.replaceSubrange(at ..< at + 4, with: le32(value))
        return copy
    }
}
