// PNGEncoder: seeded random images round-trip bit-exactly at every level, the
// same pixels always give the same bytes, and a row-streamed encode to a file
// equals the in-memory encode. Set MASONRY_TEST_SEED to replay another seed.

import Foundation
import CodecCore
import PNGCodec
import Raster
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("PNG encoder")
struct PNGEncoderTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var format: PixelFormat
        var level: Int
        var testDescription: String { "\(format) level \(level)" }
    }

    static let cases: [Case] = [PixelFormat.rgb8, .rgba8].flatMap { format in
        [0, 1, 6, 9].map { Case(format: format, level: $0) }
    }
    static let strategies: [PNGEncodingSettings.Strategy] = [.default, .rle, .filtered]
    static let filters: [PNGEncodingSettings.Filter] = [.none, .sub, .up, .average, .paeth, .adaptive]
    static let imagesPerCase = 6

    /// Random pixels of one of a few kinds, so filters and deflate meet both
    /// noise and smooth or flat areas.
    static func randomImage(_ rng: inout SplitMix64, channels: Int) -> (width: Int, height: Int, pixels: [UInt8]) {
        let sizes = [(1, 1), (1, 200), (300, 1), (300, 200), (2, 3)]
        let (width, height) = Int.random(in: 0..<4, using: &rng) == 0
            ? sizes[Int.random(in: 0..<sizes.count, using: &rng)]
            : (Int.random(in: 1...300, using: &rng), Int.random(in: 1...200, using: &rng))
        let kind = Int.random(in: 0..<3, using: &rng)
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        switch kind {
        case 0:  // noise
            for i in pixels.indices { pixels[i] = UInt8(truncatingIfNeeded: rng.next()) }
        case 1:  // gradients with a little noise
            for y in 0..<height {
                for x in 0..<width {
                    for c in 0..<channels {
                        pixels[(y * width + x) * channels + c] =
                            UInt8(truncatingIfNeeded: x * (c + 1) + y * 2 + Int(rng.next() % 3))
                    }
                }
            }
        default:  // flat blocks (alpha 0, 255 and in between)
            let palette = (0..<4).map { _ in (0..<channels).map { _ in UInt8(truncatingIfNeeded: rng.next()) } }
            for y in 0..<height {
                for x in 0..<width {
                    let colour = palette[(x / 16 + y / 16) % palette.count]
                    for c in 0..<channels { pixels[(y * width + x) * channels + c] = colour[c] }
                }
            }
        }
        return (width, height, pixels)
    }

    static func rgba(from pixels: [UInt8], format: PixelFormat) -> [UInt8] {
        switch format {
        case .rgba8, .opaqueRGBA8: return pixels
        case .rgb8:
            var out = [UInt8]()
            out.reserveCapacity(pixels.count / 3 * 4)
            for i in stride(from: 0, to: pixels.count, by: 3) { out += [pixels[i], pixels[i + 1], pixels[i + 2], 255] }
            return out
        case .grey8:
            return pixels.flatMap { grey -> [UInt8] in [grey, grey, grey, 255] }
        }
    }

    @Test("Random images round-trip bit-exactly", arguments: cases)
    func roundTrip(_ testCase: Case) throws {
        let channels = testCase.format == .rgb8 ? 3 : 4
        let seed = SplitMix64.suiteSeed ^ UInt64(testCase.level << 8 | channels)
        print("PNGEncoderTests.roundTrip \(testCase.testDescription): seed 0x\(String(seed, radix: 16)) (suite seed 0x\(String(SplitMix64.suiteSeed, radix: 16)); set MASONRY_TEST_SEED to change)")
        var rng = SplitMix64(seed: seed)
        for index in 0..<Self.imagesPerCase {
            let (width, height, pixels) = Self.randomImage(&rng, channels: channels)
            let settings = PNGEncodingSettings(level: testCase.level,
                                               strategy: Self.strategies[index % Self.strategies.count],
                                               filter: Self.filters[(index + testCase.level) % Self.filters.count])
            let label = "\(testCase.testDescription) image \(index) \(width)×\(height) \(settings.compressor)/\(settings.filter) seed 0x\(String(seed, radix: 16))"
            let encoded = try PNGEncoder.encode(pixels: pixels, width: width, height: height,
                                                format: testCase.format, settings: settings)
            let header = try PNGHeader(parsing: encoded)
            #expect(header.width == width && header.height == height && header.bitDepth == 8, "\(label)")
            #expect(header.colorType == (testCase.format == .rgb8 ? .rgb : .rgba) && !header.isInterlaced, "\(label)")
            let decoded = try PNGDecoder.decodeRGBA(bytes: encoded)
            #expect(decoded.width == width && decoded.height == height, "\(label)")
            #expect(decoded.pixels == Self.rgba(from: pixels, format: testCase.format), "\(label): pixels changed")
            let again = try PNGEncoder.encode(pixels: pixels, width: width, height: height,
                                              format: testCase.format, settings: settings)
            #expect(again == encoded, "\(label): encoding twice gave different bytes")
        }
    }

    @Test("Grey images round-trip as grey, through both compressors",
          arguments: [PNGEncodingSettings.default, .small, PNGEncodingSettings(level: 1, strategy: .rle, filter: .sub)])
    func greyRoundTrip(settings: PNGEncodingSettings) throws {
        let seed = SplitMix64.suiteSeed ^ 0x6E7
        var rng = SplitMix64(seed: seed)
        for _ in 0..<8 {
            let (width, height, pixels) = Self.randomImage(&rng, channels: 1)
            let label = "\(width)×\(height) \(settings.compressor) seed 0x\(String(seed, radix: 16))"
            let encoded = try PNGEncoder.encode(pixels: pixels, width: width, height: height, format: .grey8, settings: settings)
            #expect(try PNGHeader(parsing: encoded).colorType == .grey, "\(label)")
            let decoder = try PNGDecoder(bytes: encoded, compactOpaqueRows: true)
            var decoded = [UInt8]()
            try decoder.readRows { _, row in decoded += row }
            #expect(decoder.rowFormat == .grey8 && decoded == pixels, "\(label)")
        }
    }

    @Test("Row-streamed encode to a file equals the in-memory encode",
          arguments: [PNGEncodingSettings.fast, .default, .small, PNGEncodingSettings(level: 0, strategy: .default, filter: .none)])
    func streamedEqualsInMemory(settings: PNGEncodingSettings) throws {
        var rng = SplitMix64(seed: SplitMix64.suiteSeed ^ 0x5EED)
        for format in [PixelFormat.rgb8, .rgba8] {
            let channels = format == .rgb8 ? 3 : 4
            let (width, height, pixels) = Self.randomImage(&rng, channels: channels)
            let inMemory = try PNGEncoder.encode(pixels: pixels, width: width, height: height, format: format, settings: settings)

            var template = Array("/tmp/pngcodec-encode-XXXXXX".utf8CString)
            let fd = mkstemp(&template)
            try #require(fd >= 0)
            let path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
            defer { close(fd); unlink(path) }
            let encoder = try PNGEncoder(fileDescriptor: fd, width: width, height: height, format: format, settings: settings)
            let rowBytes = width * channels
            try pixels.withUnsafeBufferPointer { all in
                for y in 0..<height {
                    try encoder.writeRow(UnsafeBufferPointer(rebasing: all[y * rowBytes ..< (y + 1) * rowBytes]))
                }
            }
            try encoder.finish()
            let onDisk = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            #expect(onDisk == inMemory, "\(format) \(width)×\(height) \(settings): file \(onDisk.count) bytes, memory \(inMemory.count) bytes")
            #expect(try PNGDecoder.decodeRGBA(contentsOfFile: path).pixels == Self.rgba(from: pixels, format: format))
        }
    }

    @Test func outputHasNoTimeOrTextChunks() throws {
        let encoded = try PNGEncoder.encode(pixels: [1, 2, 3, 4, 5, 6], width: 2, height: 1, format: .rgb8)
        var chunks: [String] = []
        var offset = 8
        while offset + 8 <= encoded.count {
            let length = Int(encoded[offset]) << 24 | Int(encoded[offset + 1]) << 16 | Int(encoded[offset + 2]) << 8 | Int(encoded[offset + 3])
            chunks.append(String(decoding: encoded[offset + 4 ..< offset + 8], as: UTF8.self))
            let data = Array(encoded[offset + 4 ..< offset + 8 + length])
            let crc = UInt32(encoded[offset + 8 + length]) << 24 | UInt32(encoded[offset + 9 + length]) << 16
                | UInt32(encoded[offset + 10 + length]) << 8 | UInt32(encoded[offset + 11 + length])
            #expect(crc == Checksum.crc32(data), "bad CRC in \(chunks.last!)")
            offset += 12 + length
        }
        #expect(offset == encoded.count)
        #expect(chunks.first == "IHDR" && chunks.last == "IEND")
        #expect(chunks.allSatisfy { ["IHDR", "IDAT", "IEND"].contains($0) }, "chunks: \(chunks)")
    }

    @Test func encoderRejectsBadInput() {
        #expect(throws: ImageError.self) { try PNGEncoder.encode(pixels: [0, 0, 0], width: 2, height: 1, format: .rgb8) }
        #expect(throws: ImageError.self) { try PNGEncoder.encode(pixels: [], width: 0, height: 0, format: .rgba8) }
        #expect(throws: ImageError.self) {
            try PNGEncoder.encode(pixels: [0, 0, 0], width: 1, height: 1, format: .rgb8,
                                  settings: PNGEncodingSettings(level: 10, strategy: .default, filter: .up))
        }
    }
}
