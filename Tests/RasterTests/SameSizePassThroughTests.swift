import Testing
@testable import Raster

/// Rows already at the tile's size (an SVG drawn at it, a picture stored at it): the painter
/// passes them through `NearestNeighbourScaler`, which at equal sizes copies each pixel
/// premultiplied. That is exactly what StreamingResampler emits there (its Lanczos window at a
/// ratio of 1 weighs the centre pixel alone), byte for byte, for every source layout.
@Suite struct SameSizePassThroughTests {
    static func scaled(_ scaler: some RowScaler, rows: [UInt8], width: Int, height: Int, format: PixelFormat) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: width * height * 4)
        let rowBytes = width * format.bytesPerPixel
        rows.withUnsafeBufferPointer { all in
            for y in 0..<height {
                scaler.push(row: UnsafeBufferPointer(rebasing: all[(y * rowBytes)..<((y + 1) * rowBytes)])) { index, row in
                    output.replaceSubrange((index * width * 4)..<((index + 1) * width * 4), with: row)
                }
            }
        }
        return output
    }

    /// Every colour under every alpha (a 256×256 picture: colour by column, alpha by row; 259
    /// wide, so rows end off the AVX2 code's eight-pixel steps), as the resampler premultiplies
    /// and rounds it, with either premultiply's code: rows of one alpha take the AVX2 code's
    /// opaque and transparent shortcuts, the others its arithmetic.
    @Test(arguments: CompositingTests.kernelChoices)
    func everyColourAndAlphaPassesThroughAsTheResamplerEmitsIt(kernels: RasterKernels) {
        var rows: [UInt8] = []
        for alpha in 0..<256 {
            for colour in 0..<259 { rows += [UInt8(colour % 256), UInt8(255 - colour % 256), UInt8(colour % 256 / 2), UInt8(alpha)] }
        }
        let resampled = Self.scaled(StreamingResampler(sourceWidth: 259, sourceHeight: 256, targetWidth: 259, targetHeight: 256, sourceFormat: .rgba8),
                                    rows: rows, width: 259, height: 256, format: .rgba8)
        let passed = Self.scaled(NearestNeighbourScaler(sourceWidth: 259, sourceHeight: 256, targetWidth: 259, targetHeight: 256,
                                                        sourceFormat: .rgba8, kernels: kernels),
                                 rows: rows, width: 259, height: 256, format: .rgba8)
        let expected = rows.indices.map { (index: Int) -> UInt8 in
            if index % 4 == 3 { return rows[index] }
            let product = Int(rows[index]) * Int(rows[index | 3])
            return UInt8((product + 127) / 255)
        }
        #expect(resampled == expected)
        #expect(passed == expected)
    }

    @Test(arguments: [PixelFormat.rgba8, .opaqueRGBA8, .rgb8, .grey8])
    func thePassThroughIsTheResamplersOutput(format: PixelFormat) {
        let seed = SplitMix64.testSeed
        var generator = SplitMix64(seed: seed)
        for (width, height) in [(1, 1), (2, 3), (7, 5), (290, 13), (33, 64), (1, 90)] {
            var rows = (0..<width * height * format.bytesPerPixel).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if format == .rgba8 {
                // Every alpha extreme: transparent, opaque and in between.
                for index in stride(from: 3, to: rows.count, by: 16) { rows[index] = 0 }
                for index in stride(from: 7, to: rows.count, by: 16) { rows[index] = 255 }
            } else if format == .opaqueRGBA8 {
                for index in stride(from: 3, to: rows.count, by: 4) { rows[index] = 255 }
            }
            let resampled = Self.scaled(StreamingResampler(sourceWidth: width, sourceHeight: height, targetWidth: width,
                                                           targetHeight: height, sourceFormat: format),
                                        rows: rows, width: width, height: height, format: format)
            let passed = Self.scaled(NearestNeighbourScaler(sourceWidth: width, sourceHeight: height, targetWidth: width,
                                                            targetHeight: height, sourceFormat: format),
                                     rows: rows, width: width, height: height, format: format)
            let differing = zip(resampled, passed).filter { $0 != $1 }.count
            #expect(differing == 0, "seed \(seed), \(format) \(width)×\(height): \(differing) bytes differ")
        }
    }
}
