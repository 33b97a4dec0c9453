import BitmapText
import Foundation
import CodecCore
import PNGCodec
import Raster
@_exported import TestSupport

/// A small sheet in memory: `channels` bytes a pixel, rows back to back.
struct Canvas: Equatable {
    let width: Int
    let height: Int
    let channels: Int
    var bytes: [UInt8]

    init(width: Int, height: Int, channels: Int, background: RGBA8Color) {
        self.width = width
        self.height = height
        self.channels = channels
        bytes = [UInt8](repeating: 0, count: width * height * channels)
        bytes.withUnsafeMutableBufferPointer { fillRow($0, with: background, channels: channels) }
    }

    /// Runs `paint` with the row accessor the painters take (rows outside the canvas: nil).
    mutating func paint(_ paint: ((Int) -> UnsafeMutableBufferPointer<UInt8>?) -> Void) {
        let (width, height, channels) = (self.width, self.height, self.channels)
        bytes.withUnsafeMutableBufferPointer { all in
            paint { y in
                guard (0..<height).contains(y) else { return nil }
                return UnsafeMutableBufferPointer(rebasing: all[(y * width * channels)..<((y + 1) * width * channels)])
            }
        }
    }

    mutating func draw(_ line: TextLine, font: BitmapFont, color: RGBA8Color, x: Int, y: Int, clip: PixelRect? = nil) {
        let clip = clip ?? (0, 0, width, height)
        let channels = self.channels
        paint { TextPainter.draw(line, font: font, color: color, x: x, y: y, clip: clip, channels: channels, row: $0) }
    }

    /// The pixel at (x, y), its bytes.
    func pixel(_ x: Int, _ y: Int) -> ArraySlice<UInt8> {
        bytes[((y * width + x) * channels)..<((y * width + x + 1) * channels)]
    }

    /// The canvas as the RGBA8 pixels a PNG decoder gives (alpha 255 for RGB).
    var rgba: [UInt8] {
        guard channels == 3 else { return bytes }
        var result = [UInt8]()
        result.reserveCapacity(width * height * 4)
        for start in stride(from: 0, to: bytes.count, by: 3) { result += bytes[start..<(start + 3)] + [255] }
        return result
    }

    /// Writes the canvas as a PNG (for looking at it).
    func writePNG(to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown) }
        defer { close(descriptor) }
        let encoder = try PNGEncoder(fileDescriptor: descriptor, width: width, height: height,
                                     format: channels == 4 ? .rgba8 : .rgb8)
        try bytes.withUnsafeBufferPointer { all in
            for y in 0..<height {
                try encoder.writeRow(UnsafeBufferPointer(rebasing: all[(y * width * channels)..<((y + 1) * width * channels)]))
            }
        }
        try encoder.finish()
    }
}

extension RGBA8Color {
    /// From 8 hex digits `rrggbbaa` (as goldens.tsv writes them).
    init(hex8 text: Substring) {
        let value = UInt32(text, radix: 16)!
        self.init(r: UInt8(value >> 24), g: UInt8(value >> 16 & 255), b: UInt8(value >> 8 & 255), a: UInt8(value & 255))
    }
}

/// Bytes from hex digits (pairs).
func bytes(hex text: Substring) -> [UInt8] {
    let digits = Array(text.utf8)
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<($0 + 2)], as: UTF8.self), radix: 16)! }
}

/// A fixture file's path in the test bundle.
func fixturePath(_ name: String) -> String {
    Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures")!.path
}
