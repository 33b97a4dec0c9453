import Foundation
import HEIFCodec
import CodecCore
import PNGCodec
import Raster
import Testing

/// Full-size decodes against the reference decoders' goldens, and the thumbnail choice.
@Suite struct HEIFDecodeTests {
    /// PSNR bar for each reference: pillow-heif runs libde265 as we do (45 dB); Pillow's AVIF
    /// plugin (libavif + dav1d) converts YCbCr to RGB its own way (measured values in the report).
    static func bar(_ fixture: HEIFCase) -> Double { fixture.reference == "pillow-heif" ? 45 : 40 }

    @Test(arguments: heifCases)
    func fullSizeDecodeMatchesTheGolden(_ fixture: HEIFCase) throws {
        let decoder = try HEIFDecoder(file: InputFile(path: fixture.path), limits: DecodeLimits(),
                                      minimumWidth: fixture.width, minimumHeight: fixture.height)
        #expect(decoder.thumbnail == nil)
        #expect(decoder.width == fixture.width && decoder.height == fixture.height)
        #expect(decoder.rowFormat == (fixture.hasAlpha ? .rgba8 : .rgb8))
        let golden = try goldenPixels(fixture.goldenPath, as: decoder.rowFormat)
        #expect(golden.width == decoder.width && golden.height == decoder.height)
        let ours = try decodeAll(decoder)
        let measured = psnr(ours, golden.pixels)
        TestLog.verbose("\(fixture.file): \(String(format: "%.2f", measured)) dB against \(fixture.reference)")
        #expect(measured >= Self.bar(fixture), "\(fixture.file): \(measured) dB against \(fixture.reference)")
        #expect(try decoder.nextRow() == nil)
        #expect(decoder.trailingProblem == nil)
    }

    /// The 320×166 thumbnail of an 800×418 photo stands in for tiles up to 160×83.
    @Test(arguments: [(160, 83, true), (100, 50, true), (0, 0, true), (161, 40, false), (400, 209, false)])
    func thumbnailIsDecodedWhenTwiceTheTile(minimumWidth: Int, minimumHeight: Int, usesThumbnail: Bool) throws {
        let decoder = try HEIFDecoder(file: InputFile(path: fixtureFolder.path("bus-thumbnail.heic")), limits: DecodeLimits(),
                                      minimumWidth: minimumWidth, minimumHeight: minimumHeight)
        #expect((decoder.thumbnail != nil) == usesThumbnail)
        #expect(decoder.width == (usesThumbnail ? 320 : 800) && decoder.height == (usesThumbnail ? 166 : 418))
        var rows = 0
        try decoder.readRows { _, row in
            #expect(row.count == decoder.width * 3)
            rows += 1
        }
        #expect(rows == decoder.height)
    }

    /// The EXIF orientation beside irot is ignored: the irot 270 file with EXIF 6 decodes to the
    /// 8-bit file turned a quarter clockwise, pixel for pixel.
    @Test func rotationIsLibheifsAndExifIsIgnored() throws {
        func pixels(_ name: String) throws -> (HEIFDecoder, [UInt8]) {
            let decoder = try HEIFDecoder(file: InputFile(path: fixtureFolder.path(name)), limits: DecodeLimits(),
                                          minimumWidth: 0, minimumHeight: 0)
            // Padded to 4-byte pixels, which ExifOrientation moves.
            let rgb = try decodeAll(decoder)
            var padded: [UInt8] = []
            for at in stride(from: 0, to: rgb.count, by: 3) { padded += rgb[at..<(at + 3)] + [255] }
            return (decoder, padded)
        }
        let (upright, plain) = try pixels("cat-8bit.heic")
        let (turned, rotated) = try pixels("cat-irot270.heic")
        #expect(turned.width == upright.height && turned.height == upright.width)
        let expected = ExifOrientation.right.apply(to: plain, width: upright.width, height: upright.height)
        #expect(rotated == expected)
    }

    /// A `prem` reference: libheif hands out premultiplied colour, which the bridge divides by
    /// alpha (rounded, at most 255); fully transparent pixels become black.
    @Test func premultipliedAlphaIsMadeStraight() throws {
        func rows(_ name: String) throws -> [UInt8] {
            try decodeAll(HEIFDecoder(file: InputFile(path: fixtureFolder.path(name)), limits: DecodeLimits(),
                                      minimumWidth: 0, minimumHeight: 0))
        }
        let stored = try rows("dice-alpha.heic"), straight = try rows("dice-alpha-premultiplied.heic")
        var expected = stored
        for at in stride(from: 0, to: stored.count, by: 4) {
            let alpha = Int(stored[at + 3])
            for channel in 0..<3 {
                expected[at + channel] = alpha == 0 ? 0 : UInt8(min(255, (Int(stored[at + channel]) * 255 + alpha / 2) / alpha))
            }
        }
        #expect(straight == expected)
        #expect(straight != stored)
    }

    /// The box versions with 32-bit item ids read as the 16-bit ones do, by us and by libheif.
    @Test func wideItemIDsGiveTheSamePicture() throws {
        func decode(_ name: String) throws -> (HEIFHeader, [UInt8]) {
            let decoder = try HEIFDecoder(file: InputFile(path: fixtureFolder.path(name)), limits: DecodeLimits(),
                                          minimumWidth: 0, minimumHeight: 0)
            return (decoder.header, try decodeAll(decoder))
        }
        let (narrow, narrowPixels) = try decode("cat-grid.heic"), (wide, widePixels) = try decode("cat-grid-wide-ids.heic")
        #expect(wide == narrow)
        #expect(widePixels == narrowPixels)
    }

    @Test func rowsAreReadOnce() throws {
        let decoder = try HEIFDecoder(file: InputFile(path: fixtureFolder.path("cat-8bit.heic")), limits: DecodeLimits(),
                                      minimumWidth: 0, minimumHeight: 0)
        _ = try decoder.nextRow()
        #expect(throws: ImageError(.rowsAlreadyRead)) { try decoder.readRows { _, _ in } }
    }

    @Test func versionNamesLibheifAndItsDecoder() {
        let heif = HEIFDecoder.libraryVersion(for: .heif), avif = HEIFDecoder.libraryVersion(for: .avif)
        TestLog.verbose("\(heif) | \(avif)")
        #expect(heif.hasPrefix("libheif 1.") && heif.contains("libde265"))
        #expect(avif.hasPrefix("libheif 1.") && avif.contains("AOMedia"))
    }
}
