// The default compressor (Masonry's run-length deflate) inside the PNG writer: every image
// decodes through libpng to the same pixels AND its IDAT data inflates with zlib's own
// `uncompress` to exactly the Up-filtered rows; noise takes the stored path; the bytes are
// pinned by a golden digest; what the encoder holds does not grow with the height. (The
// deflater alone is tested in DeflateTests.) Seeded tests print their seed; set
// MASONRY_TEST_SEED to replay another.

import CodecCore
import Foundation
@testable import PNGCodec
import Raster
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("Run-length deflate")
struct RunLengthDeflaterTests {
    /// The rows as the default encoder filters them: type 2 (Up), each byte minus the one above.
    static func upFiltered(_ pixels: [UInt8], width: Int, height: Int, channels: Int) -> [UInt8] {
        let rowBytes = width * channels
        var out: [UInt8] = []
        out.reserveCapacity(height * (rowBytes + 1))
        for y in 0..<height {
            out.append(2)
            for x in 0..<rowBytes {
                out.append(pixels[y * rowBytes + x] &- (y == 0 ? 0 : pixels[(y - 1) * rowBytes + x]))
            }
        }
        return out
    }

    /// The zlib stream of a PNG: its IDAT chunks' data, concatenated.
    static func zlibStream(of png: [UInt8]) -> [UInt8] {
        PNGBytes.chunks(png).filter { $0.type == "IDAT" }.flatMap { png[$0.data] }
    }

    /// Encodes with the default settings and checks both decoders; returns the PNG.
    @discardableResult
    static func checkRoundTrip(_ pixels: [UInt8], width: Int, height: Int, format: PixelFormat,
                               _ label: String) throws -> [UInt8] {
        let png = try PNGEncoder.encode(pixels: pixels, width: width, height: height, format: format)
        let decoded = try PNGDecoder.decodeRGBA(bytes: png)
        #expect(decoded.width == width && decoded.height == height, "\(label)")
        // Bools, not arrays: Swift Testing would diff failing arrays element by element, for ages.
        let samePixels = decoded.pixels == PNGEncoderTests.rgba(from: pixels, format: format)
        #expect(samePixels, "\(label): libpng decodes other pixels")
        let filtered = upFiltered(pixels, width: width, height: height, channels: format.bytesPerPixel)
        let inflated = ZlibReference.inflate(zlibStream(of: png), expectedCount: filtered.count)
        let sameBytes = inflated == filtered
        #expect(sameBytes, "\(label): zlib inflates other bytes (or rejects the stream)")
        return png
    }

    enum Pattern: CaseIterable {
        case flat, gradient, noise, alternatingRows
    }

