// RAW fixtures (DNGs written by scripts/make-raw-fixtures.py) against their outside references:
// rawpy's (LibRaw's) own half-size postprocess and Pillow's decode of the embedded preview.
import Foundation
import CodecCore
import JPEGCodec
@testable import RAWCodec
import Raster
@_exported import TestSupport
import Testing

let fixtureFolder = FixtureFolder(in: .module)

/// One line of `references.txt`.
struct RAWFixture: Sendable, CustomTestStringConvertible {
    let name: String
    /// The picture shown (stored orientation): the sensor's, stretched square by a DefaultScale.
    let width: Int, height: Int
    let orientation: Int
    /// The previews' sizes in file order ("-" for none).
    let previews: [(width: Int, height: Int)]
    /// The sensor's grid.
    let sensor: (width: Int, height: Int)

    var path: String { fixtureFolder.path(name + ".dng") }
    var testDescription: String { name }

    static let everyLine: [RAWFixture] = {
        let lines = fixtureFolder.goldenFields("references.txt")
        precondition(lines.count == 8, "Tests/RAWCodecTests/Fixtures/references.txt should list 8 fixtures")
        func size(_ text: Substring) -> (width: Int, height: Int) {
            let sides = text.split(separator: "x").map { Int($0)! }
            return (width: sides[0], height: sides[1])
        }
        return lines.map { fields in
            let sizes = fields[4] == "-" ? [] : fields[4].split(separator: ",").map(size)
            return RAWFixture(name: fields[0], width: Int(fields[1])!, height: Int(fields[2])!, orientation: Int(fields[3])!,
                              previews: sizes, sensor: size(Substring(fields[5])))
        }
    }()
    static var withPreviews: [RAWFixture] { everyLine.filter { !$0.previews.isEmpty } }
}

/// Every row of `decoder`, RGB8.
func rgbRows(_ decoder: RAWDecoder) throws -> [UInt8] {
    var rgb: [UInt8] = []
    try decoder.readRows { _, row in
        if decoder.rowFormat == .grey8 { for v in row { rgb += [v, v, v] } } else { rgb += row }
    }
    return rgb
}

@Suite struct RAWHeaderTests {
    @Test(arguments: RAWFixture.everyLine)
    func theHeaderReadsSizeOrientationAndPreviews(_ fixture: RAWFixture) throws {
        let header = try RAWHeader(file: InputFile(path: fixture.path))
        #expect(header.width == fixture.width && header.height == fixture.height)
        #expect(header.orientation.rawValue == fixture.orientation)
        #expect(header.previews.map { [$0.width, $0.height] } == fixture.previews.map { [$0.width, $0.height] })
        #expect(header.sensorPixels == fixture.sensor.width * fixture.sensor.height)
        #expect(header.container == .tiffStructured)
        // The in-memory reader (the fuzz target's) agrees.
        #expect(try RAWHeader(bytes: fixtureFolder.bytes(fixture.name + ".dng")) == header)
    }

    @Test(arguments: RAWFixture.everyLine)
    func theDemosaicMatchesRawpysHalfSizePostprocess(_ fixture: RAWFixture) throws {
        let file = try InputFile(path: fixture.path)
        // A quarter of the sensor: the half-size demosaic is twice that.
        let decoder = try RAWDecoder(file: file, limits: DecodeLimits(), minimumWidth: fixture.width / 4,
                                     minimumHeight: fixture.height / 4, drawing: .demosaic)
        #expect(decoder.source == .demosaic)
        let reference = try goldenRGB(fixtureFolder.path(fixture.name + ".demosaic.png"))
        #expect(decoder.width == reference.width && decoder.height == reference.height)
        let rows = try rgbRows(decoder)
        let score = psnr(rows, reference.rgb)
        TestLog.verbose("\(fixture.name): demosaic \(score) dB against rawpy")
        // A stretched reference (pixels not square) was interpolated on rawpy's 8-bit output where
        // LibRaw interpolates its 16-bit linear picture (make-raw-fixtures.py's `stretch`): 38-41 dB.
        // Repeating rows or columns instead, as later LibRaws do, scores 29-31.
        let floor = fixture.sensor == (fixture.width, fixture.height) ? 45.0 : 36.0
        #expect(score >= floor, "PSNR \(score) dB against rawpy")
    }

