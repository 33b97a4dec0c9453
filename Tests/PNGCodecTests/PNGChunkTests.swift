// PNGChunk (the writer's container code) against the tests' own byte builder, whose CRC-32
// is computed independently of the codec: same bytes for seeded random chunks, and files it
// frames are read back by libpng. Seeded; set MASONRY_TEST_SEED to replay another.

import CodecCore
import PNGCodec
import Testing

@Suite("PNG chunks")
struct PNGChunkTests {
    @Test func chunksMatchTheIndependentBuilder() {
        let seed = SplitMix64.suiteSeed ^ 0xC4A2
        print("PNGChunkTests.chunksMatchTheIndependentBuilder: seed 0x\(String(seed, radix: 16))")
        var rng = SplitMix64(seed: seed)
        for type in ["IHDR", "PLTE", "IDAT", "IEND", "tEXt", "zzZz"] {
            for _ in 0..<20 {
                let data = rng.bytes(rng.int(0...300))
                #expect(PNGChunk.bytes(type: type, data: data) == PNGBytes.chunk(type, data),
                        "\(type), \(data.count) bytes, seed 0x\(String(seed, radix: 16))")
            }
        }
        #expect(PNGChunk.signature == PNGBytes.signature)
        for (width, height, bitDepth, colorType) in [(1, 1, 8, 6), (4000, 3, 16, 2), (0x12345, 0x7FFF_FFFF, 1, 0)] {
            #expect(PNGChunk.header(width: width, height: height, bitDepth: UInt8(bitDepth), colorType: UInt8(colorType))
                    == PNGBytes.ihdr(width: UInt32(width), height: UInt32(height), bitDepth: UInt8(bitDepth),
                                     colorType: UInt8(colorType)))
        }
    }

    @Test func aFileFramedByPNGChunkDecodes() throws {
        let pixels: [UInt8] = [255, 0, 0, 255, 0, 255, 0, 128, 0, 0, 255, 0, 9, 9, 9, 255]
        let file = PNGChunk.signature + PNGChunk.header(width: 2, height: 2, bitDepth: 8, colorType: 6)
            + PNGChunk.bytes(type: "IDAT", data: PNGBytes.zlibStored(PNGBytes.filtered(width: 2, height: 2, pixels: pixels)))
            + PNGChunk.bytes(type: "IEND", data: [])
        let decoded = try PNGDecoder.decodeRGBA(bytes: file)
        #expect(decoded.width == 2 && decoded.height == 2)
        #expect(decoded.pixels == pixels)
    }
}
