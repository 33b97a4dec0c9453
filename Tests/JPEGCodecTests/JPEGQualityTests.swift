import JPEGCodec
import CodecCore
import PNGCodec
import Raster
import Testing

/// Every fixture's tile against Pillow's (full decode, exif_transpose, Lanczos, over white):
/// see Fixtures/make_fixtures.py.
@Suite struct JPEGQualityTests {
    @Test func everyFixtureIsListed() {
        // 12 codings plus 8 orientations; a missing or unreadable cases.txt fails here.
        #expect(fixtureCases.count == 20)
        #expect(Set(fixtureCases.map(\.orientation)) == Set(1...8))
    }

    @Test(arguments: fixtureCases)
    func tileMatchesPillow(_ fixture: FixtureCase) throws {
        let tile = try renderTile(fixture.jpegPath, tileWidth: fixture.tileWidth, tileHeight: fixture.tileHeight)
        let golden = try goldenRGB(fixture.goldenPath)
        #expect(golden.width == tile.width && golden.height == tile.height)
        #expect(tile.trailingProblem == nil)
        let score = psnr(tile.rgb, golden.rgb)
        #expect(score >= 35, "\(fixture.name): \(score) dB at scale \(tile.scaleEighths)/8")
    }

    /// Sides that the DCT scale does not divide: libjpeg rounds the scaled size up, so the last
    /// row or column stands for half a block, and the resampler takes the exact extent. Without
    /// it the tile was stretched by up to a scaled pixel: chelsea (451×300 at ½) was 40.8 dB from
    /// Pillow's tile and retina (470×1411 at ½) 45.3 dB; with it, 50.2 and 55.7 dB.
    @Test(arguments: [("chelsea-q80-422-progressive", 225.5, 150.0), ("retina-q85-420", 235.0, 705.5)])
    func oddSidesAreResampledFromTheirExactExtent(_ example: (String, Double, Double)) throws {
        let fixture = try #require(fixtureCases.first { $0.name == example.0 })
        let decoder = try JPEGDecoder(file: InputFile(path: fixture.jpegPath), limits: DecodeLimits(),
                                      minimumWidth: fixture.tileWidth, minimumHeight: fixture.tileHeight)
        #expect(decoder.scaleEighths == 4)
        #expect(decoder.extent == (example.1, example.2) && (decoder.width, decoder.height) == (Int(example.1.rounded(.up)), Int(example.2.rounded(.up))))
        let tile = try renderTile(fixture.jpegPath, tileWidth: fixture.tileWidth, tileHeight: fixture.tileHeight)
        let score = psnr(tile.rgb, try goldenRGB(fixture.goldenPath).rgb)
        #expect(score >= 48, "\(fixture.name): \(score) dB")
    }

    @Test(arguments: fixtureCases)
    func headerMatchesPillow(_ fixture: FixtureCase) throws {
        let header = try JPEGHeader(file: InputFile(path: fixture.jpegPath))
        #expect(header.width == fixture.storedWidth && header.height == fixture.storedHeight)
        #expect(header.componentCount == fixture.components)
        #expect(header.isProgressive == fixture.progressive)
        #expect(header.orientation.rawValue == fixture.orientation)
        let swapped = fixture.orientation >= 5
        #expect(header.displayWidth == (swapped ? fixture.storedHeight : fixture.storedWidth))
        #expect(header.displayHeight == (swapped ? fixture.storedWidth : fixture.storedHeight))
        // The bytes-based reader agrees with the file-based one.
        #expect(try JPEGHeader(bytes: fixtureFolder.bytes(fixture.name + ".jpg")) == header)
    }

    @Test(arguments: fixtureCases)
    func rowFormatFollowsTheComponents(_ fixture: FixtureCase) throws {
        let decoder = try JPEGDecoder(file: InputFile(path: fixture.jpegPath), limits: DecodeLimits(),
                                      minimumWidth: 0, minimumHeight: 0)
        #expect(decoder.rowFormat == (fixture.components == 1 ? .grey8 : .rgb8))
        #expect(decoder.scaleEighths == 1)
        #expect(decoder.outputWidth == (fixture.storedWidth + 7) / 8 && decoder.outputHeight == (fixture.storedHeight + 7) / 8)
    }

    /// The DCT scale kicks in for most fixtures (else the test above would only test libjpeg
    /// at full size): at least one fixture at each of 1/8, 2/8, 4/8 and full size.
    @Test func scalesAreExercised() throws {
        var scales = Set<Int>()
        for fixture in fixtureCases {
            let header = try JPEGHeader(file: InputFile(path: fixture.jpegPath))
            let (width, height) = header.orientation.displaySize(width: fixture.tileWidth, height: fixture.tileHeight)
            scales.insert(JPEGDecoder.scaleEighths(width: header.width, height: header.height,
                                                   minimumWidth: width, minimumHeight: height))
        }
        #expect(scales == [1, 2, 4, 8], "scales used: \(scales.sorted())")
    }
}
