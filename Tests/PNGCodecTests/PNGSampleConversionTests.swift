// SPEC §2 sample conversion, on hand-built images that cover what PngSuite
// only samples: every 16-bit value's rounding, tRNS keys at every depth
// (raw comparison, all 16 bits), and a palette with a short tRNS.

import CodecCore
import PNGCodec
import Testing

@Suite("Sample conversion to RGBA8")
struct PNGSampleConversionTests {
    /// signature + IHDR + [PLTE] + [tRNS] + IDAT(stored) + IEND; `rows` are
    /// already packed (without the filter byte).
    static func png(width: Int, height: Int, bitDepth: UInt8, colorType: UInt8, rows: [[UInt8]],
                    plte: [UInt8]? = nil, trns: [UInt8]? = nil) -> [UInt8] {
        var raw: [UInt8] = []
        for row in rows { raw.append(0); raw += row }
        var bytes = PNGBytes.signature + PNGBytes.ihdr(width: UInt32(width), height: UInt32(height),
                                                       bitDepth: bitDepth, colorType: colorType)
        if let plte { bytes += PNGBytes.chunk("PLTE", plte) }
        if let trns { bytes += PNGBytes.chunk("tRNS", trns) }
        return bytes + PNGBytes.chunk("IDAT", PNGBytes.zlibStored(raw)) + PNGBytes.chunk("IEND")
    }

