import Foundation
import PNGCodec
import Testing
import TestSupport

/// Camera RAW through the command: the manifest says which picture each tile came from, and a
/// hostile RAW is skipped with its one-line reason.
@Suite struct RAWSheetTests {
    static let sample = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/Formats/sample.dng")

    static func items(_ folder: TemporaryFolder) throws -> [String: [String: Any]] {
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.file("m.json")))) as? [String: Any]
        let items = try #require(manifest?["items"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: items.map { ($0["path"] as? String ?? "", $0) })
    }

    /// sample.dng is a 48×32 sensor with a 48×32 preview: a tile up to 24×16 is drawn from the
    /// preview, a larger one from the demosaic.
    @Test(arguments: [(16, "preview"), (24, "preview"), (25, "demosaic"), (400, "demosaic")])
    func theManifestSaysWhetherThePreviewOrTheDemosaicDrewTheTile(width: Int, source: String) throws {
        let folder = TemporaryFolder()
        try FileManager.default.copyItem(atPath: Self.sample.path, toPath: folder.file("shot.dng"))
        let run = try MasonryExecutable.run(["shot.dng", "-o", "s.png", "--manifest", "m.json", "--width", "\(width)",
                                             "--columns", "1", "--margin", "0"], in: folder.path)
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let item = try #require(try Self.items(folder)["shot.dng"])
        #expect(item["format"] as? String == "RAW")
        #expect(item["rawSource"] as? String == source, "\(item)")
        #expect(item["sourceWidth"] as? Int == 48 && item["sourceHeight"] as? Int == 32)
    }

    /// tall-pixels.dng's sensor is 160×48 with a DefaultScale of 1 across and 2 down (pixels twice
    /// as tall as wide, as Nikon's D1X has): its tile has the shape of the 160×96 picture LibRaw
    /// makes, not the sensor's, and shows the picture's marks where they are.
    /// `fixture` (under Fixtures/RAW) drawn alone, in one column `width` wide without margins:
    /// the manifest's item and the sheet's RGB pixel at a point.
    static func drawnAlone(_ fixture: String, width: Int) throws -> (item: [String: Any], sheetHeight: Int, pixel: (Int, Int) -> [UInt8]) {
        let folder = TemporaryFolder()
        let source = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/RAW/" + fixture)
        try FileManager.default.copyItem(atPath: source.path, toPath: folder.file(fixture))
        let run = try MasonryExecutable.run([fixture, "-o", "s.png", "--manifest", "m.json", "--width", "\(width)",
                                             "--columns", "1", "--margin", "0"], in: folder.path)
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let item = try #require(try items(folder)[fixture], "stderr: \(run.standardError)")
        let sheet = try PNGDecoder.decodeRGBA(contentsOfFile: folder.file("s.png"))
        try #require(sheet.width == width)
        return (item, sheet.height, { x, y in Array(sheet.pixels[(y * sheet.width + x) * 4 ..< (y * sheet.width + x) * 4 + 3]) })
    }

    @Test func aTileOfPixelsThatAreNotSquareHasThePicturesShape() throws {
        let (item, sheetHeight, pixel) = try Self.drawnAlone("tall-pixels.dng", width: 160)
        #expect(item["sourceWidth"] as? Int == 160 && item["sourceHeight"] as? Int == 96, "\(item)")
        #expect(item["width"] as? Int == 160 && item["height"] as? Int == 96, "\(item)")
        // The scene's red block covers the top quarter's left third; the blue block the bottom
        // half's right quarter: at their centres in the tile, and only there if the shape holds.
        try #require(sheetHeight == 96)
        let red = pixel(26, 12), blue = pixel(140, 84)
        #expect(red[0] > 150 && red[1] < 100 && red[2] < 100, "\(red)")
        #expect(blue[2] > 120 && blue[0] < 100 && blue[1] < 100, "\(blue)")
    }

    /// previews.cr3 (a CR3 with a 160×120 letterboxed thumbnail, a 240×160 preview and a 720×480
    /// JPEG track, its Orientation 8): the tile is drawn from a preview with the picture's shape,
    /// turned, and the manifest gives the picture's size.
    @Test(arguments: [40, 160, 240])
    func aCR3IsDrawnFromItsPreviews(width: Int) throws {
        let (item, sheetHeight, pixel) = try Self.drawnAlone("previews.cr3", width: width)
        #expect(item["rawSource"] as? String == "preview", "\(item)")
        #expect(item["sourceWidth"] as? Int == 480 && item["sourceHeight"] as? Int == 720, "\(item)")
        #expect(item["height"] as? Int == width * 3 / 2, "\(item)")
        // Turned 90° counter-clockwise: the scene's red block (stored top left) at the bottom left.
        try #require(sheetHeight == width * 3 / 2)
        let red = pixel(width / 8, width * 3 / 2 - width / 8)
        #expect(red[0] > 180 && red[1] < 90 && red[2] < 90, "\(red)")
    }

    @Test func aRAWWhosePreviewPointsPastTheFileIsSkippedByName() throws {
        let folder = TemporaryFolder()
        var bytes = [UInt8](try Data(contentsOf: Self.sample))
        // IFD0 (at 8) is the preview; its StripByteCounts (279) entry's value made 2^31 - 65536.
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        let entries = (0 ..< u16(8)).map { 10 + 12 * $0 }
        let entry = try #require(entries.first { u16($0) == 279 })
        let start = u32(try #require(entries.first { u16($0) == 273 }) + 8)
        bytes.replaceSubrange(entry + 8 ..< entry + 12, with: [0x00, 0x00, 0xFF, 0x7F])
        try Data(bytes).write(to: URL(fileURLWithPath: folder.file("bad.dng")))
        try FileManager.default.copyItem(atPath: Self.sample.path, toPath: folder.file("good.dng"))
        let run = try MasonryExecutable.run(["good.dng", "bad.dng", "-o", "s.png"], in: folder.path)
        #expect(run.status == 0, "stderr: \(run.standardError)")
        #expect(run.errorLines.contains(
            "masonry: skipped bad.dng: RAW preview at offset \(start) claims \(0x7FFF_0000) bytes, past the end of the file (\(bytes.count) bytes)"),
            "\(run.standardError)")
    }
}
