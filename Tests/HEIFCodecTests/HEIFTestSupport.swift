// Helpers for the HEIF tests: the fixture cases written by scripts/make-heif-fixtures.py, full
// decodes, goldens and PSNR.

import Foundation
import HEIFCodec
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

let heifCases: [HEIFCase] = fixtureFolder.goldenFields("cases.txt").compactMap { fields in
    guard fields.count == 6, let width = Int(fields[1]), let height = Int(fields[2]), let bits = Int(fields[3]) else { return nil }
    return HEIFCase(file: fields[0], width: width, height: height, bitDepth: bits, hasAlpha: fields[4] == "1",
                    reference: fields[5])
}

/// Every row of a decoder, as RGBA8 (opaque when the rows are RGB).
func decodeRGBA(_ decoder: HEIFDecoder) throws -> [UInt8] {
    var pixels: [UInt8] = []
    pixels.reserveCapacity(decoder.width * decoder.height * 4)
    try decoder.readRows { _, row in
        if decoder.rowFormat == .rgba8 {
            pixels.append(contentsOf: row)
        } else {
            for at in stride(from: 0, to: row.count, by: 3) { pixels += [row[at], row[at + 1], row[at + 2], 255] }
        }
    }
    return pixels
}

/// Peak signal-to-noise ratio of two equally long 8-bit buffers, in dB (infinity when equal).
func peakSignalToNoise(_ a: [UInt8], _ b: [UInt8]) -> Double {
    precondition(a.count == b.count && !a.isEmpty)
    var squares = 0.0
    for index in a.indices {
        let difference = Double(Int(a[index]) - Int(b[index]))
        squares += difference * difference
    }
    let meanSquare = squares / Double(a.count)
    return meanSquare == 0 ? .infinity : 10 * log10(255 * 255 / meanSquare)
}
