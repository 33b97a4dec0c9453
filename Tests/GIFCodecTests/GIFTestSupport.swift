// Helpers for the GIF tests: the fixtures and their cases (written by
// scripts/make-gif-fixtures.py from what Pillow read), full-size decoding, and GIF files built
// byte by byte for the hostile tests.

import Foundation
import GIFCodec
import PNGCodec
import Raster
@_exported import TestSupport
import Testing

/// This target's fixtures.
let fixtureFolder = FixtureFolder(in: .module)

/// The lines of `cases.txt`.
let fixtureCases: [GIFFixture] = fixtureFolder.goldenFields("cases.txt").compactMap(GIFFixture.init)

/// One fixture GIF and what Pillow says about it.
struct GIFFixture: Sendable, CustomTestStringConvertible {
    let name: String
    let canvasWidth: Int, canvasHeight: Int
    let frameCount: Int
    let left: Int, top: Int, frameWidth: Int, frameHeight: Int
    let interlaced: Bool
    let transparentIndex: Int?
    let version: String
    let rowFormat: PixelFormat
    let tileWidth: Int, tileHeight: Int

    init?(_ fields: [String]) {
        guard fields.count == 14 else { return nil }
        let numbers = fields[1...9].compactMap { Int($0) } + fields[12...13].compactMap { Int($0) }
        guard numbers.count == 11 else { return nil }
        name = fields[0]
        (canvasWidth, canvasHeight, frameCount) = (numbers[0], numbers[1], numbers[2])
        (left, top, frameWidth, frameHeight) = (numbers[3], numbers[4], numbers[5], numbers[6])
        interlaced = numbers[7] == 1
        transparentIndex = numbers[8] < 0 ? nil : numbers[8]
        version = fields[10]
        rowFormat = fields[11] == "rgb8" ? .rgb8 : .rgba8
        (tileWidth, tileHeight) = (numbers[9], numbers[10])
    }

    var path: String { fixtureFolder.path(name + ".gif") }
    var goldenPath: String { fixtureFolder.path(name + ".golden.png") }
    var testDescription: String { name }
}

/// Every row of a decoder, widened to straight RGBA8 (opaque for `.rgb8`).
func decodeRGBA(_ decoder: GIFDecoder) throws -> [UInt8] {
    var pixels: [UInt8] = []
    pixels.reserveCapacity(decoder.width * decoder.height * 4)
    try decoder.readRows { _, row in
        if decoder.rowFormat == .rgb8 {
            for pixel in stride(from: 0, to: row.count, by: 3) { pixels += row[pixel ..< pixel + 3]; pixels.append(255) }
        } else {
            pixels += row
        }
    }
    return pixels
}

/// The pixels where `a` and `b` differ, counting colour only where the alpha is not 0 (the
/// colour of a fully transparent pixel is not part of the picture).
func visibleDifferences(_ a: [UInt8], _ b: [UInt8]) -> Int {
    precondition(a.count == b.count)
    var count = 0
    for pixel in stride(from: 0, to: a.count, by: 4) {
        let alpha = a[pixel + 3]
        if alpha != b[pixel + 3] || (alpha != 0 && a[pixel ..< pixel + 3] != b[pixel ..< pixel + 3]) { count += 1 }
    }
    return count
}

/// Opens and decodes a GIF held in `bytes`: the error thrown (nil when every row was read), the
/// decoder's trailing problem and the rows delivered.
func decodeOutcome(_ bytes: [UInt8], limits: PNGLimits = PNGLimits()) -> (error: PNGError?, trailing: PNGError?, rows: Int, pixels: [UInt8]) {
    let folder = TemporaryFolder("gif-test")
    let path = folder.file("input.gif")
    precondition(FileManager.default.createFile(atPath: path, contents: Data(bytes)), "cannot write \(path)")
    do {
        let decoder = try GIFDecoder(file: InputFile(path: path), limits: limits)
        let pixels = try decodeRGBA(decoder)
        return (nil, decoder.trailingProblem, pixels.count / max(1, decoder.width * 4), pixels)
    } catch let error as PNGError {
        return (error, nil, 0, [])
    } catch {
        return (PNGError(.io, "unexpected error \(error)"), nil, 0, [])
    }
}