    static func image(_ pattern: Pattern, width: Int, height: Int, channels: Int, rng: inout SplitMix64) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        let colour = (0..<channels).map { _ in rng.byte() }
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<channels {
                    let value: UInt8 = switch pattern {
                    case .flat: colour[c]
                    case .gradient: UInt8(truncatingIfNeeded: x * (c + 1) + y * 3)
                    case .noise: rng.byte()
                    case .alternatingRows: y % 2 == 0 ? colour[c] : ~colour[c] &+ UInt8(truncatingIfNeeded: x / 5)
                    }
                    pixels[(y * width + x) * channels + c] = value
                }
            }
        }
        return pixels
    }

    @Test("Every pattern round-trips at widths 1-70 and edge shapes", arguments: [PixelFormat.rgb8, .rgba8])
    func shapesAndPatterns(format: PixelFormat) throws {
        var rng = SplitMix64(seed: 0x5A1E)
        let shapes = (1...70).map { ($0, 3) } + [(1, 1), (1, 300), (300, 1), (2, 2), (1000, 40), (4099, 5)]
        for (width, height) in shapes {
            for pattern in Pattern.allCases {
                let pixels = Self.image(pattern, width: width, height: height, channels: format.bytesPerPixel, rng: &rng)
                try Self.checkRoundTrip(pixels, width: width, height: height, format: format,
                                        "\(format) \(width)×\(height) \(pattern)")
            }
        }
    }

    @Test func noiseIsStoredAndFlatAreasAreDynamic() throws {
        var rng = SplitMix64(seed: 0xB10C)
        func firstBlockType(_ pattern: Pattern) throws -> UInt8 {
            let pixels = Self.image(pattern, width: 200, height: 150, channels: 4, rng: &rng)
            let png = try Self.checkRoundTrip(pixels, width: 200, height: 150, format: .rgba8, "\(pattern)")
            return Self.zlibStream(of: png)[2] >> 1 & 0b11  // after CMF and FLG: BFINAL, then BTYPE
        }
        #expect(try firstBlockType(.noise) == 0, "noise should be stored")
        #expect(try firstBlockType(.flat) == 2, "a flat image should be dynamic Huffman")
        #expect(try firstBlockType(.gradient) == 2, "a gradient should be dynamic Huffman")
    }

    @Test("Seeded random images mixing runs and noise round-trip")
    func seededMixtures() throws {
        let seed = SplitMix64.suiteSeed ^ 0xDEF1_A7E
        print("RunLengthDeflaterTests.seededMixtures: seed 0x\(String(seed, radix: 16)) (set MASONRY_TEST_SEED to change)")
        var rng = SplitMix64(seed: seed)
        for index in 0..<300 {
            let format: PixelFormat = rng.chance(2) ? .rgb8 : .rgba8
            let width = rng.int(1...90), height = rng.int(1...40)
            var pixels = [UInt8](repeating: 0, count: width * height * format.bytesPerPixel)
            var at = 0
            while at < pixels.count {  // stretches of one repeated pixel, one byte, or noise
                let stretch = min(rng.int(1...400), pixels.count - at)
                let kind = rng.int(0...2)
                let pixel = (0..<format.bytesPerPixel).map { _ in rng.byte() }
                for offset in 0..<stretch {
                    pixels[at + offset] = kind == 0 ? pixel[(at + offset) % format.bytesPerPixel] : kind == 1 ? pixel[0] : rng.byte()
                }
                at += stretch
            }
            try Self.checkRoundTrip(pixels, width: width, height: height, format: format,
                                    "image \(index) \(format) \(width)×\(height) seed 0x\(String(seed, radix: 16))")
        }
    }

    /// Pins the exact bytes: a change here changes every sheet's PNG, so it must be deliberate.
    @Test func goldenBytes() throws {
        var rng = SplitMix64(seed: 0x601D)
        let width = 97, height = 61
        var pixels = Self.image(.gradient, width: width, height: height, channels: 3, rng: &rng)
        for i in stride(from: 0, to: pixels.count / 2, by: 1) where i % 211 < 90 { pixels[i] = 40 }
        for i in stride(from: pixels.count / 2, to: pixels.count, by: 1) where i % 7 == 0 { pixels[i] = rng.byte() }
        let png = try Self.checkRoundTrip(pixels, width: width, height: height, format: .rgb8, "golden")
        #expect(SHA256.hex(png) == "38c8cff93edcc6ca43d6cb95f8c0881500b22299300ea0e36c91370793e93d8f")
    }

    /// Several row groups: the same bytes whatever the worker count, and they round-trip
    /// (libpng's pixels, zlib's inflate of the joined segments).
    @Test("Bytes do not depend on the worker count", arguments: [PixelFormat.grey8, .rgb8, .rgba8])
    func workerCountDoesNotChangeBytes(format: PixelFormat) throws {
        var rng = SplitMix64(seed: SplitMix64.suiteSeed ^ 0x6209)
        let width = 301, rowBytes = width * format.bytesPerPixel
        let height = 2 * RunLengthPNGWriter.rowsPerGroup(rowBytes: rowBytes) + 17
        var pixels = Self.image(.gradient, width: width, height: height, channels: format.bytesPerPixel, rng: &rng)
        for i in stride(from: 0, to: pixels.count, by: 3) where i % 1009 < 300 { pixels[i] = rng.byte() }
        let reference = try PNGEncoder.encode(pixels: pixels, width: width, height: height, format: format, workers: 1)
        for workers in [2, 3, 8] {
            let png = try PNGEncoder.encode(pixels: pixels, width: width, height: height, format: format, workers: workers)
            // Digests: a failing comparison of whole arrays would diff them, which takes forever.
            #expect(SHA256.hex(png) == SHA256.hex(reference), "\(format), \(workers) workers: \(png.count) vs \(reference.count) bytes")
        }
        try Self.checkRoundTrip(pixels, width: width, height: height, format: format, "\(format), \(height) rows")
        let adaptive = PNGEncodingSettings(compressor: .masonryRLE, filter: .adaptive)
        let one = try PNGEncoder.encode(pixels: pixels, width: width, height: height, format: format, settings: adaptive, workers: 1)
        let three = try PNGEncoder.encode(pixels: pixels, width: width, height: height, format: format, settings: adaptive, workers: 3)
        #expect(SHA256.hex(one) == SHA256.hex(three), "\(format), adaptive filter")
        let decoded = try PNGDecoder.decodeRGBA(bytes: three).pixels
        #expect(SHA256.hex(decoded) == SHA256.hex(PNGEncoderTests.rgba(from: pixels, format: format)), "\(format), adaptive filter")
    }

    @Test func writeProblemsReadLikeLibpngs() throws {
        let readOnly = open("/dev/null", O_RDONLY)
        try #require(readOnly >= 0)
        defer { close(readOnly) }
        var messages: [String] = []
        for settings in [PNGEncodingSettings.default, .small] {
            do {
                let encoder = try PNGEncoder(fileDescriptor: readOnly, width: 2, height: 1, format: .rgb8, settings: settings)
                try [UInt8](repeating: 7, count: 6).withUnsafeBufferPointer { (row) throws(ImageError) in try encoder.writeRow(row) }
                try encoder.finish()
                Issue.record("writing to a read-only descriptor succeeded with \(settings)")
            } catch {
                #expect(error.kind == .io)
                messages.append(error.reason)
            }
        }
        #expect(messages == ["write failed: Bad file descriptor", "write failed: Bad file descriptor"])
    }

    /// A 4000×4000 RGBA noise image (64 MB of pixels, stored blocks so about as
    /// much output), streamed to a file from eight reused rows: at every point the
    /// file already holds all but a bounded tail of what went in (a row group per
    /// worker and the one being filled, one IDAT chunk), so the encoder holds no
    /// more than that whatever the height. (Resident memory is not a usable measure here: other tests run in
    /// parallel in this process.)
    @Test func streamingMemoryDoesNotDependOnHeight() throws {
        let side = 4000, rowBytes = side * 4
        var rng = SplitMix64(seed: 0x4000)
        let rows = (0..<8).map { _ in rng.bytes(rowBytes) }
        let folder = TemporaryFolder("pngcodec-stream")
        let fd = open(folder.file("tall.png"), O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(fd >= 0)
        defer { close(fd) }
        let workers = 3
        let encoder = try PNGEncoder(fileDescriptor: fd, width: side, height: side, format: .rgba8, workers: workers)
        // The group being filled and one per worker, one IDAT chunk, a little overhead.
        let bound = (workers + 1) * RunLengthPNGWriter.rowsPerGroup(rowBytes: rowBytes) * (rowBytes + 1)
            + RunLengthPNGWriter.idatCapacity + 4096
        var largestLag = 0
        for y in 0..<side {
            try rows[y % rows.count].withUnsafeBufferPointer { (row) throws(ImageError) in try encoder.writeRow(row) }
            if y % 100 == 99 {
                var status = stat()
                try #require(fstat(fd, &status) == 0)
                largestLag = max(largestLag, (y + 1) * (rowBytes + 1) - Int(status.st_size))
            }
        }
        try encoder.finish()
        #expect(largestLag <= bound, "the file lagged \(largestLag) bytes behind the input (bound \(bound))")
        var status = stat()
        try #require(fstat(fd, &status) == 0)
        #expect(Int(status.st_size) > side * (rowBytes + 1), "noise should be stored, with a little overhead")
    }
}

extension SplitMix64 {
    fileprivate mutating func chance(_ oneIn: Int) -> Bool { Int.random(in: 0..<oneIn, using: &self) == 0 }
}
