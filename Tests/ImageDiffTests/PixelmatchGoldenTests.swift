// Counts, bounds and pictures of the committed fixture pairs against PyPI pixelmatch's (cross-checked
// with the original JavaScript pixelmatch 6.0.0; see Fixtures/README.md).
import Digest
import ImageDiff
import Testing
import TestSupport

/// One line of `Fixtures/goldens.txt`.
struct PixelmatchGolden: Sendable, CustomTestStringConvertible {
    var baseline: String, current: String
    var options: DiffOptions
    var diffPixels: Int, aaPixels: Int
    var bounds: PixelRect?
    var pictureSHA256: String

    var testDescription: String { "\(baseline) vs \(current), threshold \(options.threshold)\(options.includeAA ? ", includeAA" : "")" }

    static let all: [PixelmatchGolden] = fixtureFolder.goldenFields("goldens.txt").map { f in
        let box = f[6] == "-" ? nil : f[6].split(separator: ",").map { Int($0)! }
        return PixelmatchGolden(
            baseline: f[0], current: f[1],
            options: DiffOptions(threshold: Double(f[2])!, includeAA: f[3] == "true"),
            diffPixels: Int(f[4])!, aaPixels: Int(f[5])!,
            bounds: box.map { PixelRect(x: $0[0], y: $0[1], width: $0[2], height: $0[3]) },
            pictureSHA256: f[7])
    }
}

@Suite struct PixelmatchGoldenTests {
    @Test func goldensAreLoaded() {
        // 15 pairs × 6 thresholds × includeAA off/on: an empty or misread file must not pass.
        #expect(PixelmatchGolden.all.count == 180)
    }

    @Test(arguments: PixelmatchGolden.all)
    func countsBoundsAndPictureEqualPixelmatch(_ golden: PixelmatchGolden) throws {
        let baseline = try RGBAImage(decoding: "pairs/\(golden.baseline).png")
        let current = try RGBAImage(decoding: "pairs/\(golden.current).png")
        let result = streamedDiff(baseline, current, options: golden.options)
        #expect(result.diffPixels == golden.diffPixels)
        #expect(result.aaPixels == golden.aaPixels)
        #expect(result.bounds == golden.bounds)
        #expect(Digest.SHA256.hex(Digest.SHA256.digest(result.picture)) == golden.pictureSHA256)
        let resized = baseline.width != current.width || baseline.height != current.height
        let status: PairStatus = resized ? .resized : golden.diffPixels > 0 ? .changed : .unchanged
        #expect(PairVerdict(result.findings, limits: CompareLimits()) == PairVerdict(status: status, failed: status != .unchanged))
        let counted = result.classes.filter { $0 == PixelClass.differing || (golden.options.includeAA && $0 == PixelClass.antialiased) }
        #expect(counted.count == golden.diffPixels, "the classes emitted agree with the counters")
        // Opaque images pushed as RGB8 rows give the same everything.
        #expect(streamedDiff(baseline, current, options: golden.options, compactOpaque: true) == result)
    }
}