    @Test(arguments: RAWFixture.withPreviews)
    func theLargestPreviewMatchesPillowsDecode(_ fixture: RAWFixture) throws {
        let file = try InputFile(path: fixture.path)
        let largest = fixture.previews.max { $0.width * $0.height < $1.width * $1.height }!
        // Half the preview's size: the preview at full DCT scale.
        let decoder = try RAWDecoder(file: file, limits: DecodeLimits(), minimumWidth: largest.width / 2, minimumHeight: largest.height / 2)
        guard case .preview(let index) = decoder.source else { Issue.record("drew \(decoder.source)"); return }
        #expect(decoder.header.previews[index].width == largest.width)
        let reference = try goldenRGB(fixtureFolder.path(fixture.name + ".preview.png"))
        #expect(decoder.width == reference.width && decoder.height == reference.height)
        let score = psnr(try rgbRows(decoder), reference.rgb)
        TestLog.verbose("\(fixture.name): preview \(score) dB against Pillow")
        #expect(score >= 40, "PSNR \(score) dB against Pillow")
    }

    @Test func withoutAPreviewLargeEnoughTheDemosaicIsHalfSizeOrFullSize() throws {
        let file = try InputFile(path: fixtureFolder.path("gbrg-thumb-only-rot270.dng"))
        let half = try RAWDecoder(file: file, limits: DecodeLimits(), minimumWidth: 48, minimumHeight: 32)
        #expect(half.source == .demosaic && half.width == 96 && half.height == 64)
        // More than a quarter of the sensor asked for: the full-size demosaic (compare's).
        let full = try RAWDecoder(file: file, limits: DecodeLimits(), minimumWidth: 49, minimumHeight: 32)
        #expect(full.source == .demosaic && full.width == 192 && full.height == 128)
        var rows = 0
        try full.readRows { _, row in
            #expect(row.count == 192 * 3)
            rows += 1
        }
        #expect(rows == 128)
    }

