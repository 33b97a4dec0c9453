import Foundation
@_exported import TestSupport
import Testing
@testable import Raster

/// An 8-bit RGBA image in memory (straight or premultiplied, as the test says).
struct TestImage: Equatable {
    var width: Int
    var height: Int
    var pixels: [UInt8]

    init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * 4)
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    init(width: Int, height: Int, pixel: (Int, Int) -> (UInt8, UInt8, UInt8, UInt8)) {
        var pixels = [UInt8]()
        pixels.reserveCapacity(width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let (r, g, b, a) = pixel(x, y)
                pixels += [r, g, b, a]
            }
        }
        self.init(width: width, height: height, pixels: pixels)
    }

    /// Reads a binary PPM (P6, maxval 255) fixture; alpha becomes 255.
    init(fixture name: String) throws {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "ppm", subdirectory: "Fixtures"),
                               "missing fixture \(name).ppm")
        let bytes = [UInt8](try Data(contentsOf: url))
        // Header: "P6", width, height, 255, each followed by one whitespace byte (no comments here).
        var fields = [String](), field = "", offset = 0
        while fields.count < 4 {
            let byte = bytes[offset]
            offset += 1
            if byte == 0x20 || byte == 0x0A {
                if !field.isEmpty { fields.append(field); field = "" }
            } else {
                field.append(Character(UnicodeScalar(byte)))
            }
        }
        #expect(fields[0] == "P6" && fields[3] == "255", "\(name).ppm is not an 8-bit binary PPM")
        let width = try #require(Int(fields[1])), height = try #require(Int(fields[2]))
        try #require(bytes.count - offset == width * height * 3, "\(name).ppm is truncated")
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for index in 0..<width * height {
            pixels[4 * index] = bytes[offset + 3 * index]
            pixels[4 * index + 1] = bytes[offset + 3 * index + 1]
            pixels[4 * index + 2] = bytes[offset + 3 * index + 2]
        }
        self.init(width: width, height: height, pixels: pixels)
    }

    func resampled(toWidth: Int, toHeight: Int) -> TestImage {
        TestImage(width: toWidth, height: toHeight,
                  pixels: resample(pixels: pixels, width: width, height: height, toWidth: toWidth, toHeight: toHeight))
    }

    subscript(x: Int, y: Int) -> [UInt8] {
        Array(pixels[(y * width + x) * 4 ..< (y * width + x) * 4 + 4])
    }

    /// Peak signal-to-noise ratio in dB over the R, G and B channels.
    func psnr(against other: TestImage) -> Double {
        precondition(width == other.width && height == other.height)
        var squaredError = 0.0
        for index in pixels.indices where index % 4 != 3 {
            let difference = Double(pixels[index]) - Double(other.pixels[index])
            squaredError += difference * difference
        }
        let meanSquaredError = squaredError / Double(width * height * 3)
        return meanSquaredError == 0 ? .infinity : 10 * log10(255 * 255 / meanSquaredError)
    }
}

extension SplitMix64 {
    /// The seed for property tests: `RASTER_TEST_SEED` if set, else a fixed default.
    static var testSeed: UInt64 {
        ProcessInfo.processInfo.environment["RASTER_TEST_SEED"].flatMap { UInt64($0) } ?? 20_240_601
    }
}

/// A random straight RGBA image with opaque or varied alpha.
func randomImage(width: Int, height: Int, opaque: Bool, using generator: inout SplitMix64) -> TestImage {
    var pixels = (0..<width * height * 4).map { _ in UInt8.random(in: 0...255, using: &generator) }
    if opaque { for index in stride(from: 3, to: pixels.count, by: 4) { pixels[index] = 255 } }
    return TestImage(width: width, height: height, pixels: pixels)
}

/// 64-bit FNV-1a, to pin output bytes in a test.
func fnv1a(_ bytes: [UInt8]) -> UInt64 {
    bytes.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
}
