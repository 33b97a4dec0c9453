import JPEGCodec
import CodecCore
import PNGCodec
import Testing

/// Seeded fuzzing of the header pass (and, for a sample, the whole decoder) over mutated
/// headers of real files. Prints the seed only when a check fails; `MASONRY_TEST_SEED`
/// replays a run.
@Suite struct JPEGHeaderFuzzTests {
    static let sources = ["cat-orientation-6.jpg", "astronaut-q75-420-progressive.jpg", "camera-grey-q85.jpg",
                          "coffee-cmyk-adobe-q90.jpg"]

    @Test func mutatedHeadersNeverCrash() throws {
        let seed = SplitMix64.suiteSeed ^ 0x4A50_4547
        var rng = SplitMix64(seed: seed)
        let folder = TemporaryFolder("jpeg-fuzz")
        var accepted = 0, refused = 0
        for iteration in 0..<3000 {
            let original = try fixtureFolder.bytes(Self.sources[iteration % Self.sources.count])
            let headerEnd = min(JPEGSurgery.scanDataStart(original) + 64, original.count)
            var bytes = original
            for _ in 0..<rng.int(1...8) where !bytes.isEmpty {
                let at = rng.int(0...min(headerEnd, bytes.count) - 1)
                switch rng.int(0...3) {
                case 0: bytes[at] = rng.byte()
                case 1: bytes[at] ^= UInt8(1) << UInt8(rng.int(0...7))
                case 2: bytes[at] = [0x00, 0xFF, 0xD8, 0xD9, 0xDA, 0xC0, 0xC2, 0xE1][rng.int(0...7)]
                default: bytes = Array(bytes.prefix(rng.int(0...headerEnd)))
                }
            }
            let context: Comment = "seed \(seed) iteration \(iteration)"
            do {
                let header = try JPEGHeader(bytes: bytes)
                accepted += 1
                #expect(header.width >= 1 && header.height >= 1 && [1, 3, 4].contains(header.componentCount), context)
            } catch {
                refused += 1
                #expect(!error.reason.isEmpty && !error.reason.contains("\n"), context)
            }
            // Every 25th mutant goes through the whole decoder (small tiles keep it quick).
            if iteration % 25 == 0 {
                let outcome = decodeOutcome(folder.write("m\(iteration).jpg", bytes), tile: 16,
                                            limits: DecodeLimits(maxPixels: 4_000_000))
                for problem in [outcome.error, outcome.trailing].compactMap({ $0 }) {
                    #expect(!problem.reason.isEmpty && !problem.reason.contains("\n"), context)
                }
            }
        }
        // Both outcomes are common: the mutations neither always break nor never break a file.
        #expect(accepted > 100 && refused > 100, "seed \(seed): \(accepted) accepted, \(refused) refused")
    }
}
