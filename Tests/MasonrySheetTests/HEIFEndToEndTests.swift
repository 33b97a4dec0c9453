import Foundation
import WaterfallLayout
import MasonrySheet
import CodecCore
import PNGCodec
import Testing
import TestSupport

/// HEIC/HEIF and AVIF through the whole tool: folders render, files are read by signature, the
/// manifest names the format, hostile files are skipped with their reason while the rest is
/// drawn, and every tile is within 35 dB of the reference's (issue #22: pillow-heif or Pillow's
/// AVIF plugin, full decode, Lanczos to the tile, over white; `Fixtures/HEIF/*.tile.png`, made by
/// scripts/make-heif-fixtures.py).
@Suite struct HEIFEndToEndTests {
    static let fixtures = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/HEIF")

    static func copy(_ name: String, to path: String) throws {
        try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent(name).path, toPath: path)
    }

    struct TileCase: Sendable, CustomTestStringConvertible {
        let file: String, width: Int, height: Int
        /// The tile is drawn from the file's thumbnail (its reference tile too).
        let fromThumbnail: Bool
        var testDescription: String { "\(file) at \(width) px" }
    }

    static let tiles: [TileCase] = {
        let text = (try? String(contentsOf: fixtures.appendingPathComponent("tiles.txt"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 4, let width = Int(fields[1]), let height = Int(fields[2]) else { return nil }
            return TileCase(file: String(fields[0]), width: width, height: height, fromThumbnail: fields[3] == "thumbnail")
        }
    }()

    /// One picture on a one-column sheet exactly a tile wide (8 px margins), over white; the
    /// tile's pixels are compared with the reference's tile.
    @Test(arguments: tiles)
    func tileIsWithin35dBOfTheReference(_ tile: TileCase) throws {
        #expect(Self.tiles.count == 12)
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("in"), withIntermediateDirectories: true)
        try Self.copy(tile.file, to: folder.file("in/" + tile.file))
        var options = SheetOptions(layout: try LayoutConfiguration(width: tile.width + 16, columns: 1, columnGap: 8, rowGap: 8,
                                                                   insets: LayoutInsets(all: 8)))
        options.background = .white
        let output = RawPath(folder.file("sheet.png"))
        _ = try SheetPipeline.run(SheetRequest(inputs: [RawPath(folder.file("in"))], output: output, options: options))
        let sheet = try PNGDecoder.decodeRGBA(contentsOfFile: output.displayName)
        #expect(sheet.width == tile.width + 16 && sheet.height == tile.height + 16)
        let tilePath = Self.fixtures.appendingPathComponent("\(tile.file).\(tile.width).tile.png").path
        let decibels = try Self.tilePSNR(sheet, tile, golden: tilePath)
        TestLog.verbose("\(tile.file) at \(tile.width)×\(tile.height): \(String(format: "%.2f", decibels)) dB")
        #expect(decibels >= 35, "\(tile.file) at \(tile.width) px: \(decibels) dB")
        if tile.fromThumbnail {
            // What the thumbnail costs against the full-size picture's tile: reported, not a bar.
            let full = Self.fixtures.appendingPathComponent("\(tile.file).\(tile.width).full.tile.png").path
            let cost = try Self.tilePSNR(sheet, tile, golden: full)
            TestLog.verbose("\(tile.file) at \(tile.width) px from its thumbnail against the full-size tile: "
                            + String(format: "%.2f dB", cost))
        }
    }

    /// PSNR of the tile at (8, 8) of `sheet` against the RGB golden tile at `golden`.
    static func tilePSNR(_ sheet: DecodedImage, _ tile: TileCase, golden path: String) throws -> Double {
        let golden = try PNGDecoder.decodeRGBA(contentsOfFile: path)
        var ours: [UInt8] = [], theirs: [UInt8] = []
        for y in 0..<tile.height {
            for x in 0..<tile.width {
                let at = ((y + 8) * sheet.width + x + 8) * 4, reference = (y * tile.width + x) * 4
                ours += sheet.pixels[at..<(at + 3)]
                theirs += golden.pixels[reference..<(reference + 3)]
            }
        }
        return psnr(ours, theirs)
    }

    /// A folder of HEIC and AVIF files (one named .png, read by its signature; an AVIF sequence,
    /// whose frames the manifest counts) renders; a grid that refers to itself and two that refer
    /// to each other are skipped with their reason.
    @Test func folderRendersAndHostileFilesAreSkipped() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("in"), withIntermediateDirectories: true)
        try Self.copy("cat-irot90-imir0.heic", to: folder.file("in/a-turned.HEIC"))
        try Self.copy("coffee-10bit.avif", to: folder.file("in/b-coffee.avif"))
        try Self.copy("cat-grid.heic", to: folder.file("in/c-grid.png"))
        try Self.copy("dice-alpha.heic", to: folder.file("in/d-dice.hif"))
        try Self.copy("cat-sequence.avif", to: folder.file("in/g-sequence.avif"))
        try Self.copy("corrupt-av1-data.avif", to: folder.file("in/h-corrupt.avif"))
        try Self.copy("grid-self-reference.heic", to: folder.file("in/e-loop.heic"))
        try Self.copy("grids-refer-to-each-other.heic", to: folder.file("in/f-mutual.heif"))
        let run = try MasonryExecutable.run(["in", "-o", "s.png", "--manifest", "m.json", "-c", "2"], in: folder.path)
        #expect(run.status == 0, "stderr: \(run.standardError)")
        #expect(run.errorLines.contains("masonry: skipped in/e-loop.heic: malformed HEIF file: item references loop (1 → 1)"),
                "\(run.standardError)")
        #expect(run.errorLines.contains("masonry: skipped in/f-mutual.heif: malformed HEIF file: item references loop (1 → 2 → 1)"),
                "\(run.standardError)")
        // The AV1 decoder's complaint about the damaged file comes back as masonry's one line;
        // nothing else is printed.
        #expect(run.errorLines.contains { $0.hasPrefix("masonry: skipped in/h-corrupt.avif: corrupt HEIF file: ") },
                "\(run.standardError)")
        #expect(run.errorLines.allSatisfy { $0.hasPrefix("masonry") }, "\(run.standardError)")
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.file("m.json")))) as? [String: Any]
        let items = try #require(manifest?["items"] as? [[String: Any]])
        let summary = items.map { "\($0["path"] as? String ?? "") \($0["format"] as? String ?? "") \($0["sourceWidth"] as? Int ?? 0)×\($0["sourceHeight"] as? Int ?? 0)" }
        #expect(summary == ["in/a-turned.HEIC HEIF 212×320", "in/b-coffee.avif AVIF 300×200", "in/c-grid.png HEIF 300×200",
                            "in/d-dice.hif HEIF 213×252", "in/g-sequence.avif AVIF 96×64"])
        #expect(items.map { $0["frames"] as? Int } == [nil, nil, nil, nil, 3])
    }
}
