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
            guard Self.passesAgree(rows: rows, width: width, format: format, toWidth: toWidth, toHeight: toHeight,
                                   context: "seed \(seed), round \(round)") else { return }
        }
    }

    /// Box blocks of thousands of columns (samples all at their largest, or random), and groups of
    /// 256, 257 and 258 rows of samples at 255 (the AVX2 code's 16-bit column sums hold 257: the
    /// last sums past 2^16 and takes the 32-bit path), shrunk to one to three pixels a side: the
    /// same bytes as the portable code.
    @Test func largeBoxBlocksEqualThePortableOnes() {
        let seed = SplitMix64.testSeed ^ 0xB0C5
        var generator = SplitMix64(seed: seed)
        let formats: [PixelFormat] = [.rgba8, .opaqueRGBA8, .rgb8, .grey8]
        func agree(_ format: PixelFormat, width: Int, height: Int, full: Bool, toHeight: Int, context: String) -> Bool {
            let rows = (0..<height).map { _ in
                (0..<(width * format.bytesPerPixel)).map { _ in full ? 255 : UInt8.random(in: 0...255, using: &generator) as UInt8 }
            }
            return Self.passesAgree(rows: rows, width: width, format: format, toWidth: Int.random(in: 1...3, using: &generator),
                                    toHeight: toHeight, context: context)
        }
        for round in 0..<16 {
            // Blocks of 166-2,500 columns.
            guard agree(formats[round % formats.count], width: Int.random(in: 1_000...5_000, using: &generator),
                        height: Int.random(in: 2...40, using: &generator), full: round % 8 < 4,
                        toHeight: Int.random(in: 1...3, using: &generator), context: "seed \(seed), round \(round)") else { return }
        }
        for format in formats {
            for height in [512, 514, 516] {   // one target row: groups of 256, 257 and 258 rows
                guard agree(format, width: Int.random(in: 1...40, using: &generator), height: height, full: true, toHeight: 1,
                            context: "seed \(seed), \(height) rows") else { return }
            }
        }
    }

    /// Resamples `rows` with both kernels; records the first differing byte and returns false
    /// when they differ.
    static func passesAgree(rows: [[UInt8]], width: Int, format: PixelFormat, toWidth: Int, toHeight: Int, context: String) -> Bool {
        func run(_ kernels: RasterKernels) -> [UInt8] {
            let resampler = StreamingResampler(sourceWidth: width, sourceHeight: rows.count, targetWidth: toWidth,
                                               targetHeight: toHeight, sourceFormat: format, kernels: kernels)
            var output: [UInt8] = []
            for row in rows {
                row.withUnsafeBufferPointer { row in resampler.push(row: row) { _, pixels in output += pixels } }
            }
            return output
        }
        let portable = run(.portable), avx2 = run(.avx2)
        #expect(portable.count == 4 * toWidth * toHeight)
        guard avx2 == portable else {
            let first = portable.indices.first { portable[$0] != avx2[$0] } ?? -1
            Issue.record("\(context): \(format) \(width)x\(rows.count) -> \(toWidth)x\(toHeight): byte \(first) differs")
            return false
        }
        return true
    }

    /// The AVX2 passes' shortcuts for flat areas (a row equal to the one before reuses its
    /// reduced row; four target pixels whose rows are all equal there take one row) give the
    /// portable passes' bytes: drawings made of runs of a few colours (transparent pixels of
    /// different colours among them), rows repeated, photos' noise in places, every layout,
    /// shrinking, reducing and enlarging.
    @Test func flatAreaShortcutsEqualThePortablePasses() {
        let seed = SplitMix64.testSeed ^ 0xF1A7
        var generator = SplitMix64(seed: seed)
        let formats: [PixelFormat] = [.rgba8, .opaqueRGBA8, .rgb8, .grey8]
        for round in 0..<120 {
            let format = formats[round % formats.count], channels = format.bytesPerPixel
            let width = Int.random(in: 1...(round % 3 == 0 ? 700 : 120), using: &generator)
            let height = Int.random(in: 1...(round % 5 == 0 ? 400 : 90), using: &generator)
            let toWidth = Int.random(in: 1...160, using: &generator), toHeight = Int.random(in: 1...160, using: &generator)
            let palette: [[UInt8]] = (0..<3).map { _ in
                (0..<channels).map { channel in
                    format == .opaqueRGBA8 && channel == 3 ? 255 : UInt8.random(in: 0...255, using: &generator)
                }
            } + [format == .rgba8 ? [0, 0, 0, 0] : Array(repeating: 255, count: channels)]
            var rows: [[UInt8]] = []
            while rows.count < height {
                var row: [UInt8] = []
                while row.count < width * channels {
                    let run = Int.random(in: 1...(width / 2 + 1), using: &generator)
                    let kind = Int.random(in: 0..<10, using: &generator)
                    for _ in 0..<run where row.count < width * channels {
                        if kind == 0 {   // noise
                            row += (0..<channels).map { channel in
                                format == .opaqueRGBA8 && channel == 3 ? 255 : UInt8.random(in: 0...255, using: &generator)
                            }
                        } else if kind == 1 && format == .rgba8 {   // transparent, of any colour
                            row += [UInt8.random(in: 0...255, using: &generator), 7, 200, 0]
                        } else {
                            row += palette[kind % palette.count]
                        }
                    }
                }
                let repeats = Int.random(in: 1...12, using: &generator)
                rows += Array(repeating: row, count: min(repeats, height - rows.count))
            }
            guard Self.passesAgree(rows: rows, width: width, format: format, toWidth: toWidth, toHeight: toHeight,
                                   context: "seed \(seed), round \(round)") else { return }
        }
    }
}
