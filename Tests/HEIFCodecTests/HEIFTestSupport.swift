// Helpers for the HEIF tests: the fixture cases written by scripts/make-heif-fixtures.py, full
// decodes, goldens and PSNR.

import HEIFCodec
import CodecCore
import PNGCodec
import Raster
@_exported import TestSupport
import Testing

/// This target's fixtures.
let fixtureFolder = FixtureFolder(in: .module)

/// One line of `cases.txt`: a fixture and what its reference decoder read.
struct HEIFCase: Sendable, CustomTestStringConvertible {
    let file: String
    let width: Int, height: Int
    let bitDepth: Int
    let hasAlpha: Bool
    /// "pillow-heif" (libheif 1.23 + libde265, the same HEVC decoder as ours) or "pillow-avif"
    /// (libavif + dav1d: another YCbCr→RGB conversion than libheif's).
    let reference: String

    var path: String { fixtureFolder.path(file) }
    var goldenPath: String { fixtureFolder.path(file + ".golden.png") }
    var testDescription: String { file }
}

let heifCases: [HEIFCase] = fixtureFolder.goldenLines("cases.txt") { fields in
    guard fields.count == 6, let width = Int(fields[1]), let height = Int(fields[2]), let bits = Int(fields[3]) else { return nil }
    return HEIFCase(file: fields[0], width: width, height: height, bitDepth: bits, hasAlpha: fields[4] == "1",
                    reference: fields[5])
}

/// Every row of a decoder, as it hands them out (RGB8 or RGBA8).
func decodeAll(_ decoder: HEIFDecoder) throws -> [UInt8] {
    var pixels: [UInt8] = []
    pixels.reserveCapacity(decoder.width * decoder.height * decoder.rowFormat.bytesPerPixel)
    try decoder.readRows { _, row in pixels.append(contentsOf: row) }
    return pixels
}

/// A golden PNG's pixels in `format` (its alpha dropped for `.rgb8`).
func goldenPixels(_ path: String, as format: PixelFormat) throws -> (width: Int, height: Int, pixels: [UInt8]) {
    guard format == .rgb8 else {
        let image = try PNGDecoder.decodeRGBA(contentsOfFile: path)
        return (image.width, image.height, image.pixels)
    }
    let image = try goldenRGB(path)
    return (image.width, image.height, image.rgb)
}
