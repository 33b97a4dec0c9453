// The streamed diff against the whole-image reference, on seeded random images made to contain
// flat areas, ramps and edits (so the anti-aliasing test takes every branch). Set
// MASONRY_TEST_SEED to replay a failure; the seed is printed in every failure message.
import ImageDiff
import Testing
import TestSupport

/// A random image of flat blocks from a small palette with some one-pixel ramps between them,
/// sometimes translucent.
func blockyImage(width: Int, height: Int, using g: inout SplitMix64) -> RGBAImage {
    let translucent = g.int(0...3) == 0
    let palette = (0..<g.int(2...4)).map { _ in
        [g.byte(), g.byte(), g.byte(), translucent ? UInt8(g.int(0...255)) : 255]
    }
    var pixels = [UInt8](repeating: 0, count: 4 * width * height)
    let block = g.int(1...4)
    for y in 0..<height {
        for x in 0..<width {
            let colour = palette[(x / block + 3 * (y / block)) % palette.count]
            pixels.replaceSubrange(4 * (y * width + x) ..< 4 * (y * width + x) + 4, with: colour)
        }
    }
    // Ramps: a few pixels halfway between their neighbours.
    for _ in 0..<(width * height / 6) {
        let x = g.int(0...width - 1), y = g.int(0...height - 1), i = 4 * (y * width + x)
        let j = 4 * (y * width + min(x + 1, width - 1))
        for c in 0..<4 { pixels[i + c] = UInt8((Int(pixels[i + c]) + Int(pixels[j + c])) / 2) }
    }
    return RGBAImage(width: width, height: height, pixels: pixels)
}

/// The image with some edits: pixels copied from a neighbour (a one-pixel shift), small
/// brightness changes and a few random pixels.
func edited(_ image: RGBAImage, using g: inout SplitMix64) -> RGBAImage {
    var out = image
    for _ in 0..<(image.width * image.height / 4 + 1) {
        let x = g.int(0...image.width - 1), y = g.int(0...image.height - 1), i = 4 * (y * image.width + x)
        switch g.int(0...3) {
        case 0: let j = 4 * (y * image.width + max(x - 1, 0)); for c in 0..<4 { out.pixels[i + c] = image.pixels[j + c] }
        case 1: for c in 0..<3 { out.pixels[i + c] = out.pixels[i + c] &+ UInt8(g.int(1...3)) }
        case 2: for c in 0..<4 { out.pixels[i + c] = g.byte() }
        default: break
        }
    }
    return out
}

func crop(_ image: RGBAImage, width: Int, height: Int) -> RGBAImage {
    RGBAImage(width: width, height: height, pixels: (0..<height).flatMap { image.row($0).prefix(4 * width) })
}

func referenceBounds(_ classes: [UInt8], width: Int, counting: (UInt8) -> Bool) -> PixelRect? {
    let hits = classes.indices.filter { counting(classes[$0]) }
    guard !hits.isEmpty else { return nil }
    let xs = hits.map { $0 % width }, ys = hits.map { $0 / width }
    return PixelRect(x: xs.min()!, y: ys.min()!, width: xs.max()! - xs.min()! + 1, height: ys.max()! - ys.min()! + 1)
}

@Suite struct StreamingPropertyTests {
    static let thresholds = [0.0, 0.05, 0.1, 0.3]

