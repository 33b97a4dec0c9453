import Foundation
import GIFCodec
import CodecCore
import PNGCodec
import SeededRandom
import Testing

/// Random damage to valid GIFs (bytes changed, files cut): the header walk and the decoder
/// either refuse with a one-line reason or deliver every row, and they agree with each other.
/// The seed is printed with MASONRY_TEST_VERBOSE=1 and set with MASONRY_TEST_SEED.
@Suite struct GIFMutationTests {
    static let sources = ["one-colour.gif", "camera-two-colours.gif", "tux-transparent-interlaced.gif",
                          "car-animated-offset-transparent.gif"]

    @Test(arguments: sources)
    func damagedFilesAreRefusedOrDrawn(_ name: String) throws {
        let seed = SplitMix64.suiteSeed ^ UInt64(name.utf8.reduce(0) { $0 &* 31 &+ Int($1) } & 0xFFFF)
        TestLog.verbose("GIFMutationTests \(name) seed 0x\(String(seed, radix: 16))")
        var random = SplitMix64(seed: seed)
        let original = try fixtureFolder.bytes(name)
        let limits = DecodeLimits(maxPixels: 1 << 20, maxWidth: 4096)
        for round in 0..<60 {
            var bytes = original
            if random.int(0...3) == 0 {
                bytes.removeLast(random.int(1...bytes.count - 1))
            } else {
                for _ in 0..<random.int(1...6) {
                    // Mostly the first 64 bytes (screen, tables, descriptors), sometimes anywhere.
                    let at = random.int(0...3) == 0 ? random.int(0...bytes.count - 1) : random.int(0...min(63, bytes.count - 1))
                    bytes[at] = random.byte()
                }
            }
            let context = "\(name) round \(round) seed 0x\(String(seed, radix: 16))"
            let header: GIFHeader
            do {
                header = try GIFHeader(bytes: bytes)
            } catch {
                #expect(!error.reason.isEmpty && !error.reason.contains("\n"), "\(context)")
                #expect(decodeOutcome(bytes, limits: limits).error == error, "\(context)")
                continue
            }
            let outcome = decodeOutcome(bytes, limits: limits)
            if let refusal = limits.refusal(width: header.width, height: header.height) {
                #expect(outcome.error == refusal, "\(context)")
            } else {
                // Whatever the header accepts, giflib reads up to the first frame.
                #expect(outcome.error == nil, "\(context): \(String(describing: outcome.error))")
                #expect(outcome.rows == header.height, "\(context)")
            }
        }
    }
}
