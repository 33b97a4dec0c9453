import ColorManagement
import Digest
import Foundation
import CodecCore
import PNGCodec
import Raster
import Testing
import TIFFCodec

/// Every fixture against its golden (scripts/make-tiff-fixtures.py): lossless ones exactly
/// (digests checked there against Pillow's decode, or against the mapping TIFFDecoder
/// documents where Pillow reads otherwise), lossy ones by PSNR against Pillow's decode.
@Suite struct TIFFDecodeTests {
    @Test func everyFixtureIsListed() throws {
        #expect(TIFFFixture.all.count == 42)
        // What the set covers, so that a regenerated set cannot quietly lose a case.
        #expect(Set(TIFFFixture.all.map(\.rowFormat)) == [.grey8, .rgb8, .rgba8])
        #expect(TIFFFixture.all.contains { $0.pages > 1 } && TIFFFixture.all.contains { $0.orientation != 1 })
        #expect(TIFFFixture.all.filter { $0.levels > 0 }.count == 2)
        let pages = try TIFFFixture.all.map { try TIFFHeader(file: InputFile(path: $0.path)).page }
        #expect(Set(pages.filter { $0.sampleFormat == 2 }.map(\.bitsPerSample)) == [8, 12, 16, 32])
        #expect(Set(pages.filter { $0.sampleFormat == 3 }.map(\.bitsPerSample)) == [16, 32, 64])
    }

    @Test(arguments: TIFFFixture.all)
    func headerMatchesTheFixture(_ fixture: TIFFFixture) throws {
        let header = try TIFFHeader(file: InputFile(path: fixture.path))
        #expect((header.width, header.height) == (fixture.width, fixture.height))
        #expect(header.pageCount == fixture.pages)
        #expect(header.orientation.rawValue == fixture.orientation)
        #expect(header.levels.count == fixture.levels)
        #expect(header.note == nil && header.colorNote == nil)
        #expect(header.isBigTIFF == fixture.name.contains("bigtiff"))
        #expect(try TIFFHeader(bytes: fixtureFolder.bytes(fixture.name + ".tif")) == header)
        #expect(TIFFHeader.hasSignature(try fixtureFolder.bytes(fixture.name + ".tif").prefix(8)))
    }

    @Test(arguments: TIFFFixture.all)
    func fullSizeRowsMatchTheGolden(_ fixture: TIFFFixture) throws {
        let decoder = try openDecoder(fixture.path, cmykTransform: nil)
        #expect((decoder.width, decoder.height) == (fixture.width, fixture.height))
        #expect(decoder.rowFormat == fixture.rowFormat)
        let pixels = try allRows(decoder)
        if fixture.check == "psnr" {
            guard !fixture.name.contains("icc") else { return }   // through its profile: below
            let golden = try goldenRGB(fixture.fullGoldenPath)
            let decibels = psnr(pixels, golden.rgb)
            TestLog.verbose("\(fixture.name): \(String(format: "%.2f", decibels)) dB against Pillow")
            #expect(decibels >= 40, "\(fixture.name): \(decibels) dB against Pillow's decode")
        } else {
            #expect(SHA256.hex(pixels) == fixture.digest, "\(fixture.name): differs from its golden")
        }
    }

