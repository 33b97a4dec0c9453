@testable import GIFCodec
import CodecCore
import PNGCodec
import Raster
import Testing

/// Every fixture decodes to exactly Pillow's frame 0 (`convert("RGBA")`, with the browsers'
/// transparent canvas outside an opaque first frame): see scripts/make-gif-fixtures.py.
@Suite struct GIFGoldenTests {
    @Test func everyFixtureIsListed() {
        #expect(fixtureCases.count == 12)
        // What the fixtures cover, so that a regenerated set cannot quietly lose a case.
        #expect(fixtureCases.contains { $0.interlaced && $0.transparentIndex != nil })
        #expect(fixtureCases.contains { $0.frameCount > 1 && $0.left > 0 && $0.transparentIndex == nil })
        #expect(fixtureCases.contains { $0.version == "87a" })
        #expect(Set(fixtureCases.map(\.rowFormat)) == [.rgb8, .rgba8])
    }

    @Test(arguments: fixtureCases)
    func pixelsMatchPillow(_ fixture: GIFFixture) throws {
        let decoder = try GIFDecoder(file: InputFile(path: fixture.path), limits: DecodeLimits())
        let golden = try PNGDecoder.decodeRGBA(contentsOfFile: fixture.goldenPath)
        #expect(decoder.width == golden.width && decoder.height == golden.height)
        #expect(decoder.rowFormat == fixture.rowFormat)
        let pixels = try decodeRGBA(decoder)
        #expect(decoder.trailingProblem == nil)
        #expect(visibleDifferences(pixels, golden.pixels) == 0, "\(fixture.name)")
    }

    @Test(arguments: fixtureCases)
    func headerMatchesPillow(_ fixture: GIFFixture) throws {
        let header = try GIFHeader(file: InputFile(path: fixture.path))
        #expect(header.width == fixture.canvasWidth && header.height == fixture.canvasHeight)
        #expect(header.frameCount == fixture.frameCount)
        #expect(header.firstFrame.left == fixture.left && header.firstFrame.top == fixture.top)
        #expect(header.firstFrame.width == fixture.frameWidth && header.firstFrame.height == fixture.frameHeight)
        #expect(header.firstFrame.isInterlaced == fixture.interlaced)
        #expect(header.transparentIndex == fixture.transparentIndex)
        #expect(header.version == fixture.version)
        #expect(header.orientation == .up)
        #expect(header.note == nil && header.colorNote == nil && header.isFirstFrameComplete)
        #expect(try GIFHeader(bytes: fixtureFolder.bytes(fixture.name + ".gif")) == header)
        #expect(GIFHeader.hasSignature(try fixtureFolder.bytes(fixture.name + ".gif").prefix(64)))
    }

    /// The fixtures' special structures, as the header sees them.
    @Test func structuresAreWhatTheFixturesClaim() throws {
        let butterfly = try GIFHeader(bytes: fixtureFolder.bytes("butterfly-local-palette.gif"))
        #expect(butterfly.firstFrame.localColorCount == 256 && butterfly.globalColorCount == 256)
        let clock = try GIFHeader(bytes: fixtureFolder.bytes("clock-no-palette.gif"))
        #expect(clock.firstFrame.localColorCount == 0 && clock.globalColorCount == 0)
        let zero = try GIFHeader(bytes: fixtureFolder.bytes("hubble-screen-zero.gif"))
        #expect(zero.screenWidth == 0 && zero.screenHeight == 0)
        let two = try GIFHeader(bytes: fixtureFolder.bytes("camera-two-colours.gif"))
        #expect(two.globalColorCount == 2)
    }

    /// Decoding is the same every time and with rows pulled one by one or pushed.
    @Test func rowsArePulledOnceInOrder() throws {
        let fixture = try #require(fixtureCases.first { $0.interlaced })
        let decoder = try GIFDecoder(file: InputFile(path: fixture.path), limits: DecodeLimits())
        #expect(!decoder.rowsStarted)
        var rows = 0
        while let row = try decoder.nextRow() {
            #expect(row.count == decoder.width * decoder.rowFormat.bytesPerPixel)
            rows += 1
        }
        #expect(rows == decoder.height && decoder.rowsStarted)
        #expect(try decoder.nextRow() == nil)
        #expect(throws: ImageError(.rowsAlreadyRead)) { try decoder.readRows { _, _ in } }
    }

    /// The position of each row of an interlaced frame in stored order is a permutation, pass
    /// by pass (rows 0, 8, ..., then 4, 12, ..., then 2, 6, ..., then the odd rows).
    @Test(arguments: [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 200])
    func interlacedOrderIsAPermutation(_ height: Int) {
        let order = (0..<height).map { GIFDecoder.storedLine(of: $0, height: height) }
        #expect(Set(order) == Set(0..<height))
        var expected: [Int] = []
        for (start, step) in [(0, 8), (4, 8), (2, 4), (1, 2)] { expected += stride(from: start, to: height, by: step) }
        #expect(expected.enumerated().allSatisfy { order[$0.element] == $0.offset })
    }
}