/// GIF files byte by byte. Frames are coded with "plain" LZW: a clear code before every run
/// of `2^codeSize - 2` literals keeps the code width at codeSize + 1, so the data is exactly
/// predictable and easy to damage on purpose.
enum GIFBytes {
    static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF)] }

    /// Header and logical screen descriptor, with a global table of `palette` (RGB triples,
    /// padded with black to a power of two) when given.
    static func screen(width: Int, height: Int, palette: [UInt8]? = nil, version: String = "89a") -> [UInt8] {
        var bytes = Array("GIF\(version)".utf8) + le16(width) + le16(height)
        guard let palette else { return bytes + [0, 0, 0] }
        let table = paddedTable(palette)
        bytes += [0x80 | UInt8(table.bits - 1), 0, 0] + table.bytes
        return bytes
    }

    static func paddedTable(_ palette: [UInt8]) -> (bits: Int, bytes: [UInt8]) {
        var bits = 1
        while 3 << bits < palette.count { bits += 1 }
        return (bits, palette + [UInt8](repeating: 0, count: (3 << bits) - palette.count))
    }

    /// A graphic control extension with `transparent` as the transparent index.
    static func graphicControl(transparent: Int?) -> [UInt8] {
        [0x21, 0xF9, 4, transparent == nil ? 0 : 1, 0, 0, UInt8(transparent ?? 0), 0]
    }

    /// An image descriptor and its data: `indices` row by row (in stored order).
    static func frame(left: Int = 0, top: Int = 0, width: Int, height: Int, indices: [UInt8], codeSize: Int = 2,
                      interlaced: Bool = false, localPalette: [UInt8]? = nil) -> [UInt8] {
        var flags: UInt8 = interlaced ? 0x40 : 0
        var table: [UInt8] = []
        if let localPalette {
            let padded = paddedTable(localPalette)
            flags |= 0x80 | UInt8(padded.bits - 1)
            table = padded.bytes
        }
        return [0x2C] + le16(left) + le16(top) + le16(width) + le16(height) + [flags] + table
            + [UInt8(codeSize)] + subBlocks(plainLZW(indices, codeSize: codeSize))
    }

    static func plainLZW(_ indices: [UInt8], codeSize: Int) -> [UInt8] {
        let clear = 1 << codeSize, width = codeSize + 1
        let run = max(1, (1 << codeSize) - 2)
        var codes: [Int] = []
        for (i, index) in indices.enumerated() {
            if i % run == 0 { codes.append(clear) }
            codes.append(Int(index))
        }
        codes.append(clear + 1)
        var out: [UInt8] = [], bits = 0, count = 0
        for code in codes {
            bits |= code << count
            count += width
            while count >= 8 { out.append(UInt8(bits & 0xFF)); bits >>= 8; count -= 8 }
        }
        if count > 0 { out.append(UInt8(bits & 0xFF)) }
        return out
    }

    static func subBlocks(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var offset = 0
        while offset < data.count {
            let length = min(255, data.count - offset)
            out.append(UInt8(length))
            out += data[offset ..< offset + length]
            offset += length
        }
        return out + [0]
    }

    static let trailer: [UInt8] = [0x3B]

    /// A small valid GIF: 4×3, four colours, index = (x + y) % 4.
    static let small: [UInt8] = {
        let indices = (0..<12).map { UInt8(($0 % 4 + $0 / 4) % 4) }
        return screen(width: 4, height: 3, palette: [255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255])
            + frame(width: 4, height: 3, indices: indices) + trailer
    }()
}