    /// CMYK through its FOGRA39 profile (the table's converting decoder) against ImageCms.
    @Test func cmykThroughItsProfileMatchesImageCms() throws {
        let fixture = TIFFFixture.named("cmyk8-fogra39-icc")
        let header = try TIFFHeader(file: InputFile(path: fixture.path))
        let profile = try ICCProfile(bytes: try #require(header.iccProfile))
        #expect(profile.colorModel == .cmyk)
        let transform = try ColorTransform(profile: profile, layout: .invertedCMYK8)
        let decoder = try openDecoder(fixture.path, cmykTransform: transform)
        #expect(decoder.rowFormat == .rgb8)
        let decibels = psnr(try allRows(decoder), try goldenRGB(fixture.fullGoldenPath).rgb)
        #expect(decibels >= 40, "\(decibels) dB against ImageCms")
        // Without the profile, Pillow's naive conversion, which is far from it.
        let naive = try allRows(openDecoder(fixture.path, cmykTransform: nil))
        #expect(SHA256.hex(naive) == TIFFFixture.named("cmyk8").digest)
    }

    /// Pyramids shrink on load: the smallest level at least twice the tile is decoded, exactly.
    @Test(arguments: ["pyramid-subifds", "pyramid-chain"])
    func pyramidLevelsShrinkOnLoad(_ name: String) throws {
        let path = TIFFFixture.named(name).path
        for (minimum, level) in [(24, "pyramid-level-quarter"), (25, "pyramid-level-half"), (48, "pyramid-level-half"), (0, "pyramid-level-quarter")] {
            let decoder = try openDecoder(path, minimum: minimum)
            let expected = TIFFFixture.named(level)
            #expect((decoder.width, decoder.height) == (expected.width, expected.height), "\(name) for \(minimum)")
            #expect(SHA256.hex(try allRows(decoder)) == expected.digest, "\(name) for \(minimum)")
        }
        let full = try openDecoder(path, minimum: 49)
        #expect(full.width == 256 && full.level == full.header.page)
    }

    /// Rows come once, in order, the same pulled or pushed.
    @Test func rowsArePulledOnceInOrder() throws {
        let decoder = try openDecoder(TIFFFixture.named("rgb8-tiles-lzw").path)
        #expect(!decoder.rowsStarted)
        var rows = 0
        while let row = try decoder.nextRow() {
            #expect(row.count == decoder.width * 3)
            rows += 1
        }
        #expect(rows == decoder.height && decoder.rowsStarted)
        #expect(try decoder.nextRow() == nil)
        #expect(throws: ImageError(.rowsAlreadyRead)) { try decoder.readRows { _, _ in } }
    }

    /// A contiguous strip over the budget is read scanline by scanline, to the same rows; a row
    /// of tiles over it is refused with its reason.
    @Test func aStripOverTheBudgetIsReadByScanlines() throws {
        let strips = TIFFFixture.named("rgb8-strips-deflate-predictor")
        let decoder = try openDecoder(strips.path, memoryBudget: 64 * 3 * 2)
        #expect(SHA256.hex(try allRows(decoder)) == strips.digest)
        let tiles = TIFFFixture.named("rgb8-tiles-lzw")
        // 16 rows of 4 tiles of 16 RGB pixels (3072 bytes), and one tile (768).
        #expect(throws: ImageError(.limitExceeded, "a TIFF row of tiles needs 3840 bytes to decode, over the 1000-byte budget")) {
            _ = try openDecoder(tiles.path, memoryBudget: 1000)
        }
    }

    /// In separate planes, an unspecified extra sample's plane is never decoded: Pillow's
    /// `separate_planar_extra_samples.tiff` leaves it empty (offset and byte count 0), which
    /// libtiff refuses to decode.
    @Test func anUnspecifiedExtraSamplesPlaneIsNotDecoded() throws {
        var tiff = TIFFBytes.grey(width: 6, height: 4)
        let pixels = tiff.data
        tiff.data = [UInt8(pixels.count - 1)] + pixels   // one PackBits literal run
        tiff.set(258, 3, [8, 8])
        tiff.set(259, 3, [32773])
        tiff.set(273, 4, [8, 0])
        tiff.set(277, 3, [2])
        tiff.set(279, 4, [UInt32(tiff.data.count), 0])
        tiff.set(284, 3, [2])
        tiff.set(338, 3, [0])
        let decoded = try decodedRows(tiff.bytes)
        #expect(decoded.format == .grey8 && decoded.rows == pixels)
    }

    /// Signed integer samples (SampleFormat 2) get half their range added: the least is black,
    /// zero mid grey (128), the greatest white, at every depth; then they are scaled as the
    /// unsigned samples of that depth are. Literal values here; the goldens hold the digests of
    /// whole pictures, computed in NumPy from the same rule.
    @Test func signedSamplesHaveZeroAtMidGrey() throws {
        // Every int8 in order: pixel i holds i − 128.
        #expect(try allRows(openDecoder(TIFFFixture.named("grey8-int-every").path)) == (0...255).map { UInt8($0) })
        // Every int16 in order, big-endian: −32768, −1, 0 and 32767.
        let every16 = try allRows(openDecoder(TIFFFixture.named("grey16-int-every-bigendian").path))
        #expect([0, 32767, 32768, 65535].map { every16[$0] } == [0, 127, 128, 255])
        // The least, −1, 0 and the greatest; then 2^31 − 8421505 below zero, which 32 bits
        // would round to 1 but whose top 16 bits (128) give 0, as an unsigned 32-bit sample's do.
        #expect(try allRows(openDecoder(TIFFFixture.named("grey32-int").path)).prefix(5) == [0, 127, 128, 255, 0])
        #expect(try allRows(openDecoder(TIFFFixture.named("grey12-int").path)).prefix(4) == [0, 127, 128, 255])
        // The builder's 8-bit grey, marked signed: each byte with its sign bit flipped.
        var builder = TIFFBytes.grey(width: 6, height: 4)
        builder.set(339, 3, [2])
        let decoded = try decodedRows(builder.bytes)
        #expect(decoded.format == .grey8 && decoded.rows == builder.data.map { $0 ^ 0x80 })
    }

