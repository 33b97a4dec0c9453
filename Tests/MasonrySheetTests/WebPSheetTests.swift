import Foundation
import WaterfallLayout
import MasonrySheet
import CodecCore
import PNGCodec
import Raster
import Testing
import TestSupport

/// WebP through the whole tool: folders of WebP files render, files are read by signature
/// whatever their name, the manifest gives the format and the frame count, and every tile of
/// a sheet is within issue #22's 35 dB of Pillow's tile (Pillow's full decode, its first frame,
/// `ImageOps.exif_transpose`, Lanczos to the tile, over white; goldens by
/// scripts/make-webp-fixtures.py in Fixtures/WebP/).
@Suite struct WebPSheetTests {
    static let fixtures = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/WebP")

    /// (name, tile width, tile height) of `Fixtures/WebP/tiles.txt`.
    static let tiles: [(name: String, width: Int, height: Int)] = {
        let text = (try? String(contentsOf: fixtures.appendingPathComponent("tiles.txt"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let fields = line.split(separator: " ")
            return (String(fields[0]), Int(fields[1])!, Int(fields[2])!)
        }
    }()

    static func copy(_ name: String, to path: String) throws {
        try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent(name).path, toPath: path)
    }

    /// A one-tile sheet, one column as wide as the tile, 8 px margins, over white: the tile's
    /// pixels are the sheet's at (8, 8).
    @Test(arguments: tiles.map(\.name))
    func sheetTileIsWithin35DecibelsOfPillows(name: String) throws {
        let tile = try #require(Self.tiles.first { $0.name == name })
        let folder = TemporaryFolder()
        try Self.copy(name + ".webp", to: folder.file(name + ".webp"))
        var options = SheetOptions(layout: try LayoutConfiguration(width: tile.width + 16, columns: 1, columnGap: 8, rowGap: 8,
                                                                   insets: LayoutInsets(all: 8)))
        options.background = .white
        let output = RawPath(folder.file("sheet.png"))
        _ = try SheetPipeline.run(SheetRequest(inputs: [RawPath(folder.file(name + ".webp"))], output: output, options: options))
        let sheet = try PNGDecoder.decodeRGBA(contentsOfFile: output.displayName)
        #expect((sheet.width, sheet.height) == (tile.width + 16, tile.height + 16))
        var drawn: [UInt8] = []
        for y in 8 ..< 8 + tile.height {
            for x in 8 ..< 8 + tile.width {
                let at: Int = (y * sheet.width + x) * 4
                drawn += sheet.pixels[at ..< at + 3]
            }
        }
        let golden = try goldenRGB(Self.fixtures.appendingPathComponent(name + ".tile.png").path)
        let decibels = psnr(drawn, golden.rgb)
        TestLog.verbose(String(format: "%@ in a sheet: %.2f dB against Pillow's tile", name, decibels))
        #expect(decibels >= 35, "\(name): \(decibels) dB")
    }

    @Test func aFolderOfWebPsRendersWithFormatsAndFrameCounts() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("in"), withIntermediateDirectories: true)
        for tile in Self.tiles { try Self.copy(tile.name + ".webp", to: folder.file("in/" + tile.name + ".webp")) }
        // A WebP named .png, and one in upper case.
        try Self.copy("coffee-lossy-q80.webp", to: folder.file("in/disguised.png"))
        try Self.copy("tux-lossless-alpha.webp", to: folder.file("in/SHOUTING.WEBP"))
        let run = try MasonryExecutable.run(["in", "-o", "s.png", "--manifest", "m.json", "--width", "400", "--columns", "3"],
                                            in: folder.path)
        #expect(run.status == 0, "stderr: \(run.standardError)")
        #expect(run.errorLines.last?.contains("\(Self.tiles.count + 2) images") == true, "\(run.standardError)")
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.file("m.json")))) as? [String: Any]
        let items = try #require(manifest?["items"] as? [[String: Any]])
        let byPath = Dictionary(uniqueKeysWithValues: items.map { ($0["path"] as? String ?? "", $0) })
        #expect(byPath.count == Self.tiles.count + 2)
        for (path, item) in byPath {
            #expect(item["format"] as? String == "WebP", "\(path)")
            #expect(item["frames"] as? Int == (path.contains("animated-3-frames") ? 3 : nil), "\(path)")
        }
        // Sizes as displayed: the 90° orientation swaps the stored 240×160.
        #expect(byPath["in/cat-orientation-6.webp"]?["sourceWidth"] as? Int == 160)
        #expect(byPath["in/cat-orientation-3.webp"]?["sourceWidth"] as? Int == 240)
        #expect(byPath["in/disguised.png"]?["sourceWidth"] as? Int == 300)
    }

    /// Damaged and hostile WebPs are skipped with their one-line reasons naming the file; the
    /// rest is drawn.
    @Test func damagedWebPsAreSkippedWithTheirReasons() throws {
        let folder = TemporaryFolder()
        try Self.copy("coffee-lossy-q80.webp", to: folder.file("good.webp"))
        let bytes = try [UInt8](Data(contentsOf: Self.fixtures.appendingPathComponent("coffee-lossy-q80.webp")))
        try Data(bytes.prefix(3000)).write(to: URL(fileURLWithPath: folder.file("cut.webp")))
        // 34 bytes: a VP8 key frame header claiming 16383×16383.
        let huge: [UInt8] = Array("RIFF".utf8) + [26, 0, 0, 0] + Array("WEBPVP8 ".utf8) + [14, 0, 0, 0]
            + [0x30, 0, 0, 0x9D, 0x01, 0x2A, 0xFF, 0x3F, 0xFF, 0x3F, 0, 0, 0, 0]
        try Data(huge).write(to: URL(fileURLWithPath: folder.file("huge.webp")))
        let run = try MasonryExecutable.run(["good.webp", "cut.webp", "huge.webp", "-o", "s.png"], in: folder.path)
        #expect(run.status == 0, "stderr: \(run.standardError)")
        #expect(run.errorLines.contains("masonry: skipped cut.webp: truncated WebP file (3000 of \(bytes.count) bytes)"), "\(run.standardError)")
        #expect(run.errorLines.contains("masonry: skipped huge.webp: image is 16383×16383, over the 178956970-pixel limit"),
                "\(run.standardError)")
        #expect(run.errorLines.last?.contains("1 image") == true, "\(run.standardError)")
    }
}
