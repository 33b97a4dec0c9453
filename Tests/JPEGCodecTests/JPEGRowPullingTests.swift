// `JPEGDecoder.nextRow()`: the pull API, on every fixture at the smallest and full scale,
// against `readRows`; damage reported once the rows ran out; stopping early.

import JPEGCodec
import CodecCore
import PNGCodec
import Raster
import Testing

@Suite("JPEG rows pulled one at a time")
struct JPEGRowPullingTests {
    /// Opens a fixture for a tile of `minimum` × `minimum` (0: the smallest scale, 1/8).
    static func open(_ path: String, minimum: Int) throws -> JPEGDecoder {
        try JPEGDecoder(file: InputFile(path: path), limits: DecodeLimits(), minimumWidth: minimum, minimumHeight: minimum)
    }

    @Test("Pulled rows equal the pushed rows", arguments: fixtureCases)
    func pulledRowsMatch(_ fixture: FixtureCase) throws {
        for minimum in [0, max(fixture.storedWidth, fixture.storedHeight)] {
            let pulling = try Self.open(fixture.jpegPath, minimum: minimum)
            var pulled: [UInt8] = [], rows = 0
            while let row = try pulling.nextRow() {
                #expect(row.count == pulling.outputWidth * pulling.rowFormat.bytesPerPixel)
                pulled += row
                rows += 1
            }
            #expect(rows == pulling.outputHeight, "\(fixture.name) at \(pulling.scaleEighths)/8")
            #expect(try pulling.nextRow() == nil, "\(fixture.name): the end stays the end")
            let pushing = try Self.open(fixture.jpegPath, minimum: minimum)
            var pushed: [UInt8] = []
            try pushing.readRows { _, row in pushed += row }
            #expect(pulled == pushed, "\(fixture.name) at \(pulling.scaleEighths)/8")
            #expect(pulling.trailingProblem == nil && pushing.trailingProblem == nil, "\(fixture.name)")
        }
    }

    @Test("A file cut inside its image data gives every row, then says it is truncated")
    func truncationIsReportedAtTheEnd() throws {
        let fixture = try #require(fixtureCases.first { !$0.progressive })
        let bytes = try fixtureFolder.bytes(fixture.name + ".jpg")
        let folder = TemporaryFolder("jpeg-pull")
        let cut = JPEGSurgery.scanDataStart(bytes) + 1
        let decoder = try Self.open(folder.write("cut.jpg", Array(bytes.prefix(cut))), minimum: 0)
        for _ in 0..<decoder.outputHeight {
            #expect(try decoder.nextRow() != nil)
            #expect(decoder.trailingProblem == nil, "the damage is known only once the rows ran out")
        }
        #expect(try decoder.nextRow() == nil)
        #expect(decoder.trailingProblem == ImageError(.malformed, "truncated image data"))
    }

    @Test("Stopping after 3 rows gives the first 3 rows, and the decoder can be released", arguments: fixtureCases)
    func earlyStop(_ fixture: FixtureCase) throws {
        let minimum = max(fixture.storedWidth, fixture.storedHeight)
        var full: [UInt8] = []
        try Self.open(fixture.jpegPath, minimum: minimum).readRows { _, row in full += row }
        var decoder: JPEGDecoder? = try Self.open(fixture.jpegPath, minimum: minimum)
        let rowBytes = decoder!.outputWidth * decoder!.rowFormat.bytesPerPixel
        var first: [UInt8] = []
        for _ in 0..<3 { first += try #require(try decoder!.nextRow()) }
        #expect(first == Array(full.prefix(3 * rowBytes)), "\(fixture.name)")
        #expect(throws: ImageError.self, "rows already pulled cannot be pushed") { try decoder!.readRows { _, _ in } }
        decoder = nil
    }
}
