// Masonry's deflate encoder on its own: any data, cut into segments that are compressed
// independently and joined, inflates with zlib's own `uncompress` to exactly that data, across
// block boundaries and stored blocks; the Huffman builder respects deflate's length limits.
// Seeded tests print their seed; set MASONRY_TEST_SEED to replay another.

@testable import Deflate
import TestSupport
import Testing

@Suite("Deflate encoder")
struct DeflaterTests {
    /// Small blocks put many block boundaries (and runs crossing them) in a short
    /// stream; a block over 65535 bytes of noise needs several stored blocks. The data
    /// is cut into one to three segments (one deflater, reset between them), joined
    /// into one zlib stream with the header and Adler-32 around them, as the writer does.
    @Test("Many small blocks, stored blocks over 64 KiB, segments joined")
    func blockBoundaries() throws {
        let seed = SplitMix64.suiteSeed ^ 0xB10C_5
        print("DeflaterTests.blockBoundaries: seed 0x\(String(seed, radix: 16))")
        var rng = SplitMix64(seed: seed)
        for (blockBytes, total) in [(16, 3000), (37, 5000), (1000, 20000), (1 << 17, 300_000)] {
            for bytesPerPixel in [3, 4] {
                var data: [UInt8] = []
                while data.count < total {
                    let stretch = rng.int(1...600)
                    let byte = rng.byte()
                    data += (0..<stretch).map { offset in
                        if blockBytes > 65535 { return rng.byte() }  // noise: stored blocks
                        return rng.int(0...2) == 0 ? byte : UInt8(truncatingIfNeeded: offset % bytesPerPixel)
                    }
                }
                let deflater = RunLengthDeflater(bytesPerPixel: bytesPerPixel, blockBytes: blockBytes)
                var stream: [UInt8] = [0x78, 0x01]
                let collect = { (bytes: UnsafeBufferPointer<UInt8>) in stream += bytes }
                let cuts = ([0, data.count] + (0..<rng.int(0...2)).map { _ in rng.int(1...(data.count - 1)) }).sorted()
                for (start, end) in zip(cuts, cuts.dropFirst()) where start < end {
                    deflater.reset()
                    var offset = start
                    while offset < end {  // uneven pieces, like rows of different widths
                        let piece = min(rng.int(1...5000), end - offset)
                        data[offset ..< offset + piece].withUnsafeBufferPointer { deflater.append($0, to: collect) }
                        offset += piece
                    }
                    deflater.finish(isFinal: end == data.count, to: collect)
                }
                stream += PNGBytes.be32(Checksum.adler32(data))
                #expect(ZlibReference.inflate(stream, expectedCount: data.count) == data,
                        "block \(blockBytes), \(bytesPerPixel) bytes per pixel, cuts \(cuts), seed 0x\(String(seed, radix: 16))")
            }
        }
    }

    @Test func huffmanLengthsStayWithinDeflateLimits() {
        // Fibonacci frequencies make an optimal tree as deep as there are symbols.
        var fibonacci = [1, 1]
        while fibonacci.count < 30 { fibonacci.append(fibonacci[fibonacci.count - 1] + fibonacci[fibonacci.count - 2]) }
        let cases: [(frequencies: [Int], maxLength: Int)] = [
            (fibonacci + [Int](repeating: 0, count: 256), 15),
            (Array(fibonacci.reversed()) + [1, 1, 1], 15),
            (Array(fibonacci[..<19]), 7),
            ((0..<286).map { $0 % 7 == 0 ? 1 << min($0 / 7, 40) : 0 }, 15),
            ([5] + [Int](repeating: 0, count: 29), 15),
            ([Int](repeating: 0, count: 19), 7),
        ]
        for (frequencies, maxLength) in cases {
            let code = HuffmanCode(frequencies: frequencies, maxLength: maxLength)
            let lengths = code.lengths.map(Int.init)
            #expect(lengths.max()! <= maxLength, "\(frequencies)")
            // Complete: the Kraft sum is exactly one, as zlib's inflate insists.
            let kraftSum = lengths.filter { $0 > 0 }.reduce(0) { (sum: Int, length: Int) in sum + 1 << (maxLength - length) }
            #expect(kraftSum == 1 << maxLength, "\(frequencies)")
            #expect(lengths.filter { $0 > 0 }.count >= 2)
            for a in frequencies.indices where frequencies[a] > 0 {
                for b in frequencies.indices where frequencies[b] > frequencies[a] {
                    #expect(lengths[b] <= lengths[a], "a more frequent symbol got a longer code")
                }
            }
        }
    }
}
