import Testing
@testable import Raster

@Suite struct ResamplerPropertyTests {
    /// A flat image, opaque or not, comes out exactly flat (premultiplied, rounded once).
    @Test func flatColourStaysExactlyFlat() {
        let seed = SplitMix64.testSeed
        var generator = SplitMix64(seed: seed)
        for _ in 0..<50 {
            let width = Int.random(in: 1...130, using: &generator), height = Int.random(in: 1...130, using: &generator)
            let toWidth = Int.random(in: 1...160, using: &generator), toHeight = Int.random(in: 1...160, using: &generator)
            let colour = (0..<3).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let alpha: UInt8 = Bool.random(using: &generator) ? 255 : .random(in: 1...254, using: &generator)
            let image = TestImage(width: width, height: height) { _, _ in (colour[0], colour[1], colour[2], alpha) }
            let expected = colour.map { UInt8((Int($0) * Int(alpha) + 127) / 255) } + [alpha]
            let output = image.resampled(toWidth: toWidth, toHeight: toHeight)
            let wrong = (0..<toWidth * toHeight).first { Array(output.pixels[4 * $0 ..< 4 * $0 + 4]) != expected }
            #expect(wrong == nil, "seed \(seed): \(width)x\(height) -> \(toWidth)x\(toHeight) of \(colour + [alpha]) gave \(wrong.map { output[$0 % toWidth, $0 / toWidth] } ?? []), expected \(expected)")
        }
    }

    /// Opaque red beside transparent green: no green ever appears, and red stays pure
    /// (premultiplied red equals alpha), whether shrinking, reducing or enlarging.
    @Test(arguments: [(64, 48, 9, 7), (64, 48, 40, 31), (64, 48, 150, 110), (7, 5, 64, 64), (3000, 2, 29, 1)])
    func transparentPixelsNeverBleed(width: Int, height: Int, toWidth: Int, toHeight: Int) {
        let image = TestImage(width: width, height: height) { x, _ in x < width / 2 ? (255, 0, 0, 255) : (0, 255, 0, 0) }
        let output = image.resampled(toWidth: toWidth, toHeight: toHeight)
        for index in 0..<toWidth * toHeight {
            let pixel = output[index % toWidth, index / toWidth]
            #expect(pixel[1] == 0 && pixel[2] == 0 && pixel[0] == pixel[3], "pixel \(index): \(pixel)")
        }
        #expect(output[0, 0] == [255, 0, 0, 255])
        #expect(output[toWidth - 1, toHeight - 1] == [0, 0, 0, 0])
    }

    /// Resampling to the same size returns the premultiplied input unchanged.
    @Test(arguments: [(1, 1), (1, 17), (17, 1), (33, 20)])
    func sameSizeIsIdentity(width: Int, height: Int) {
        var generator = SplitMix64(seed: SplitMix64.testSeed)
        let image = randomImage(width: width, height: height, opaque: false, using: &generator)
        let premultiplied = image.pixels.indices.map { index in
            index % 4 == 3 ? image.pixels[index]
                : UInt8((Int(image.pixels[index]) * Int(image.pixels[index | 3]) + 127) / 255)
        }
        #expect(image.resampled(toWidth: width, toHeight: height).pixels == premultiplied)
    }

