import Testing
@testable import Raster

@Suite struct CompositingTests {
    func composite(_ premultiplied: [UInt8], over background: RGBA8Color, channels: Int,
                   kernels: RasterKernels = .best) -> [UInt8] {
        var destination = [UInt8](repeating: 0, count: premultiplied.count / 4 * channels)
        premultiplied.withUnsafeBufferPointer { source in
            destination.withUnsafeMutableBufferPointer { destination in
                compositeOver(background: background, source: source, into: destination, channels: channels, kernels: kernels)
            }
        }
        return destination
    }

    /// The code this CPU can run for the RGB loop: the portable Swift, and AVX2 where it runs.
    static let kernelChoices: [RasterKernels] = RasterKernels.best == .avx2 ? [.portable, .avx2] : [.portable]

    /// Hand-checked: each channel is source + background * (255 - alpha) / 255, rounded once.
    /// Alpha 128 leaves 127/255 of the white: 0 + 255 * 127 / 255 = 127, and 128 + 127 = 255.
    @Test func overOpaqueBackgroundGivesRGB() {
        #expect(composite([128, 0, 0, 128], over: .white, channels: 3) == [255, 127, 127])
        #expect(composite([127, 0, 0, 127], over: .white, channels: 3) == [255, 128, 128])
        #expect(composite([128, 0, 0, 128], over: .black, channels: 3) == [128, 0, 0])
        // 10 + 200 * 191 / 255 = 159.80 -> 160; 20 + 100 * 191 / 255 = 94.90 -> 95; 30 + 0 = 30.
        #expect(composite([10, 20, 30, 64], over: RGBA8Color(r: 200, g: 100, b: 0), channels: 3) == [160, 95, 30])
        #expect(composite([1, 2, 3, 255, 0, 0, 0, 0], over: .white, channels: 3) == [1, 2, 3, 255, 255, 255])
    }

    /// Rows of every length up to 40 mixing opaque runs (which take the four-pixels-at-once
    /// path) with translucent and transparent pixels match the per-pixel rule, and nothing is
    /// written outside the row.
    @Test(arguments: kernelChoices)
    func longRowsMatchThePerPixelRule(kernels: RasterKernels) {
        let seed = SplitMix64.testSeed ^ 0xC0
        var generator = SplitMix64(seed: seed)
        let background = RGBA8Color(r: 200, g: 100, b: 7)
        for length in 0...70 {
            var source = [UInt8]()
            for _ in 0..<length {
                let alpha: UInt8 = generator.next() % 4 == 0 ? UInt8(truncatingIfNeeded: generator.next()) : 255
                source += (0..<3).map { _ in UInt8(truncatingIfNeeded: generator.next()) % (alpha &+ 1 == 0 ? 255 : alpha &+ 1) } + [alpha]
            }
            var expected = [UInt8]()
            for pixel in 0..<length {
                expected += composite(Array(source[4 * pixel ..< 4 * pixel + 4]), over: background, channels: 3)
            }
            // The row sits between guard bytes that must survive.
            var guarded = [UInt8](repeating: 0xA5, count: 3 * length + 32)
            source.withUnsafeBufferPointer { source in
                guarded.withUnsafeMutableBufferPointer { all in
                    compositeOver(background: background, source: source,
                                  into: UnsafeMutableBufferPointer(rebasing: all[16 ..< 16 + 3 * length]), channels: 3, kernels: kernels)
                }
            }
            #expect(Array(guarded[16 ..< 16 + 3 * length]) == expected, "length \(length), seed \(seed)")
            #expect(guarded[..<16].allSatisfy { $0 == 0xA5 } && guarded[(16 + 3 * length)...].allSatisfy { $0 == 0xA5 },
                    "length \(length): bytes outside the row were written")
        }
    }

    /// Every alpha and every premultiplied colour up to it, over backgrounds that include the
    /// extremes, in rows long enough for the four-pixels-at-once arithmetic: each byte equals
    /// (colour * 255 + background * (255 - alpha) + 127) / 255 computed here in plain integers.
    @Test(arguments: kernelChoices)
    func everyAlphaAndColourMatchesTheRoundedFormula(kernels: RasterKernels) {
        let backgrounds = [RGBA8Color(r: 0, g: 255, b: 1), RGBA8Color(r: 255, g: 0, b: 254),
                           RGBA8Color(r: 127, g: 128, b: 200), RGBA8Color(r: 3, g: 77, b: 129)]
        for background in backgrounds {
            let backgroundChannels = [Int(background.r), Int(background.g), Int(background.b)]
            for alpha in 0...255 {
                // Pixel i has colours (i, alpha - i, i / 2); the row is padded to 8 pixels.
                let count = max(8, alpha + 1)
                var source = [UInt8](), expected = [UInt8]()
                for index in 0..<count {
                    let i = min(index, alpha)
                    let colours = [i, alpha - i, i / 2]
                    source += colours.map(UInt8.init) + [UInt8(alpha)]
                    for channel in 0..<3 {
                        expected.append(UInt8((colours[channel] * 255 + backgroundChannels[channel] * (255 - alpha) + 127) / 255))
                    }
                }
                let got = composite(source, over: background, channels: 3, kernels: kernels)
                if got != expected {
                    Issue.record("alpha \(alpha) over \(background): first differing byte \(got.indices.first { got[$0] != expected[$0] } ?? -1)")
                    return
                }
            }
        }
    }

    /// Over a transparent background the source comes out unpremultiplied.
    @Test func overTransparentBackgroundUnpremultiplies() {
        #expect(composite([128, 0, 0, 128], over: .transparent, channels: 4) == [255, 0, 0, 128])
        // 64 / 128 * 255 = 127.5 -> 128.
        #expect(composite([64, 32, 0, 128], over: .transparent, channels: 4) == [128, 64, 0, 128])
        #expect(composite([0, 0, 0, 0], over: RGBA8Color(r: 9, g: 8, b: 7, a: 0), channels: 4) == [9, 8, 7, 0])
        #expect(composite([5, 6, 7, 255], over: .transparent, channels: 4) == [5, 6, 7, 255])
    }

    /// Half-transparent red over half-transparent blue: alpha 128 + 128 * 127 / 255 = 191.75,
    /// colour (128 * 255^2, 0, 255 * 128 * 127 / 255^2-scaled) divided by that alpha.
    @Test func overTranslucentBackground() {
        let background = RGBA8Color(r: 0, g: 0, b: 255, a: 128)
        // outAlpha = 128 * 255 + 128 * 127 = 48896 (units of 1/255^2) -> 191.75 -> 192.
        // red = 128 * 65025 / 48896 = 170.2 -> 170; blue = 255 * 128 * 127 / 48896 = 84.8 -> 85.
        #expect(composite([128, 0, 0, 128], over: background, channels: 4) == [170, 0, 85, 192])
        // An opaque background through the 4-channel path agrees with the 3-channel one.
        #expect(composite([10, 20, 30, 64], over: RGBA8Color(r: 200, g: 100, b: 0), channels: 4) == [160, 95, 30, 255])
    }

    @Test(arguments: [3, 4])
    func fillRowRepeatsTheBackground(channels: Int) {
        let background = RGBA8Color(r: 1, g: 2, b: 3)
        var row = [UInt8](repeating: 0, count: 3 * channels)
        row.withUnsafeMutableBufferPointer { fillRow($0, with: background, channels: channels) }
        #expect(row == Array(repeatElement([1, 2, 3, 255].prefix(channels), count: 3).joined()))
    }
}