    @Test func streamedEqualsWholeImageReference() {
        let seed = SplitMix64.suiteSeed
        var g = SplitMix64(seed: seed)
        var antialiasedSeen = 0, differingSeen = 0
        for round in 0..<300 {
            let width = g.int(1...24), height = g.int(1...9)
            let a = blockyImage(width: width, height: height, using: &g)
            let b = edited(a, using: &g)
            let threshold = Self.thresholds[g.int(0...3)]
            let expected = referenceClasses(a, b, threshold: threshold)
            antialiasedSeen += expected.filter { $0 == 2 }.count
            differingSeen += expected.filter { $0 == 1 }.count
            for includeAA in [false, true] {
                let context = "seed \(seed) round \(round): \(width)x\(height), threshold \(threshold), includeAA \(includeAA)"
                let diff = StreamingPixelmatch(width: width, height: height, options: DiffOptions(threshold: threshold, includeAA: includeAA))
                var classes: [UInt8] = []
                let compact = g.int(0...1) == 1  // opaque sides pushed as RGB8
                let compactA = compact && a.isOpaque, compactB = compact && b.isOpaque
                for y in 0..<height {
                    a.pushedRow(y, compact: compactA).withUnsafeBufferPointer { p in
                        b.pushedRow(y, compact: compactB).withUnsafeBufferPointer { q in
                            diff.push(baseline: p, current: q) { row, emitted in
                                #expect(row == classes.count / width, "\(context): row \(row) out of order")
                                classes += emitted
                            }
                        }
                    }
                    // Row y-2 is final once row y is in; the last row flushes everything.
                    let final = y == height - 1 ? height : max(0, y - 1)
                    #expect(classes.count == final * width, "\(context): after row \(y), \(classes.count / width) rows emitted")
                }
                let counted: (UInt8) -> Bool = { $0 == 1 || (includeAA && $0 == 2) }
                #expect(classes == expected, "\(context)")
                #expect(diff.diffPixels == expected.filter(counted).count, "\(context)")
                #expect(diff.aaPixels == expected.filter { $0 == 2 }.count, "\(context)")
                #expect(diff.bounds == referenceBounds(expected, width: width, counting: counted), "\(context)")
            }
        }
        // The generator must reach the anti-aliasing branch, or the property says little.
        #expect(antialiasedSeen > 100 && differingSeen > 100, "seed \(seed): \(antialiasedSeen) anti-aliased, \(differingSeen) differing")
    }

    /// Sizes that differ: the overlap as the reference says, everything else differing.
    @Test func canvasEqualsReferenceOnOverlap() {
        let seed = SplitMix64.suiteSeed ^ 0xC0FFEE
        var g = SplitMix64(seed: seed)
        for round in 0..<150 {
            let a = blockyImage(width: g.int(1...20), height: g.int(1...8), using: &g)
            // The current image: the edited baseline where both exist, other pixels elsewhere.
            let changed = edited(a, using: &g)
            let filler = blockyImage(width: g.int(1...24), height: g.int(1...10), using: &g)
            let b = RGBAImage(width: filler.width, height: filler.height, pixels: (0..<filler.height).flatMap { y in
                (0..<filler.width).flatMap { x in
                    let (source, i) = x < a.width && y < a.height ? (changed, 4 * (y * a.width + x)) : (filler, 4 * (y * filler.width + x))
                    return source.pixels[i ..< i + 4]
                }
            })
            let threshold = Self.thresholds[g.int(0...3)]
            let context = "seed \(seed) round \(round): \(a.width)x\(a.height) vs \(b.width)x\(b.height), threshold \(threshold)"
            let w = min(a.width, b.width), h = min(a.height, b.height)
            let cw = max(a.width, b.width), ch = max(a.height, b.height)
            let overlap = referenceClasses(crop(a, width: w, height: h), crop(b, width: w, height: h), threshold: threshold)
            var expected = [UInt8](repeating: 1, count: cw * ch)
            for y in 0..<h { for x in 0..<w { expected[y * cw + x] = overlap[y * w + x] } }
            let result = streamedDiff(a, b, options: DiffOptions(threshold: threshold), compactOpaque: g.int(0...1) == 1)
            #expect(result.classes == expected, "\(context)")
            #expect(result.diffPixels == expected.filter { $0 == 1 }.count, "\(context)")
            #expect(result.aaPixels == expected.filter { $0 == 2 }.count, "\(context)")
            #expect(result.bounds == referenceBounds(expected, width: cw) { $0 == 1 }, "\(context)")
        }
    }
}