    static func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }

    /// The rule: (v * 255 + 32767) / 65535, i.e. round(v / 257).
    static func to8(_ v: Int) -> UInt8 { UInt8((v * 255 + 32767) / 65535) }

    @Test func everySixteenBitValueRoundsToNearest() throws {
        // 256×256 grey16 holding each value 0...65535 once.
        let rows = (0..<256).map { y in (0..<256).flatMap { x in Self.be16(y * 256 + x) } }
        let image = try PNGDecoder.decodeRGBA(bytes: Self.png(width: 256, height: 256, bitDepth: 16, colorType: 0, rows: rows))
        var wrong: [String] = []
        for v in 0..<65536 {
            let expected = Self.to8(v)
            let p = image.pixels[v * 4 ..< v * 4 + 4]
            if Array(p) != [expected, expected, expected, 255] {
                wrong.append("\(v) -> \(Array(p)) (expected \(expected))")
            }
        }
        #expect(wrong.isEmpty, "\(wrong.count) of 65536 values wrong, first: \(wrong.prefix(5))")
        // The rule rounds where the high byte would truncate (or overshoot).
        #expect(Self.to8(0x00FF) == 1 && Self.to8(0xFE01) == 253 && Self.to8(0xE739) == 230 && Self.to8(128) == 0 && Self.to8(129) == 1)
    }

    @Test func sixteenBitAlphaAndColourRound() throws {
        // RGBA16 with samples around rounding boundaries.
        let samples = [0, 128, 129, 385, 386, 0x7F7F, 0x7FBF, 0x7FC0, 0xFF7F, 0xFF80, 0xFFFF, 0xE739]
        let row = samples.flatMap(Self.be16)  // 3 pixels of 4 samples
        let image = try PNGDecoder.decodeRGBA(bytes: Self.png(width: 3, height: 1, bitDepth: 16, colorType: 6, rows: [row]))
        #expect(image.pixels == samples.map(Self.to8))
        // grey+alpha 16
        let ga = try PNGDecoder.decodeRGBA(bytes: Self.png(width: 1, height: 1, bitDepth: 16, colorType: 4,
                                                           rows: [Self.be16(0x7FC0) + Self.be16(386)]))
        #expect(ga.pixels == [Self.to8(0x7FC0), Self.to8(0x7FC0), Self.to8(0x7FC0), Self.to8(386)])
    }

    @Test func sixteenBitRGBKeyComparesAllSixteenBits() throws {
        let key = [0x1234, 0x5678, 0x9ABC]
        let pixels: [[Int]] = [key, [0x12FF, 0x5678, 0x9ABC], [0x1234, 0x5678, 0x9A00], [0, 0, 0]]
        let row = pixels.flatMap { $0.flatMap(Self.be16) }
        let image = try PNGDecoder.decodeRGBA(bytes: Self.png(width: 4, height: 1, bitDepth: 16, colorType: 2,
                                                              rows: [row], trns: key.flatMap(Self.be16)))
        #expect(stride(from: 3, to: 16, by: 4).map { image.pixels[$0] } == [0, 255, 255, 255],
                "only the exact 16-bit key is transparent; same high bytes are not enough")
        #expect(Array(image.pixels[0..<3]) == key.map(Self.to8), "colour is kept under alpha 0")
    }

    @Test func sixteenBitGreyKeyComparesAllSixteenBits() throws {
        let row = [0xABCD, 0xAB00, 0xABCD, 0xFFFF].flatMap(Self.be16)
        let image = try PNGDecoder.decodeRGBA(bytes: Self.png(width: 4, height: 1, bitDepth: 16, colorType: 0,
                                                              rows: [row], trns: Self.be16(0xABCD)))
        #expect(stride(from: 3, to: 16, by: 4).map { image.pixels[$0] } == [0, 255, 0, 255])
    }

    static let greyCases: [(depth: UInt8, values: [UInt8])] = [
        (1, [0, 1]), (2, [0, 1, 2, 3]), (4, Array(0...15)), (8, [0, 1, 127, 254, 255]),
    ]

    @Test(arguments: greyCases)
    func lowBitGreyScalesAndKeysOnRawValue(depth: UInt8, values: [UInt8]) throws {
        // Pack the values MSB first; key = the second-largest value (raw, not scaled).
        var packed: [UInt8] = []
        var acc = 0, bits = 0
        for v in values {
            acc = acc << Int(depth) | Int(v)
            bits += Int(depth)
            if bits == 8 { packed.append(UInt8(acc)); acc = 0; bits = 0 }
        }
        if bits > 0 { packed.append(UInt8(acc << (8 - bits))) }
        let key = values[values.count - 2]
        let image = try PNGDecoder.decodeRGBA(bytes: Self.png(width: values.count, height: 1, bitDepth: depth, colorType: 0,
                                                              rows: [packed], trns: [0, key]))
        let scale = 255 / ((1 << Int(depth)) - 1)
        let expected = values.flatMap { v -> [UInt8] in
            let g = UInt8(Int(v) * scale)
            return [g, g, g, v == key ? 0 : 255]
        }
        #expect(image.pixels == expected, "depth \(depth)")
    }

    @Test func paletteWithShortTRNS() throws {
        // 4 colours, tRNS for the first two only: indices 2 and 3 are opaque.
        let plte: [UInt8] = [255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 20, 30]
        let image = try PNGDecoder.decodeRGBA(bytes: Self.png(width: 4, height: 1, bitDepth: 2, colorType: 3,
                                                              rows: [[0b0001_1011]], plte: plte, trns: [0, 128]))
        #expect(image.pixels == [255, 0, 0, 0, 0, 255, 0, 128, 0, 0, 255, 255, 10, 20, 30, 255])
    }

    @Test func eightBitRGBKeyAndAncillaryColourChunksIgnored() throws {
        // gAMA 1.0/2.2-ish, sRGB, bKGD and sBIT must not change any sample.
        let row: [UInt8] = [1, 2, 3, 200, 100, 50, 1, 2, 4]
        var bytes = PNGBytes.signature + PNGBytes.ihdr(width: 3, height: 1, bitDepth: 8, colorType: 2)
        bytes += PNGBytes.chunk("gAMA", PNGBytes.be32(100_000))
        bytes += PNGBytes.chunk("sBIT", [3, 3, 3])
        bytes += PNGBytes.chunk("bKGD", [0, 255, 0, 255, 0, 255])
        bytes += PNGBytes.chunk("tRNS", [0, 1, 0, 2, 0, 3])
        bytes += PNGBytes.chunk("IDAT", PNGBytes.zlibStored([0] + row)) + PNGBytes.chunk("IEND")
        let image = try PNGDecoder.decodeRGBA(bytes: bytes)
        #expect(image.pixels == [1, 2, 3, 0, 200, 100, 50, 255, 1, 2, 4, 255])
    }
}
