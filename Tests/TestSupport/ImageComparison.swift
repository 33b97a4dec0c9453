// Comparing decoded pictures with references: golden PNGs and PSNR.
import Foundation
import CodecCore
import PNGCodec
import Raster

/// A tile as the sheet draws it, RGB8 over white in display orientation: every row of
/// `decoder` (stored orientation, at its output size) resampled to the tile's stored size,
/// turned by `orientation`, composited over white.
public func tileOverWhite(_ decoder: some RowSource, orientation: ExifOrientation, tileWidth: Int, tileHeight: Int) throws -> [UInt8] {
    let (storedWidth, storedHeight) = orientation.displaySize(width: tileWidth, height: tileHeight)
    let resampler = StreamingResampler(sourceWidth: decoder.width, sourceHeight: decoder.height,
                                       targetWidth: storedWidth, targetHeight: storedHeight,
                                       sourceFormat: decoder.rowFormat, sourceExtent: decoder.extent)
    var stored: [UInt8] = []
    stored.reserveCapacity(storedWidth * storedHeight * 4)
    try decoder.readRows { _, row in
        resampler.push(row: row) { _, target in stored.append(contentsOf: target) }
    }
    let shown = orientation.apply(to: stored, width: storedWidth, height: storedHeight)
    var rgb = [UInt8](repeating: 0, count: tileWidth * tileHeight * 3)
    shown.withUnsafeBufferPointer { source in
        rgb.withUnsafeMutableBufferPointer { destination in
            compositeOver(background: .white, source: source, into: destination, channels: 3)
        }
    }
    return rgb
}

/// RGB8 of a golden PNG (written by Pillow as RGB).
public func goldenRGB(_ path: String) throws -> (width: Int, height: Int, rgb: [UInt8]) {
    let image = try PNGDecoder.decodeRGBA(contentsOfFile: path)
    var rgb: [UInt8] = []
    rgb.reserveCapacity(image.width * image.height * 3)
    for pixel in stride(from: 0, to: image.pixels.count, by: 4) { rgb += image.pixels[pixel ..< pixel + 3] }
    return (image.width, image.height, rgb)
}

/// Peak signal-to-noise ratio of two equally long 8-bit buffers, in dB (infinity when equal).
public func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
    precondition(a.count == b.count && !a.isEmpty)
    var squares = 0.0
    for i in a.indices {
        let difference = Double(Int(a[i]) - Int(b[i]))
        squares += difference * difference
    }
    let mse = squares / Double(a.count)
    return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
}
