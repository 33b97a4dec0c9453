import Foundation
import CodecCore
import PNGCodec
import Raster
import Testing
import WebPCodec

/// Every fixture against Pillow's decode (scripts/make-webp-fixtures.py wrote the goldens with
/// Pillow 13.0.0, whose bundled libwebp is 1.6.0; Masonry links Debian's libwebp 1.2.4).
@Suite struct WebPDecodeTests {
    /// The goldens name every WebP in the fixture folder, once: no fixture can drop out of the
    /// parameterized tests below unnoticed.
    @Test func theGoldensCoverEveryFixture() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: fixtureFolder.root.path)
            .filter { $0.hasSuffix(".webp") }.map { String($0.dropLast(5)) }.sorted()
        let alphaHint = fixtureFolder.goldenFields("alpha-hint.txt").map { $0[0] }
        #expect(alphaHint.count == 2)
        #expect((WebPFixture.all.map(\.name) + alphaHint).sorted() == files)
    }

    @Test(arguments: WebPFixture.all)
    func headerAgreesWithPillow(_ fixture: WebPFixture) throws {
        let header = try WebPHeader(file: InputFile(path: fixture.path))
        #expect((header.width, header.height) == (fixture.width, fixture.height))
        #expect(header.frameCount == fixture.frames)
        #expect(header.isAnimated == (fixture.frames > 1))
        #expect(header.orientation.rawValue == fixture.orientation)
        #expect(header.hasAlpha == (fixture.mode == "RGBA"))
        #expect((header.iccProfile?.count ?? 0) == fixture.iccBytes)
        #expect(header.colorNote == nil && header.damageAfterImage == nil)
        #expect(header.compression == (fixture.isLossy ? .lossy : .lossless))
        // The same bytes, from memory.
        #expect(try WebPHeader(bytes: fixtureFolder.bytes(fixture.name + ".webp")) == header)
    }

    /// Full size: lossless pictures are exactly Pillow's; lossy ones within 45 dB (measured:
    /// every lossy fixture decodes to exactly Pillow's bytes too, libwebp 1.2.4 and 1.6.0
    /// agreeing; the digest check below says so when it holds).
    @Test(arguments: WebPFixture.all)
    func fullSizeDecodeMatchesPillow(_ fixture: WebPFixture) throws {
        let decoder = try openDecoder(fixture.path)
        #expect((decoder.width, decoder.height) == (fixture.width, fixture.height))
        // Lossless pictures are always decoded with alpha (their header's bit is a hint); an
        // opaque one is Pillow's RGB once its alpha, all 255, is dropped.
        let withAlpha = fixture.mode == "RGBA" || !fixture.isLossy
        #expect(decoder.rowFormat == (withAlpha ? .rgba8 : .rgb8))
        var pixels = try allRows(decoder)
        if withAlpha && fixture.mode == "RGB" {
            #expect(stride(from: 3, to: pixels.count, by: 4).allSatisfy { pixels[$0] == 255 }, "\(fixture.name): not opaque")
            pixels = stride(from: 0, to: pixels.count, by: 4).flatMap { pixels[$0 ..< $0 + 3] }
        }
        #expect(decoder.trailingProblem == nil)
        let exact = SHA256.hex(pixels) == fixture.digest
        if fixture.isLossy {
            let reference = try goldenPixels(fixture.fullGoldenPath, channels: decoder.rowFormat.bytesPerPixel)
            try #require(reference.count == pixels.count, "\(fixture.name): \(reference.count) golden bytes, \(pixels.count) decoded")
            let decibels = psnr(pixels, reference)
            TestLog.verbose("\(fixture.name): \(exact ? "identical to Pillow" : String(format: "%.2f dB against Pillow", decibels))")
            #expect(decibels >= 45, "\(fixture.name): \(decibels) dB against Pillow's decode")
        } else {
            #expect(exact, "\(fixture.name): differs from Pillow's lossless decode")
        }
    }

    /// A lossless picture whose header says "no alpha" but whose pixels are transparent (an
    /// index past its palette; alpha in its ARGB) is drawn with its alpha, as `dwebp -pam`
    /// decodes it (Pillow follows the hint and draws them opaque).
    @Test(arguments: fixtureFolder.goldenFields("alpha-hint.txt"))
    func losslessAlphaIgnoresTheHeadersHint(_ fields: [String]) throws {
        let decoder = try openDecoder(fixtureFolder.path(fields[0] + ".webp"))
        #expect(!decoder.header.hasAlpha && decoder.header.compression == .lossless)
        #expect((decoder.width, decoder.height) == (Int(fields[1])!, Int(fields[2])!))
        #expect(decoder.rowFormat == .rgba8)
        let pixels = try allRows(decoder)
        #expect(SHA256.hex(pixels) == fields[3], "\(fields[0]): differs from dwebp -pam")
        #expect(stride(from: 3, to: pixels.count, by: 4).contains { pixels[$0] == 0 })
    }

    /// The tile the sheet draws (decode at the chosen scale, resample, orient, over white)
    /// against Pillow's (full decode, `exif_transpose`, Lanczos, over white): issue #22's bar.
    @Test(arguments: WebPFixture.all)
    func tileIsWithin35DecibelsOfPillows(_ fixture: WebPFixture) throws {
        let file = try InputFile(path: fixture.path)
        let header = try WebPHeader(file: file)
        let stored = header.orientation.displaySize(width: fixture.tileWidth, height: fixture.tileHeight)
        let decoder = try WebPDecoder(file: file, limits: DecodeLimits(), minimumWidth: stored.width, minimumHeight: stored.height)
        // Stills shrink on load to twice the tile (every fixture is more than twice its tile).
        let expected = header.isAnimated ? (header.width, header.height) : (2 * stored.width, 2 * stored.height)
        #expect(abs(decoder.width - expected.0) <= 1 && abs(decoder.height - expected.1) <= 1, "\(decoder.width)×\(decoder.height)")
        let tile = try tileOverWhite(decoder, orientation: header.orientation, tileWidth: fixture.tileWidth, tileHeight: fixture.tileHeight)
        let golden = try goldenRGB(fixture.tileGoldenPath)
        #expect((golden.width, golden.height) == (fixture.tileWidth, fixture.tileHeight))
        let decibels = psnr(tile, golden.rgb)
        TestLog.verbose(String(format: "%@: tile %d×%d from %d×%d, %.2f dB against Pillow", fixture.name,
                               fixture.tileWidth, fixture.tileHeight, decoder.width, decoder.height, decibels))
        #expect(decibels >= 35, "\(fixture.name): \(decibels) dB")
    }

    /// Every orientation fixture holds the same bitstream: the stored pixels are the same, only
    /// the header's orientation differs.
    @Test func orientationFixturesShareTheirPixels() throws {
        let decoded = try (1...8).map { try allRows(openDecoder(WebPFixture.named("cat-orientation-\($0)").path)) }
        #expect(Set(decoded.map { SHA256.hex($0) }).count == 1)
    }

    /// The animation's first frame (160×110 at 40,30 on a 240×160 canvas): transparent around
    /// it, as libwebp's WebPAnimDecoder (and Pillow) compose it.
    @Test func firstFrameSitsOnATransparentCanvas() throws {
        let fixture = WebPFixture.named("animated-3-frames")
        let header = try WebPHeader(file: InputFile(path: fixture.path))
        let frame = header.firstFrame
        #expect((frame.x, frame.y, frame.width, frame.height) == (40, 30, 160, 110))
        let pixels = try allRows(openDecoder(fixture.path))
        func alpha(_ x: Int, _ y: Int) -> UInt8 { pixels[(y * 240 + x) * 4 + 3] }
        #expect(alpha(0, 0) == 0 && alpha(39, 30) == 0 && alpha(200, 30) == 0 && alpha(40, 140) == 0 && alpha(239, 159) == 0)
        #expect(alpha(40, 30) == 255 && alpha(199, 139) == 255)
    }

    @Test func signature() throws {
        let lossy = try fixtureFolder.bytes("coffee-lossy-q80.webp")
        #expect(WebPHeader.hasSignature(lossy.prefix(64)))
        #expect(WebPHeader.hasSignature(lossy.prefix(12)))
        #expect(!WebPHeader.hasSignature(lossy.prefix(11)))
        #expect(!WebPHeader.hasSignature(Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVE".utf8)))
        #expect(!WebPHeader.hasSignature([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]))
    }

    @Test func libraryVersionIsTheLinkedLibrarys() {
        #expect(WebPDecoder.libraryVersion.hasPrefix("libwebp "))
        let parts = WebPDecoder.libraryVersion.dropFirst(8).split(separator: ".").compactMap { Int($0) }
        #expect(parts.count == 3 && parts[0] >= 1)
    }
}