    /// DNG's DefaultScale says the sensor's pixels are not square (`references.txt`'s two
    /// fixtures, a vertical scale of 2 and a horizontal one of 2): the header's size is the picture
    /// LibRaw makes, stretched square, so the tile has the shown picture's shape, and LibRaw's
    /// demosaic at either size has the header's shape.
    @Test(arguments: RAWFixture.everyLine.filter { $0.sensor != ($0.width, $0.height) })
    func pixelsThatAreNotSquareAreStretchedSquare(_ fixture: RAWFixture) throws {
        let file = try InputFile(path: fixture.path)
        let header = try RAWHeader(file: file)
        #expect(header.width == fixture.width && header.height == fixture.height)
        #expect(header.width * fixture.sensor.height != header.height * fixture.sensor.width, "the fixture's pixels are square")
        for (minimumWidth, shrink) in [(fixture.width / 4, 2), (fixture.width, 1)] {
            let decoder = try RAWDecoder(file: file, limits: DecodeLimits(), minimumWidth: minimumWidth, minimumHeight: 1, drawing: .demosaic)
            #expect(decoder.width == fixture.width / shrink && decoder.height == fixture.height / shrink,
                    "\(decoder.width)×\(decoder.height) for \(fixture.width)×\(fixture.height) at 1/\(shrink)")
        }
        if let preview = fixture.previews.max(by: { $0.width * $0.height < $1.width * $1.height }) {
            #expect(preview.width * header.height == preview.height * header.width, "the preview shows the picture's shape")
        }
    }

    @Test func aDefaultScaleIsReadWithLibRawsArithmetic() throws {
        let sensor = (width: 4028, height: 1324)
        // Nikon's D1X: pixels twice as tall as wide.
        #expect(try RAWHeader.squared(sensor, defaultScale: [1, 2]) == (4028, 2648))
        #expect(try RAWHeader.squared(sensor, defaultScale: [3, 2]) == (6042, 1324))
        // LibRaw's aspect is float; within 0.5 % of 1 it is 1; outside 0.1-10 LibRaw refuses the file.
        #expect(try RAWHeader.squared(sensor, defaultScale: [1.004, 1]) == sensor)
        #expect(try RAWHeader.squared(sensor, defaultScale: [1, 1.006]) == (4028, Int(1324 / Double(Float(1) / Float(1.006)) + 0.5)))
        #expect(try RAWHeader.squared(sensor, defaultScale: [20, 1]) == sensor)
        #expect(try RAWHeader.squared(sensor, defaultScale: [0, 1]) == sensor)
        #expect(try RAWHeader.squared(sensor, defaultScale: [1, .infinity]) == sensor)
        #expect(try RAWHeader.squared(sensor, defaultScale: [.nan, 1]) == sensor)
        #expect(try RAWHeader.squared(sensor, defaultScale: [2]) == sensor)
        // A side LibRaw would wrap past 16 bits refuses the file.
        #expect(throws: ImageError.self) { try RAWHeader.squared((40000, 100), defaultScale: [2, 1]) }
    }

    @Test func theSmallestPreviewAtLeastTwiceTheTileIsChosen() throws {
        let header = try RAWHeader(file: InputFile(path: fixtureFolder.path("rggb-preview-full.dng")))
        let sizes = header.previews.map { [$0.width, $0.height] }
        #expect(sizes == [[192, 128], [48, 32]])
        #expect(header.source(for: DecodeTarget(minimumWidth: 24, minimumHeight: 16)) == .preview(index: 1))
        #expect(header.source(for: DecodeTarget(minimumWidth: 25, minimumHeight: 16)) == .preview(index: 0))
        #expect(header.source(for: DecodeTarget(minimumWidth: 96, minimumHeight: 64)) == .preview(index: 0))
        #expect(header.source(for: DecodeTarget(minimumWidth: 97, minimumHeight: 64)) == .demosaic)
        // A preview scaled in the DCT domain: 1/4 of 192×128 is still twice 24×16.
        let decoder = try RAWDecoder(file: InputFile(path: fixtureFolder.path("rggb-preview-full.dng")), limits: DecodeLimits(),
                                     minimumWidth: 24, minimumHeight: 16)
        #expect(decoder.source == .preview(index: 1))
        #expect(decoder.width == 48 && decoder.height == 32)
    }

    @Test func theTilesOrientationIsTheRAWsNotThePreviews() throws {
        // bggr-preview-rot90's IFD0 says 6 (turn 90° clockwise); its previews' EXIF says 3 (180°).
        let previewRange = try RAWHeader(file: InputFile(path: fixtureFolder.path("bggr-preview-rot90.dng"))).previews[0].range
        #expect(try JPEGHeader(file: InputFile(path: fixtureFolder.path("bggr-preview-rot90.dng")), range: previewRange).orientation == .down)
        let decoder = try RAWDecoder(file: InputFile(path: fixtureFolder.path("bggr-preview-rot90.dng")), limits: DecodeLimits(),
                                     minimumWidth: 48, minimumHeight: 32)
        #expect(decoder.header.orientation == .right)
        let tile = try tileOverWhite(decoder, orientation: decoder.header.orientation, tileWidth: 64, tileHeight: 96)
        // The red block at the stored top left is at the shown top right.
        let topRight = Array(tile[(4 * 64 + 60) * 3 ..< (4 * 64 + 60) * 3 + 3])
        #expect(topRight[0] > 180 && topRight[1] < 90 && topRight[2] < 90, "\(topRight)")
    }
}
