import Foundation
import WaterfallLayout
@testable import MasonrySheet
import CodecCore
import PNGCodec
import Raster
import Testing
import TestSupport

/// GIF through the whole tool: folders of GIFs render, a GIF is read by its signature whatever
/// its name, the manifest says `"format": "GIF"` and how many frames an animation has, damaged
/// and hostile GIFs are drawn with a warning or skipped with a reason; and every GIF fixture's
/// tile, painted by the sheet's own painter, is within 35 dB of Pillow's (issue #22).
@Suite struct GIFFormatTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// GIFCodecTests' fixtures and Pillow's tiles of them (scripts/make-gif-fixtures.py).
    static let fixtures = packageRoot.appendingPathComponent("Tests/GIFCodecTests/Fixtures")

    /// (name, tile width, tile height) from the fixtures' cases.txt.
    static let tiles: [(name: String, width: Int, height: Int)] = {
        let text = (try? String(contentsOf: fixtures.appendingPathComponent("cases.txt"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 14, let width = Int(fields[12]), let height = Int(fields[13]) else { return nil }
            return (String(fields[0]), width, height)
        }
    }()

    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    static func fixture(_ name: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: fixtures.appendingPathComponent(name)))
    }

    static func manifestItems(_ path: String) throws -> [String: [String: Any]] {
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        let items = manifest?["items"] as? [[String: Any]] ?? []
        return Dictionary(uniqueKeysWithValues: items.map { ($0["path"] as? String ?? "", $0) })
    }

    @Test func aFolderOfGIFsRendersWithFormatAndFrames() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("in"), withIntermediateDirectories: true)
        try Self.write(try Self.fixture("car-animated-offset-transparent.gif"), to: folder.file("in/car.gif"))
        try Self.write(try Self.fixture("chelsea-interlaced.gif"), to: folder.file("in/CAT.GIF"))
        // A GIF named .png is a GIF.
        try Self.write(try Self.fixture("one-colour.gif"), to: folder.file("in/flat.png"))
        let run = try MasonryExecutable.run(["in", "-o", "s.png", "--manifest", "m.json"], in: folder.path)
        #expect(run.status == 0, "stderr: \(run.standardError)")
        #expect(run.errorLines.last?.contains("3 images") == true, "\(run.standardError)")
        let items = try Self.manifestItems(folder.file("m.json"))
        #expect(items["in/car.gif"]?["format"] as? String == "GIF")
        #expect(items["in/car.gif"]?["frames"] as? Int == 3)
        #expect(items["in/car.gif"]?["sourceWidth"] as? Int == 300)
        #expect(items["in/CAT.GIF"]?["format"] as? String == "GIF")
        #expect(items["in/CAT.GIF"]?["frames"] == nil)
        #expect(items["in/flat.png"]?["format"] as? String == "GIF")
    }

    /// A GIF cut inside its first frame is drawn with a warning; one claiming a 65535×65535
    /// screen in 43 bytes is skipped with the limit as its reason; the rest of the sheet is drawn.
    @Test func damagedAndHostileGIFs() throws {
        let folder = TemporaryFolder()
        let tux = try Self.fixture("tux-transparent-interlaced.gif")
        try Self.write(Array(tux.prefix(tux.count / 2)), to: folder.file("cut.gif"))
        let huge = GIFBytes.screen(width: 65535, height: 65535, palette: [0, 0, 0, 255, 255, 255])
            + GIFBytes.frame(width: 1, height: 1, indices: [1]) + GIFBytes.trailer
        try Self.write(huge, to: folder.file("huge.gif"))
        try Self.write(try Self.fixture("one-colour.gif"), to: folder.file("good.gif"))
        let run = try MasonryExecutable.run(["cut.gif", "huge.gif", "good.gif", "-o", "s.png"], in: folder.path)
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let limit = ImageError(.pixelLimit(width: 65535, height: 65535, limit: DecodeLimits.defaultMaxPixels)).reason
        #expect(run.errorLines.contains("masonry: skipped huge.gif: \(limit)"), "\(run.standardError)")
        #expect(run.errorLines.contains("masonry: warning: cut.gif: truncated image data"), "\(run.standardError)")
        #expect(run.errorLines.last?.contains("2 images") == true, "\(run.standardError)")
    }

    /// The sheet's painter (decode, resample, composite over white) against Pillow's tile
    /// (full decode, Lanczos, over white): at least 35 dB for every fixture.
    @Test func tilesMatchPillow() throws {
        #expect(Self.tiles.count == 12)
        for tile in Self.tiles {
            let path = Self.fixtures.appendingPathComponent(tile.name + ".gif").path
            let file = try InputFile(path: path)
            let (format, header) = try ImageFormats.header(of: file, limits: DecodeLimits())
            #expect(format.name == "GIF")
            let image = PlannedImage(path: RawPath(path), format: format, source: header, orientation: header.orientation,
                                     stamp: FileStamp(byteSize: Int64(file.size), modificationTime: 0, inode: 0))
            let painter = PicturePainter(image: image, limits: DecodeLimits(), opener: InputOpener(), underlay: .white,
                                         enlarge: .smooth, cache: nil)
            var rgb = [UInt8](repeating: 0, count: tile.width * tile.height * 3)
            let outcome = rgb.withUnsafeMutableBufferPointer { pixels in
                let base = pixels.baseAddress!, rowBytes = tile.width * 3
                let canvas = Canvas(channels: 3, rowBytes: rowBytes) { y in base + y * rowBytes }
                return painter.paint(LayoutRect(x: 0, y: 0, width: tile.width, height: tile.height), into: canvas)
            }
            guard case .drawn = outcome else {
                Issue.record("\(tile.name): \(outcome)")
                continue
            }
            let golden = try goldenRGB(Self.fixtures.appendingPathComponent(tile.name + ".tile.png").path)
            #expect(golden.width == tile.width && golden.height == tile.height)
            let score = psnr(rgb, golden.rgb)
            TestLog.verbose("GIF tile \(tile.name) \(tile.width)×\(tile.height): \(score) dB")
            #expect(score >= 35, "\(tile.name): \(score) dB")
        }
    }
}