/// libwebp's scaling on load: the output is the smallest size with the stored aspect that is
/// still twice the tile, never larger than stored.
@Suite struct WebPScaleTests {
    @Test(arguments: [
        // (stored, minimum, expected)
        ((300, 200), (48, 32), (96, 64)),
        ((300, 200), (40, 40), (120, 80)),      // the height binds: 80 = 2 × 40, width from the aspect
        ((300, 200), (10, 2), (20, 14)),        // 20 × 200 / 300 = 13.3, rounded up
        ((300, 200), (150, 10), (300, 200)),    // 2 × 150 = 300: not smaller, so full size
        ((300, 200), (200, 200), (300, 200)),   // never upscaled
        ((240, 160), (0, 0), (2, 1)),           // no tile: the smallest size, 1 px on the short side
        ((1, 1), (0, 0), (1, 1)),
    ])
    func outputSize(_ example: ((Int, Int), (Int, Int), (Int, Int))) {
        let ((width, height), (minimumWidth, minimumHeight), expected) = example
        let size = WebPDecoder.outputSize(width: width, height: height, minimumWidth: minimumWidth, minimumHeight: minimumHeight)
        #expect(size == expected)
    }

    /// Property: for random sizes and tiles, the output keeps twice the tile, never exceeds the
    /// stored size, and keeps the aspect to within a pixel.
    @Test func outputSizeProperties() {
        let seed = SplitMix64.suiteSeed ^ 0x3EB9
        var random = SplitMix64(seed: seed)
        print("WebPScaleTests.outputSizeProperties seed \(seed)")
        for _ in 0..<2000 {
            let width = 1 + Int(random.next() % 16383), height = 1 + Int(random.next() % 16383)
            let minimumWidth = Int(random.next() % 2000), minimumHeight = Int(random.next() % 2000)
            let size = WebPDecoder.outputSize(width: width, height: height, minimumWidth: minimumWidth, minimumHeight: minimumHeight)
            #expect(size.width <= width && size.height <= height)
            guard size != (width, height) else { continue }
            #expect(size.width >= 2 * minimumWidth && size.height >= 2 * minimumHeight)
            let aspectError: Int = abs(size.width * height - size.height * width)
            #expect(aspectError <= max(width, height))
        }
    }

    /// Decoding a still at a scale: the rows are the scaled size, and close to Pillow's full
    /// decode resized (libwebp's own scaler is an area average, not Lanczos).
    @Test(arguments: ["coffee-lossy-q80", "fern-lossless", "balloon-lossy-alpha-q75", "tux-lossless-alpha"])
    func scaledDecode(_ name: String) throws {
        let fixture = WebPFixture.named(name)
        let decoder = try openDecoder(fixture.path, minimum: 30)
        let expected = WebPDecoder.outputSize(width: fixture.width, height: fixture.height, minimumWidth: 30, minimumHeight: 30)
        #expect((decoder.width, decoder.height) == expected)
        #expect(decoder.width < fixture.width)
        let rows = try allRows(decoder)
        #expect(rows.count == decoder.width * decoder.height * decoder.rowFormat.bytesPerPixel)
    }

    /// An animation is decoded at canvas size whatever the tile.
    @Test func animationsAreNotScaled() throws {
        let decoder = try openDecoder(WebPFixture.named("animated-3-frames").path, minimum: 10)
        #expect((decoder.width, decoder.height) == (240, 160))
    }
}
