import ColorManagement
import Foundation
import WorkerThreads
import SeededRandom
import Testing
import TestSupport

/// The shared transforms: one per profile for all threads, and premultiplied rows converted as
/// their straight colours would be.
@Suite struct ColorTransformTests {
    static let fixtures = FixtureFolder(in: .module)

    /// A grey gAMA picture's 256 levels through its built profile match the exact formula
    /// (linear = v^(100000 / gAMA), sRGB-encoded) to one step. PngSuite's g25n0g16 holds
    /// 257/65535, level 1 once scaled to 8 bits, which gAMA 2.5 takes to 93 (issue #31: lcms's
    /// optimised 8-bit grey path gave 17).
    @Test(arguments: [35000, 45455, 100000, 250000] as [UInt32])
    func greyGammaLevelsAreExact(gamma: UInt32) throws {
        let profile = try #require(SourceColorSpace.pngGamma(gamma: gamma, chromaticities: nil).profile(for: .grey))
        let transform = try ColorTransform(profile: profile, layout: .grey8)
        var levels = (0...255).map { UInt8($0) }
        levels.withUnsafeMutableBufferPointer { transform.apply($0) }
        for level in 0...255 {
            let linear = pow(Double(level) / 255, 100000 / Double(gamma))
            let encoded = linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055
            let expected = Int((encoded * 255).rounded())
            #expect(abs(Int(levels[level]) - expected) <= 1, "gAMA \(gamma), level \(level): \(levels[level]), not \(expected)")
        }
        if gamma == 250000 { #expect(levels[1] == 93) }
        // The same levels on premultiplied RGBA rows (the sheet's tiles), opaque pixels.
        let tile = try ColorTransform(profile: profile, layout: .premultipliedRGBA8)
        var row = [UInt8](repeating: 255, count: 256 * 4)
        for level in 0...255 { row.replaceSubrange(4 * level ..< 4 * level + 3, with: repeatElement(UInt8(level), count: 3)) }
        row.withUnsafeMutableBufferPointer { tile.apply($0) }
        let tileLevels: [UInt8] = (0...255).map { row[4 * $0 + 1] }
        #expect(tileLevels == levels)
    }

    @Test func oneTransformPerProfileForAllThreads() throws {
        let cache = ColorTransformCache()
        let profiles = try ["display-p3.icc", "adobe-rgb-1998.icc"].map { try ICCProfile(bytes: Self.fixtures.bytes($0)) }
        let built = Lock<[ObjectIdentifier]>([])
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            let transform = try! cache.transform(for: profiles[index % 2], layout: .premultipliedRGBA8).get()
            var row = [UInt8](repeating: 200, count: 4096)
            row.withUnsafeMutableBufferPointer { transform.apply($0) }
            built.withLock { $0.append(ObjectIdentifier(transform)) }
        }
        #expect(cache.count == 2)
        #expect(Set(built.withLock { $0 }).count == 2)
        // The same bytes under another description are the same digest: still one transform.
        let again = try ICCProfile(bytes: Self.fixtures.bytes("display-p3.icc"))
        _ = cache.transform(for: again, layout: .premultipliedRGBA8)
        #expect(cache.count == 2)
    }

    /// A translucent pixel comes out as its straight colour converted, then premultiplied
    /// (within the precision premultiplying lost); transparent stays transparent; alpha is kept.
    @Test(arguments: ["display-p3.icc", "grey-gamma-1.8.icc"], [UInt64(7), 0xA1FA])
    func premultipliedRowsAreConvertedAsStraightColours(_ name: String, _ seed: UInt64) throws {
        TestLog.verbose("premultiplied \(name) seed \(seed)")
        let transform = try ColorTransform(profile: ICCProfile(bytes: Self.fixtures.bytes(name)), layout: .premultipliedRGBA8)
        let isGrey = name.hasPrefix("grey")
        var random = SplitMix64(seed: seed)
        var straight: [UInt8] = [], premultiplied: [UInt8] = []
        for _ in 0..<2000 {
            let alpha = [0, 255, UInt8(random.int(1...254))][random.int(0...2)]
            let value = random.byte()
            let colour = isGrey ? [value, value, value] : [value, random.byte(), random.byte()]
            straight += colour + [255]
            premultiplied += colour.map { UInt8((Int($0) * Int(alpha) + 127) / 255) } + [alpha]
        }
        straight.withUnsafeMutableBufferPointer { transform.apply($0) }
        premultiplied.withUnsafeMutableBufferPointer { transform.apply($0) }
        for pixel in 0..<2000 {
            let alpha = Int(premultiplied[4 * pixel + 3])
            #expect(alpha == Int(premultiplied[4 * pixel + 3]))
            for channel in 0..<3 {
                let expected = (Int(straight[4 * pixel + channel]) * alpha + 127) / 255
                let got = Int(premultiplied[4 * pixel + channel])
                // The premultiplied value lost up to half a straight step of 255 / alpha before the
                // conversion, which can triple it (dark saturated colours brought into sRGB).
                let slack = alpha == 255 ? 0 : 2 + 3 * 255 / max(alpha, 1)
                #expect(abs(got - expected) <= slack, "\(name) pixel \(pixel) channel \(channel): \(got) vs \(expected), alpha \(alpha)")
            }
        }
    }

    @Test func cmykRowsBecomeRGB() throws {
        let transform = try ColorTransform(profile: ICCProfile(bytes: Self.fixtures.bytes("fogra39l-coated.icc")), layout: .invertedCMYK8)
        // Inverted samples: 255 is no ink (paper white), 0 full ink.
        let cmyk: [UInt8] = [255, 255, 255, 255, 255, 255, 255, 0, 0, 255, 255, 255]
        var rgb = [UInt8](repeating: 0, count: 9)
        cmyk.withUnsafeBufferPointer { input in
            rgb.withUnsafeMutableBufferPointer { transform.apply(cmyk: input.baseAddress!, into: $0.baseAddress!, count: 3) }
        }
        #expect(rgb[0] > 220 && rgb[1] > 220 && rgb[2] > 220, "paper white: \(rgb[0..<3])")
        #expect(rgb[3] < 60 && rgb[4] < 60 && rgb[5] < 60, "full black ink: \(rgb[3..<6])")
        #expect(rgb[6] < 100 && rgb[7] > 120 && rgb[8] > 180, "cyan ink: \(rgb[6..<9])")
    }
}
