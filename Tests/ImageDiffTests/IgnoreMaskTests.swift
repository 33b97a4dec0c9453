// Ignore regions (SPEC §9, --ignore and --mask-dir): against the unmasked diff, which must give
// every pixel outside the mask the same class (the anti-aliasing test still reads ignored
// pixels), on seeded random pairs of random sizes. MASONRY_TEST_SEED replays a failure.
import ImageDiff
import Testing
import TestSupport

@Suite struct IgnoreMaskTests {
    /// A boolean grid of the canvas: the reference for what a mask ignores.
    static func grid(width: Int, height: Int, rectangles: [PixelRect], maskRows: [[Range<Int>]]) -> [Bool] {
        var ignored = [Bool](repeating: false, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let inRect = rectangles.contains { x >= $0.x && x < $0.x + $0.width && y >= $0.y && y < $0.y + $0.height }
                let inMask = y < maskRows.count && maskRows[y].contains { $0.contains(x) }
                ignored[y * width + x] = inRect || inMask
            }
        }
        return ignored
    }

    @Test func maskedDiffEqualsUnmaskedOutsideTheMask() throws {
        let seed = SplitMix64.suiteSeed ^ 0x1_6A0E
        var g = SplitMix64(seed: seed)
        var ignoredSeen = 0, keptSeen = 0
        for round in 0..<200 {
            let a = blockyImage(width: g.int(1...20), height: g.int(1...9), using: &g)
            let resized = g.int(0...2) == 0
            let b = resized ? blockyImage(width: g.int(1...20), height: g.int(1...9), using: &g) : edited(a, using: &g)
            let width = max(a.width, b.width), height = max(a.height, b.height)
            // Rectangles anywhere, partly or wholly off the canvas, some larger than it.
            let rectangles = (0..<g.int(0...3)).map { _ in
                PixelRect(x: g.int(-5...width + 2), y: g.int(-5...height + 2), width: g.int(1...width + 8), height: g.int(1...height + 8))
            }
            // A mask image: any size (larger than the canvas too), random runs.
            let maskHeight = g.int(0...1) == 0 ? 0 : g.int(1...height + 3)
            let maskWidth = g.int(1...width + 4)
            let maskRows = (0..<maskHeight).map { _ in
                (0..<g.int(0...2)).map { _ in let x0 = g.int(0...maskWidth - 1); return x0 ..< g.int(x0 + 1...maskWidth) }
            }
            let mask = IgnoreMask(width: width, height: height, rectangles: rectangles, maskHeight: maskHeight) { maskRows[$0] }
            let reference = Self.grid(width: width, height: height, rectangles: rectangles, maskRows: maskRows)
            let threshold = StreamingPropertyTests.thresholds[g.int(0...3)]
            let includeAA = g.int(0...1) == 1
            let options = DiffOptions(threshold: threshold, includeAA: includeAA)
            let context = "seed \(seed) round \(round): \(a.width)x\(a.height) vs \(b.width)x\(b.height), \(rectangles), mask \(maskRows)"
            let plain = streamedDiff(a, b, options: options)
            let masked = streamedDiff(a, b, options: options, ignore: mask)
            let expected = zip(plain.classes, reference).map { $1 ? PixelClass.ignored : $0 }
            #expect(masked.classes == expected, "\(context)")
            let counted: (UInt8) -> Bool = { $0 == PixelClass.differing || (includeAA && $0 == PixelClass.antialiased) }
            let ignored = reference.filter { $0 }.count
            #expect(mask.ignoredPixels == ignored, "\(context)")
            #expect(masked.diffPixels == expected.filter(counted).count, "\(context)")
            #expect(masked.aaPixels == expected.filter { $0 == PixelClass.antialiased }.count, "\(context)")
            #expect(masked.bounds == referenceBounds(expected, width: width, counting: counted), "\(context)")
            #expect(masked.findings == .compared(diffPixels: masked.diffPixels, area: width * height - ignored,
                                                 resized: a.width != b.width || a.height != b.height), "\(context)")
            // The picture: ignored pixels light grey, all others as without a mask.
            for (index, isIgnored) in reference.enumerated() {
                let pixel = Array(masked.picture[4 * index ..< 4 * index + 4])
                let grey = DiffPicture.ignoredColor
                let want = isIgnored ? [grey.r, grey.g, grey.b, 255] : Array(plain.picture[4 * index ..< 4 * index + 4])
                if pixel != want { Issue.record("\(context): picture pixel \(index)"); break }
            }
            ignoredSeen += zip(plain.classes, reference).filter { counted($0) && $1 }.count
            keptSeen += zip(plain.classes, reference).filter { counted($0) && !$1 }.count
        }
        #expect(ignoredSeen > 50 && keptSeen > 50, "seed \(seed): \(ignoredSeen) differing pixels masked, \(keptSeen) kept")
    }

    @Test func rectanglesAreClippedToTheCanvasAndMerged() {
        let mask = IgnoreMask(width: 10, height: 4, rectangles: [
            PixelRect(x: -3, y: -2, width: 5, height: 3),      // off the top left: (0,0)-(2,1) remains
            PixelRect(x: 1, y: 0, width: 3, height: 1),        // overlaps the first
            PixelRect(x: 8, y: 3, width: 100, height: 100),    // larger than the canvas, off its bottom right
            PixelRect(x: 20, y: 0, width: 5, height: 5),       // wholly outside
        ])
        #expect(mask.spans(row: 0) == [0 ..< 4])
        #expect(mask.spans(row: 1) == [] && mask.spans(row: 2) == [])
        #expect(mask.spans(row: 3) == [8 ..< 10])
        #expect(mask.ignoredPixels == 6)
        #expect(mask.ignoredPixels(in: PixelRect(x: 2, y: 0, width: 8, height: 4)) == 4)
        #expect(mask.bounds(ofComparedPixelsIn: PixelRect(x: 0, y: 0, width: 4, height: 4)) == PixelRect(x: 0, y: 1, width: 4, height: 3))
        #expect(mask.bounds(ofComparedPixelsIn: PixelRect(x: 8, y: 3, width: 2, height: 1)) == nil)
        let everything = IgnoreMask(width: 3, height: 2, rectangles: [PixelRect(x: 0, y: 0, width: 3, height: 2)])
        #expect(everything.ignoredPixels == 6)
        #expect(IgnoreMask(width: 3, height: 2, rectangles: [PixelRect(x: 5, y: 5, width: 1, height: 1)]).isEmpty)
    }

    /// A pair wholly ignored: nothing compared, ratio 0, and it passes.
    @Test func wholyIgnoredPairPasses() {
        let a = RGBAImage(width: 4, height: 3, pixels: [UInt8](repeating: 0, count: 48))
        let b = RGBAImage(width: 4, height: 3, pixels: [UInt8](repeating: 255, count: 48))
        let all = IgnoreMask(width: 4, height: 3, rectangles: [PixelRect(x: 0, y: 0, width: 4, height: 3)])
        let diff = streamedDiff(a, b, options: DiffOptions(), ignore: all)
        #expect(diff.diffPixels == 0 && diff.findings == .compared(diffPixels: 0, area: 0, resized: false))
        #expect(PairVerdict(diff.findings, limits: CompareLimits()) == PairVerdict(status: .unchanged, failed: false))
    }

    /// The panel hatches blocks holding ignored pixels, one stripe pixel in four along a row and
    /// moving one column per row; a differing pixel still wins its block.
    @Test func panelHatchesIgnoredBlocks() {
        let width = 8, height = 8
        var classes = [UInt8](repeating: PixelClass.ignored, count: width * height)
        classes[0] = PixelClass.differing
        let grey = DiffPicture.ignoredColor
        let greyPixel: [UInt8] = [grey.r, grey.g, grey.b, 255]
        let picture: [UInt8] = Array((0..<(width * height)).map { _ in greyPixel }.joined())
        let reducer = DiffPanelReducer(sourceWidth: width, sourceHeight: height, targetWidth: 4, targetHeight: 4)
        var rows: [[UInt8]] = []
        for y in 0..<height {
            picture[(4 * width * y) ..< (4 * width * (y + 1))].withUnsafeBufferPointer { p in
                classes[(width * y) ..< (width * (y + 1))].withUnsafeBufferPointer { c in
                    reducer.push(picture: p, classes: c) { _, row in rows.append(Array(row)) }
                }
            }
        }
        #expect(rows.count == 4)
        let hatch = DiffPicture.hatchColor, red = DiffPicture.differingColor
        for ty in 0..<4 {
            for tx in 0..<4 {
                let pixel: [UInt8] = Array(rows[ty][4 * tx ..< 4 * tx + 3])
                let stripe = (tx + ty) % DiffPanelReducer.hatchPeriod == 0
                let want: [UInt8]
                if tx == 0 && ty == 0 { want = [red.r, red.g, red.b] } else if stripe { want = [hatch.r, hatch.g, hatch.b] } else { want = [grey.r, grey.g, grey.b] }
                #expect(pixel == want, "target pixel (\(tx), \(ty))")
            }
        }
    }
}
