import Testing
@testable import Raster

/// The AVX2 filter passes (CRasterKernels) against the portable Swift ones: identical rows
/// for random images of every source layout, shrinking, reducing and enlarging, including
/// widths that are not multiples of four and single-pixel edges. Runs only where AVX2 does.
@Suite(.enabled(if: RasterKernels.best == .avx2, "this CPU has no AVX2"))
struct RasterKernelTests {
    @Test func avx2PassesEqualThePortableOnes() {
        let seed = SplitMix64.testSeed ^ 0xA7C2
        var generator = SplitMix64(seed: seed)
        let formats: [PixelFormat] = [.rgba8, .opaqueRGBA8, .rgb8, .grey8]
        for round in 0..<160 {
            let width = Int.random(in: 1...(round % 4 == 0 ? 600 : 90), using: &generator)
            let height = Int.random(in: 1...90, using: &generator)
            let toWidth = Int.random(in: 1...140, using: &generator), toHeight = Int.random(in: 1...140, using: &generator)
            let format = formats[round % formats.count]
            let rows = (0..<height).map { _ in
                (0..<(width * format.bytesPerPixel)).map { index in
                    // Opaque layouts promise alpha 255; rgba8 mixes transparent, translucent and opaque.
                    format == .opaqueRGBA8 && index % 4 == 3 ? 255 : UInt8.random(in: 0...255, using: &generator)
                }
            }
            func run(_ kernels: RasterKernels) -> [UInt8] {
                let resampler = StreamingResampler(sourceWidth: width, sourceHeight: height, targetWidth: toWidth,
                                                   targetHeight: toHeight, sourceFormat: format, kernels: kernels)
                var output: [UInt8] = []
                for row in rows {
                    row.withUnsafeBufferPointer { row in resampler.push(row: row) { _, pixels in output += pixels } }
                }
                return output
            }
            let portable = run(.portable), avx2 = run(.avx2)
            #expect(portable.count == 4 * toWidth * toHeight)
            if avx2 != portable {
                let first = portable.indices.first { portable[$0] != avx2[$0] } ?? -1
                Issue.record("seed \(seed), round \(round): \(format) \(width)x\(height) -> \(toWidth)x\(toHeight): byte \(first) differs")
                return
            }
        }
    }
}
