import Foundation
import GIFCodec
import CodecCore
import PNGCodec
import SeededRandom
import Testing

/// Random GIFs built byte by byte (screen sizes, frame offsets reaching past the screen, global
/// and local palettes of any size, transparency, interlacing, code sizes 2...8) decode to the
/// canvas computed here straight from the indices. The seed is printed with
/// MASONRY_TEST_VERBOSE=1 and set with MASONRY_TEST_SEED.
@Suite struct GIFCompositingTests {
    @Test func randomGIFsMatchTheirIndices() throws {
        let seed = SplitMix64.suiteSeed ^ 0x61F0
        TestLog.verbose("GIFCompositingTests seed 0x\(String(seed, radix: 16))")
        var random = SplitMix64(seed: seed)
        for round in 0..<150 {
            let context = "round \(round) seed 0x\(String(seed, radix: 16))"
            let codeSize = random.int(2...8)
            let screen = (width: random.int(0...24), height: random.int(0...24))
            let frame = (left: random.int(0...8), top: random.int(0...8), width: random.int(1...20), height: random.int(1...20))
            func palette() -> [UInt8]? {
                random.int(0...4) == 0 ? nil : random.bytes(3 * random.int(1...(1 << codeSize)))
            }
            let global = palette(), local = random.int(0...1) == 0 ? palette() : nil
            let transparent = random.int(0...2) == 0 ? random.int(0...(1 << codeSize) - 1) : nil
            let interlaced = random.int(0...1) == 0
            let indices = (0 ..< frame.width * frame.height).map { _ in UInt8(random.int(0...(1 << codeSize) - 1)) }
            var stored = Array(0 ..< frame.height)
            if interlaced {
                stored = [(0, 8), (4, 8), (2, 4), (1, 2)].flatMap { stride(from: $0.0, to: frame.height, by: $0.1) }
            }
            let storedIndices = stored.flatMap { indices[$0 * frame.width ..< ($0 + 1) * frame.width] }
            var bytes = GIFBytes.screen(width: screen.width, height: screen.height, palette: global)
            if transparent != nil || random.int(0...1) == 0 { bytes += GIFBytes.graphicControl(transparent: transparent) }
            bytes += GIFBytes.frame(left: frame.left, top: frame.top, width: frame.width, height: frame.height,
                                    indices: storedIndices, codeSize: codeSize, interlaced: interlaced, localPalette: local)
            bytes += GIFBytes.trailer

            // The expected canvas: the screen grown to hold the frame, transparent outside it;
            // the local table over the global one, padded with black; grey i without a table.
            let width = max(screen.width, frame.left + frame.width), height = max(screen.height, frame.top + frame.height)
            let table = (local ?? global).map { GIFBytes.paddedTable($0).bytes }
            var expected = [UInt8](repeating: 0, count: width * height * 4)
            for y in 0 ..< frame.height {
                for x in 0 ..< frame.width {
                    let index = Int(indices[y * frame.width + x])
                    let at = ((frame.top + y) * width + frame.left + x) * 4
                    let rgb: [UInt8] = table.map { index * 3 + 3 <= $0.count ? Array($0[index * 3 ..< index * 3 + 3]) : [0, 0, 0] }
                        ?? [UInt8(index), UInt8(index), UInt8(index)]
                    expected.replaceSubrange(at ..< at + 4, with: rgb + [index == transparent ? 0 : 255])
                }
            }
            let outcome = decodeOutcome(bytes)
            #expect(outcome.error == nil && outcome.trailing == nil, "\(context)")
            #expect(visibleDifferences(outcome.pixels, expected) == 0, "\(context)")
            let header = try GIFHeader(bytes: bytes)
            #expect(header.width == width && header.height == height && header.frameCount == 1, "\(context)")
        }
    }
}
