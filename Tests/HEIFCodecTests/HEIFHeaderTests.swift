import HEIFCodec
import CodecCore
import PNGCodec
import Raster
import Testing

/// The box parser on the good fixtures: displayed sizes, depth, alpha, grids, thumbnails, brands.
@Suite struct HEIFHeaderTests {
    @Test func everyFixtureIsListed() {
        #expect(heifCases.count == 18)
    }

    @Test(arguments: heifCases)
    func headerMatchesTheReferenceDecode(_ fixture: HEIFCase) throws {
        let header = try HEIFHeader(file: InputFile(path: fixture.path))
        #expect([header.width, header.height, header.bitDepth, header.frameCount]
                    == [fixture.width, fixture.height, fixture.bitDepth, 1])
        #expect(header.hasAlpha == fixture.hasAlpha && header.orientation == .up)
        #expect(header.format == (fixture.file.hasSuffix(".avif") ? .avif : .heif))
        let bytes = try fixtureFolder.bytes(fixture.file)
        #expect(try HEIFHeader(bytes: bytes) == header)
        #expect(HEIFHeader.hasSignature(bytes.prefix(64)))
        #expect(HEIFHeader.format(prefix: bytes.prefix(64)) == header.format)
    }

    /// irot turns anti-clockwise, clap crops before or after it as ipma lists them; an EXIF
    /// orientation beside them changes nothing.
    @Test func transformationsGiveTheDisplayedSize() throws {
        let sizes = try ["cat-8bit", "cat-irot90", "cat-irot180", "cat-irot270", "cat-imir0", "cat-irot90-imir0",
                         "cat-clap", "cat-clap-irot90"].map { name in
            let header = try HEIFHeader(file: InputFile(path: fixtureFolder.path(name + ".heic")))
            #expect(header.codedWidth == 320 && header.codedHeight == 212)
            return "\(header.width)×\(header.height)"
        }
        #expect(sizes == ["320×212", "212×320", "320×212", "212×320", "320×212", "212×320", "240×160", "160×240"])
    }

    @Test func gridLayoutIsRead() throws {
        let header = try HEIFHeader(file: InputFile(path: fixtureFolder.path("cat-grid.heic")))
        let grid = try #require(header.grid)
        #expect([grid.rows, grid.columns, grid.tileWidth, grid.tileHeight] == [2, 2, 160, 106])
        #expect(header.width == 300 && header.height == 200)
        #expect(header.primaryItemID == 1)
    }

    @Test func thumbnailIsFoundAndCanStandIn() throws {
        let header = try HEIFHeader(file: InputFile(path: fixtureFolder.path("bus-thumbnail.heic")))
        let thumbnail = try #require(header.thumbnails.first)
        #expect(header.thumbnails.count == 1)
        #expect(thumbnail.width == 320 && thumbnail.height == 166)
        #expect(thumbnail.aspectMatches && thumbnail.transformationsMatch && thumbnail.profileMatches && thumbnail.alphaMatches)
        #expect(header.thumbnail(minimumWidth: 160, minimumHeight: 83) == thumbnail)
        #expect(header.thumbnail(minimumWidth: 161, minimumHeight: 40) == nil)
        #expect(header.thumbnail(minimumWidth: 100, minimumHeight: 84) == nil)
    }

    /// As an iPhone writes a portrait photo: a turned grid, a thumbnail turned the same way, EXIF 6.
    @Test func phoneLikeFileHasATurnedThumbnailThatStandsIn() throws {
        let file = try InputFile(path: fixtureFolder.path("cat-phone-like.heic"))
        let header = try HEIFHeader(file: file)
        #expect(header.width == 200 && header.height == 300 && header.orientation == .up && header.grid != nil)
        let thumbnail = try #require(header.thumbnails.first)
        #expect(thumbnail.width == 100 && thumbnail.height == 150 && thumbnail.canStandIn)
        let decoder = try HEIFDecoder(file: file, limits: DecodeLimits(), minimumWidth: 50, minimumHeight: 75)
        #expect(decoder.thumbnail == thumbnail && decoder.width == 100 && decoder.height == 150)
    }

    @Test func colourInformationIsKept() throws {
        let avif = try HEIFHeader(file: InputFile(path: fixtureFolder.path("coffee-10bit.avif")))
        let points = try #require(avif.colourCodePoints)
        #expect(points.primaries == 1 && points.transfer == 13 && points.fullRange)
        #expect(avif.iccProfile == nil && avif.colorNote == nil)
    }

    /// An AVIF sequence: its picture track's samples are counted, its still primary image decoded.
    @Test func sequenceCountsItsFrames() throws {
        let file = try InputFile(path: fixtureFolder.path("cat-sequence.avif"))
        let header = try HEIFHeader(file: file)
        #expect(header.frameCount == 3 && header.majorBrand == "avis" && header.format == .avif)
        let decoder = try HEIFDecoder(file: file, limits: DecodeLimits(), minimumWidth: 0, minimumHeight: 0)
        #expect(decoder.width == 96 && decoder.height == 64)
    }

    @Test func otherFilesHaveNoSignature() {
        #expect(!HEIFHeader.hasSignature([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        let quickTime: [UInt8] = [0, 0, 0, 20] + Array("ftypqt  ".utf8) + [0, 0, 0, 0] + Array("qt  ".utf8)
        #expect(!HEIFHeader.hasSignature(quickTime))
        let mif1: [UInt8] = [0, 0, 0, 16] + Array("ftypmif1".utf8) + [0, 0, 0, 0]
        #expect(HEIFHeader.format(prefix: mif1) == .heif)
    }
}