    /// Halves and doubles are read as 32-bit floats are: linear light clamped to 0…1 (NaN is 0),
    /// sRGB-encoded. Literal values here; the goldens hold NumPy's digests of whole pictures,
    /// among them every half there is (`grey16float-every`: pixel i is the half whose bits are i).
    @Test func halfAndDoubleFloatsReadAsSinglesDo() throws {
        let halves = try allRows(openDecoder(TIFFFixture.named("grey16float-every").path))
        // Zeros and subnormals (at most 6.1e-5, below the first 8-bit step) are black; so are
        // the least normal, every negative, −infinity and the NaNs of either sign.
        for bits in [0x0000, 0x0001, 0x03FF, 0x0400, 0x8000, 0x8001, 0xBC00, 0xFC00, 0x7C01, 0x7E00, 0xFE00] {
            #expect(halves[bits] == 0, "half 0x\(String(bits, radix: 16))")
        }
        // 2^-11, 0.1, 0.25, 0.5, the greatest half under 1, 1, 65504 and +infinity.
        let shown = [0x1000: 2, 0x2E66: 89, 0x3400: 137, 0x3800: 188, 0x3BFF: 255, 0x3C00: 255, 0x7BFF: 255, 0x7C00: 255]
        for (bits, value) in shown {
            #expect(halves[bits] == UInt8(value), "half 0x\(String(bits, radix: 16))")
        }
        // Halves, big-endian: −0.5, 1.5 and NaN; doubles: NaN, ±infinity, ±1e300, the least
        // subnormal, 0.5, 1 − 1e-12 and 1e-300.
        #expect(try allRows(openDecoder(TIFFFixture.named("rgb16float-bigendian").path)).prefix(3) == [0, 255, 0])
        #expect(try allRows(openDecoder(TIFFFixture.named("rgb64float-tiles").path)).prefix(9) == [0, 255, 0, 255, 0, 0, 188, 255, 0])
    }

    /// A picture stored as signed samples draws as the same picture stored unsigned: RGB of 8
    /// bits, planar tiles of 16, and 16-bit RGBA whose alpha is mapped as the colours are.
    @Test(arguments: [("rgb8-int", "rgb8-strips-none"), ("rgb16-int-tiles-planar", "rgb8-strips-none"),
                      ("rgba16-int-unassociated", "rgba8-unassociated")])
    func signedPicturesDrawAsTheirUnsignedTwins(_ signed: String, _ unsigned: String) throws {
        let drawn = try openDecoder(TIFFFixture.named(signed).path)
        let twin = try openDecoder(TIFFFixture.named(unsigned).path)
        #expect(drawn.rowFormat == twin.rowFormat)
        #expect(try allRows(drawn) == allRows(twin))
    }

    /// The ICC profile and colour model reach the header.
    @Test func profilesAreRead() throws {
        let srgb = try TIFFHeader(file: InputFile(path: TIFFFixture.named("rgb8-srgb-icc").path))
        #expect(try ICCProfile(bytes: try #require(srgb.iccProfile)).colorModel == .rgb)
        #expect(try TIFFHeader(file: InputFile(path: TIFFFixture.named("rgb8-strips-none").path)).iccProfile == nil)
    }
}

func openDecoder(_ path: String, cmykTransform: ColorTransform?) throws -> TIFFDecoder {
    try TIFFDecoder(file: InputFile(path: path), limits: DecodeLimits(), minimumWidth: fullSize, minimumHeight: fullSize,
                    cmykTransform: cmykTransform)
}