    /// Extreme aspect ratios and 1-pixel sources or targets: a smooth ramp stays a ramp
    /// (monotonic, within the source range) and the streaming contract holds.
    @Test(arguments: [(20000, 1, 290, 1), (1, 20000, 1, 1160), (20000, 3, 1, 1), (1, 1, 290, 7), (1, 5, 1, 300), (2, 2, 1, 1), (5, 1, 300, 1)])
    func extremeSizes(width: Int, height: Int, toWidth: Int, toHeight: Int) {
        let length = max(width, height)
        let image = TestImage(width: width, height: height) { x, y in
            let level = UInt8(max(x, y) * 255 / max(1, length - 1))
            return (level, 255 - level, 0, 255)
        }
        let output = image.resampled(toWidth: toWidth, toHeight: toHeight)
        let reds = (0..<max(toWidth, toHeight)).map { output.pixels[4 * $0] }
        #expect(reds == reds.sorted(), "\(width)x\(height) -> \(toWidth)x\(toHeight): not monotonic")
        for index in 0..<toWidth * toHeight {
            let pixel = output[index % toWidth, index / toWidth]
            #expect(pixel[3] == 255 && Int(pixel[0]) + Int(pixel[1]) >= 254 && Int(pixel[0]) + Int(pixel[1]) <= 256,
                    "\(width)x\(height) -> \(toWidth)x\(toHeight) pixel \(index): \(pixel)")
        }
    }

    /// Rows come out once each, in order, all by the last push; pushing rows from one
    /// reused buffer gives the in-memory result (nothing keeps a source row).
    @Test(arguments: [(300, 200, 29, 19), (40, 30, 90, 70), (31, 333, 7, 50), (5, 5, 1, 1)])
    func streamingEqualsInMemory(width: Int, height: Int, toWidth: Int, toHeight: Int) {
        var generator = SplitMix64(seed: SplitMix64.testSeed)
        let image = randomImage(width: width, height: height, opaque: false, using: &generator)
        let resampler = StreamingResampler(sourceWidth: width, sourceHeight: height, targetWidth: toWidth, targetHeight: toHeight)
        var scratch = [UInt8](repeating: 0, count: width * 4)
        var streamed = [UInt8](), emittedIndices = [Int]()
        for y in 0..<height {
            scratch.replaceSubrange(0..., with: image.pixels[y * width * 4 ..< (y + 1) * width * 4])
            scratch.withUnsafeBufferPointer { row in
                resampler.push(row: row) { index, targetRow in
                    emittedIndices.append(index)
                    streamed += targetRow
                }
            }
            scratch = scratch.map { ~$0 }  // clobber the row the resampler saw
        }
        #expect(emittedIndices == Array(0..<toHeight))
        #expect(resampler.emittedRowCount == toHeight && resampler.pushedRowCount == height)
        #expect(streamed == image.resampled(toWidth: toWidth, toHeight: toHeight).pixels)
    }

    /// The opaque layouts (raw block sums, the factor 255 folded into the reciprocals; RGB and
    /// grey rows without an alpha lane) give exactly the bytes of the general premultiplying
    /// path on the same colours, at every kind of shrink, with row lengths that are and are
    /// not multiples of the 16-byte step.
    @Test(arguments: [(300, 200, 29, 19), (301, 97, 290, 40), (1000, 9, 137, 3), (64, 48, 64, 48),
                      (640, 480, 290, 218), (33, 2000, 5, 290), (7, 5, 64, 64), (5, 3, 2, 1), (1, 40, 1, 7)])
    func opaqueLayoutsMatchTheGeneralPath(width: Int, height: Int, toWidth: Int, toHeight: Int) {
        let seed = SplitMix64.testSeed ^ 0x0BA0
        var generator = SplitMix64(seed: seed)
        let image = randomImage(width: width, height: height, opaque: true, using: &generator)
        let greys = (0..<width * height).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        func run(_ format: PixelFormat, _ pixels: [UInt8]) -> [UInt8] {
            let resampler = StreamingResampler(sourceWidth: width, sourceHeight: height, targetWidth: toWidth,
                                               targetHeight: toHeight, sourceFormat: format)
            let rowBytes = width * format.bytesPerPixel
            var output = [UInt8]()
            pixels.withUnsafeBufferPointer { pixels in
                for y in 0..<height {
                    resampler.push(row: UnsafeBufferPointer(rebasing: pixels[y * rowBytes ..< (y + 1) * rowBytes])) { _, row in
                        output += row
                    }
                }
            }
            return output
        }
        let general = run(.rgba8, image.pixels)
        let rgb = image.pixels.enumerated().filter { $0.offset % 4 != 3 }.map(\.element)
        let context = "\(width)x\(height) -> \(toWidth)x\(toHeight), seed \(seed)"
        #expect(run(.opaqueRGBA8, image.pixels) == general, "opaque RGBA, \(context)")
        #expect(run(.rgb8, rgb) == general, "RGB, \(context)")
        #expect(run(.grey8, greys) == run(.rgba8, greys.flatMap { [$0, $0, $0, 255] }), "grey, \(context)")
    }

    /// Output rows start before the input ends: only a window of rows is held. Here (10x
    /// down: box 5, then Lanczos-3 over 2 shrunk rows per output) row 0 needs 60 source rows.
    @Test func firstRowsComeOutEarly() {
        let resampler = StreamingResampler(sourceWidth: 8, sourceHeight: 1000, targetWidth: 4, targetHeight: 100)
        let row = [UInt8](repeating: 200, count: 32)
        var pushesBeforeFirstRow = 0
        while resampler.emittedRowCount == 0 {
            row.withUnsafeBufferPointer { resampler.push(row: $0) { _, _ in } }
            pushesBeforeFirstRow += 1
        }
        #expect(pushesBeforeFirstRow == 60)
    }

    /// The same input gives the same bytes every time, and these pinned digests (from
    /// x86_64 Linux) check that any other machine gives the same bytes too.
    @Test(arguments: [(97, 61, UInt64(13_113_175_833_315_881_282)), (290, 218, 377_571_721_551_550_936),
                       (13, 9, 16_405_487_177_893_291_769), (1, 1, 8_454_744_785_738_226_712)])
    func outputIsDeterministic(toWidth: Int, toHeight: Int, digest: UInt64) {
        var generator = SplitMix64(seed: 7)
        let image = randomImage(width: 300, height: 250, opaque: false, using: &generator)
        let first = image.resampled(toWidth: toWidth, toHeight: toHeight)
        #expect(first == image.resampled(toWidth: toWidth, toHeight: toHeight))
        #expect(fnv1a(first.pixels) == digest)
    }
}

