// Helpers for the GIF tests: the fixtures and their cases (written by
// scripts/make-gif-fixtures.py from what Pillow read) and full-size decoding. GIF files built
// byte by byte are TestSupport's GIFBytes.

import Foundation
import GIFCodec
import CodecCore
import PNGCodec
import Raster
@_exported import TestSupport
import Testing

/// This target's fixtures.
let fixtureFolder = FixtureFolder(in: .module)

/// The lines of `cases.txt`.
let fixtureCases: [GIFFixture] = fixtureFolder.goldenLines("cases.txt", GIFFixture.init)

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
func decodeOutcome(_ bytes: [UInt8], limits: DecodeLimits = DecodeLimits()) -> (error: ImageError?, trailing: ImageError?, rows: Int, pixels: [UInt8]) {
    let folder = TemporaryFolder("gif-test")
    let path = folder.file("input.gif")
    precondition(FileManager.default.createFile(atPath: path, contents: Data(bytes)), "cannot write \(path)")
    do {
        let decoder = try GIFDecoder(file: InputFile(path: path), limits: limits)
        let pixels = try decodeRGBA(decoder)
        return (nil, decoder.trailingProblem, pixels.count / max(1, decoder.width * 4), pixels)
    } catch let error as ImageError {
        return (error, nil, 0, [])
    } catch {
        return (ImageError(.io, "unexpected error \(error)"), nil, 0, [])
    }
}