/// `sourceExtent`: rows a decoder shrank by whole blocks, the last block partial, resample to
/// what the full picture resamples to; without the extent the picture is stretched.
@Suite struct ResamplerExtentTests {
    /// `pixels` (grey, `width` × `height`) averaged over blocks of `factor`, the last ones partial.
    private func blocks(_ pixels: [UInt8], width: Int, height: Int, factor: Int) -> (pixels: [UInt8], width: Int, height: Int) {
        let outWidth = (width + factor - 1) / factor, outHeight = (height + factor - 1) / factor
        var out: [UInt8] = []
        for oy in 0..<outHeight {
            for ox in 0..<outWidth {
                var sum = 0, count = 0
                for y in oy * factor ..< min(height, (oy + 1) * factor) {
                    for x in ox * factor ..< min(width, (ox + 1) * factor) { sum += Int(pixels[y * width + x]); count += 1 }
                }
                out.append(UInt8((sum + count / 2) / count))
            }
        }
        return (out, outWidth, outHeight)
    }

    private func resampled(_ pixels: [UInt8], width: Int, height: Int, to target: (Int, Int),
                           extent: (width: Double, height: Double)?) -> [UInt8] {
        let resampler = StreamingResampler(sourceWidth: width, sourceHeight: height, targetWidth: target.0,
                                           targetHeight: target.1, sourceFormat: .grey8, sourceExtent: extent)
        var out: [UInt8] = []
        pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<height {
                resampler.push(row: UnsafeBufferPointer(rebasing: pixels[y * width ..< (y + 1) * width])) { _, row in
                    out += stride(from: 0, to: row.count, by: 4).map { row[$0] }
                }
            }
        }
        return out
    }

    /// Sharp edges across a 301 × 200 picture, shrunk by 3 (101 × 67, both last blocks partial)
    /// to a 48 × 32 tile: with the extent every pixel is within 3 of the full picture's tile
    /// (measured: 1); without it the stretch shows at the far edges (measured: 58).
    @Test func partialLastBlocksKeepTheirPlace() {
        let (width, height) = (301, 200)
        let picture = (0..<width * height).map { index -> UInt8 in
            let (x, y) = (index % width, index / width)
            return (x / 23 + y / 17) % 2 == 0 ? 20 : 235
        }
        let direct = resampled(picture, width: width, height: height, to: (48, 32), extent: nil)
        let shrunk = blocks(picture, width: width, height: height, factor: 3)
        let placed = resampled(shrunk.pixels, width: shrunk.width, height: shrunk.height, to: (48, 32),
                               extent: (Double(width) / 3, Double(height) / 3))
        let stretched = resampled(shrunk.pixels, width: shrunk.width, height: shrunk.height, to: (48, 32), extent: nil)
        let placedError = zip(placed, direct).map { abs(Int($0) - Int($1)) }.max() ?? 0
        let stretchedError = zip(stretched, direct).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(placedError <= 3, "with the extent: off by \(placedError)")
        #expect(stretchedError >= 10, "without the extent: off by only \(stretchedError)")
    }

    /// An extent equal to the size changes nothing.
    @Test func wholeExtentIsTheDefault() {
        let picture = (0..<90 * 70).map { UInt8(truncatingIfNeeded: $0 * 7919 >> 3) }
        #expect(resampled(picture, width: 90, height: 70, to: (20, 13), extent: (90, 70))
                == resampled(picture, width: 90, height: 70, to: (20, 13), extent: nil))
    }
}
