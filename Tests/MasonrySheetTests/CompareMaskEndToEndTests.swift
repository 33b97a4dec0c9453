import Foundation
import CodecCore
import PNGCodec
import Testing
import TestSupport

/// `--ignore`, `--mask-dir` and `--config` run as a user runs them, on CompareEndToEndTests' suite
/// (the icon of ui/shift.png moves inside x 140-148, y 2-10; the badge of ui/badge.png is at
/// x 150-156, y 1-7; ui/resized.png gains 10 rows).
@Suite struct CompareMaskEndToEndTests {
    typealias Suite = CompareEndToEndTests

    /// SHA-256 of every file under the folder, by relative path: inputs must never change.
    static func tree(_ folder: String) throws -> [String: String] {
        var digests: [String: String] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let relative = enumerator?.nextObject() as? String {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder + "/" + relative, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            digests[relative] = TestSupport.SHA256.hex(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + relative)))
        }
        return digests
    }

    @Test func rectanglesLeaveChangesOutAndRatiosDivideByComparedPixels() throws {
        let folder = TemporaryFolder()
        try Suite.makeSuite(in: folder)
        let before = try Self.tree(folder.file("base")).merging(try Self.tree(folder.file("cur"))) { a, _ in a }
        // Over both the icon and the badge; the second rectangle runs off the bottom right.
        let run = try Suite.compare(["--ignore", "138,0,30,12", "--ignore", "150,90,100,100"], in: folder)
        let shift = try #require(run.item("ui/shift.png")), badge = try #require(run.item("ui/badge.png"))
        #expect(shift["status"] as? String == "unchanged" && badge["status"] as? String == "unchanged")
        // 22×12 inside the 160-wide screen, plus the clipped 10×10 corner.
        #expect(shift["ignoredPixels"] as? Int == 22 * 12 + 10 * 10)
        let options = try #require(shift["options"] as? [String: Any])
        #expect(options["ignore"] as? [[Int]] == [[138, 0, 30, 12], [150, 90, 100, 100]] && options["mask"] is NSNull)
        // An added pair has no canvas: nothing ignored.
        #expect(run.item("ui/new.png")?["ignoredPixels"] is NSNull)
        // The corrupt pairs still fail; everything else passes.
        #expect(run.items.filter { $0["failed"] as? Bool == true }.compactMap { $0["path"] as? String }
                == ["broken/base-corrupt.png", "broken/cur-corrupt.png", "ui/resized.png"])
        #expect(try Self.tree(folder.file("base")).merging(try Self.tree(folder.file("cur"))) { a, _ in a } == before)

        // Part of the change ignored: the ratio divides by the pixels compared.
        let half = try Suite.compare(["--ignore", "0,0,144,100"], in: folder)
        let partly = try #require(half.item("ui/shift.png"))
        let diffPixels = try #require(partly["diffPixels"] as? Int)
        let full = try #require(try Suite.compare([], in: folder).item("ui/shift.png")?["diffPixels"] as? Int)
        #expect(diffPixels > 0 && diffPixels < full)
        #expect(partly["diffRatio"] as? Double == Double(diffPixels) / Double(Suite.width * Suite.height - 144 * 100))
        let bounds = try #require(partly["bounds"] as? [String: Int])
        #expect(bounds["x"]! >= 144)
    }

    /// Rows a resized pair gains are in the canvas's coordinates (both images at its top left).
    @Test func maskOnAResizedPair() throws {
        let folder = TemporaryFolder()
        try Suite.makeSuite(in: folder)
        let plain = try Suite.compare(["--allow-resize"], in: folder)
        #expect(plain.item("ui/resized.png")?["diffPixels"] as? Int ?? 0 >= Suite.width * 10)
        let masked = try Suite.compare(["--allow-resize", "--ignore", "0,100,160,10"], in: folder)
        let resized = try #require(masked.item("ui/resized.png"))
        #expect(resized["status"] as? String == "resized" && resized["ignoredPixels"] as? Int == Suite.width * 10)
        #expect(resized["diffPixels"] as? Int == (plain.item("ui/resized.png")?["diffPixels"] as? Int ?? 0) - Suite.width * 10)
        #expect(resized["failed"] as? Bool == (resized["diffPixels"] as? Int != 0))
        // Without --allow-resize a resized pair fails whatever is ignored.
        #expect(try Suite.compare(["--ignore", "0,0,160,110"], in: folder).item("ui/resized.png")?["failed"] as? Bool == true)
    }

    /// A mask image per pair, larger than the picture: its opaque pixels inside the canvas count.
    @Test func maskImagesByPath() throws {
        let folder = TemporaryFolder()
        try Suite.makeSuite(in: folder)
        try FileManager.default.createDirectory(atPath: folder.file("masks/ui"), withIntermediateDirectories: true)
        let (maskWidth, maskHeight) = (200, 150)
        var mask = [UInt8](repeating: 0, count: 4 * maskWidth * maskHeight)
        for y in 0..<maskHeight {
            for x in 0..<maskWidth where (x >= 148 && y < 10) || (x >= 170 && y >= 120) { mask[4 * (y * maskWidth + x) + 3] = 255 }
        }
        let maskPNG = try PNGEncoder.encode(pixels: mask, width: maskWidth, height: maskHeight, format: .rgba8)
        try Suite.write(maskPNG, to: Array(folder.file("masks/ui/badge.png").utf8))
        try Suite.write(Array("not a PNG".utf8), to: Array(folder.file("masks/ui/gone.png").utf8))
        let maskDigest = TestSupport.SHA256.hex(maskPNG)
        let run = try Suite.compare(["--mask-dir", "masks"], in: folder)
        let badge = try #require(run.item("ui/badge.png"))
        #expect(badge["status"] as? String == "unchanged" && badge["ignoredPixels"] as? Int == (160 - 148) * 10)
        #expect((badge["options"] as? [String: Any])?["mask"] as? String == "masks/ui/badge.png")
        #expect(run.item("ui/shift.png")?["status"] as? String == "changed", "no mask file: nothing ignored")
        #expect(run.item("ui/shift.png")?["ignoredPixels"] as? Int == 0)
        // A removed pair's mask is never read; a pair with both sides and a bad mask is an error.
        #expect(run.item("ui/gone.png")?["status"] as? String == "removed")
        try Suite.write(Array("not a PNG".utf8), to: Array(folder.file("masks/ui/shift.png").utf8))
        let broken = try Suite.compare(["--mask-dir", "masks"], in: folder)
        #expect(broken.item("ui/shift.png")?["status"] as? String == "error")
        let reason = broken.item("ui/shift.png")?["reason"] as? String
        #expect(reason?.hasPrefix("mask: ") == true, "\(String(describing: reason))")
        #expect(TestSupport.SHA256.hex(try Data(contentsOf: URL(fileURLWithPath: folder.file("masks/ui/badge.png")))) == maskDigest)
        let nowhere = try Suite.compare(["--mask-dir", "nowhere"], in: folder)
        #expect(nowhere.result.status == 2 && nowhere.reportText.isEmpty)
        #expect(nowhere.result.errorLines == ["masonry: error: the mask folder nowhere does not exist or is not a folder"])
    }

    /// The difference panel shows ignored pixels hatched and never red.
    @Test func differencePanelHatchesIgnoredRegions() throws {
        let folder = TemporaryFolder()
        try Suite.makeSuite(in: folder)
        let run = try Suite.compare(["--ignore", "0,40,160,30"], in: folder)
        let sheet = try PNGDecoder.decodeRGBA(bytes: run.review)
        let tile = try #require(run.item("ui/shift.png")?["tile"] as? [String: Int])
        let panel = (tile["width"]! - 24) / 3
        let scale = Double(panel) / Double(Suite.width)
        func pixel(_ x: Int, _ y: Int) -> [UInt8] { Array(sheet.pixels[(y * sheet.width + x) * 4 ..< (y * sheet.width + x) * 4 + 3]) }
        let x0 = tile["x"]! + 6 + 2 * (panel + 6), y0 = tile["y"]! + 6
        var hatched = 0, elsewhere = 0
        for y in y0..<(y0 + Int(Double(Suite.height) * scale)) {
            for x in x0..<(x0 + panel) where pixel(x, y) == [128, 128, 144] {
                let sourceY = Double(y - y0) / scale
                if sourceY >= 39 && sourceY < 71 { hatched += 1 } else { elsewhere += 1 }
            }
        }
        #expect(hatched > 50 && elsewhere == 0, "\(hatched) hatch pixels in the band, \(elsewhere) elsewhere")
    }

    @Test func configRulesDecidePerPathAndAreReported() throws {
        let folder = TemporaryFolder()
        try Suite.makeSuite(in: folder)
        try """
        {
          "maxDiffPixels": 1000000,
          "rules": [
            {"paths": ["ui/*.png"], "maxDiffPixels": 0},
            {"paths": ["ui/badge.png", "odd/**"], "ignore": [[145, 0, 15, 12]]},
            {"paths": ["ui/res?zed.png"], "allowResize": true}
          ]
        }
        """.write(toFile: folder.file("compare.json"), atomically: true, encoding: .utf8)
        let run = try Suite.compare(["--config", "compare.json", "--max-diff-pixels", "5"], in: folder)
        let shift = try #require(run.item("ui/shift.png"))
        #expect(shift["failed"] as? Bool == true && (shift["options"] as? [String: Any])?["maxDiffPixels"] as? Int == 0)
        let badge = try #require(run.item("ui/badge.png"))
        #expect(badge["status"] as? String == "unchanged" && (badge["options"] as? [String: Any])?["ignore"] as? [[Int]] == [[145, 0, 15, 12]])
        let odd = try #require(run.items.first { ($0["path"] as? String ?? "").hasPrefix("odd/") })
        #expect(odd["status"] as? String == "unchanged" && (odd["options"] as? [String: Any])?["maxDiffPixels"] as? Int == 5,
                "the command line beats the file's top level")
        let resized = try #require(run.item("ui/resized.png"))
        #expect((resized["options"] as? [String: Any])?["allowResize"] as? Bool == true && resized["failed"] as? Bool == true)

        try "{\"rules\": [{\"paths\": [\"a\"]}, {\"paths\": [\"b\"], \"maxDifPixels\": 3}]}"
            .write(toFile: folder.file("bad.json"), atomically: true, encoding: .utf8)
        let bad = try MasonryExecutable.run(["compare", "base", "cur", "--config", "bad.json", "-o", "x.png"], in: folder.path)
        #expect(bad.status == 64 && bad.errorLines.first?.hasPrefix("masonry: error: bad.json: rules[1].maxDifPixels (line 1, column 47): unknown key") == true,
                "\(bad.standardError)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("x.png")))
        let missing = try MasonryExecutable.run(["compare", "base", "cur", "--config", "none.json"], in: folder.path)
        #expect(missing.status == 64 && missing.errorLines.first == "masonry: error: cannot read the config file none.json: No such file or directory")
    }

    @Test func verboseListsEveryChangedPairWithItsNumbers() throws {
        let folder = TemporaryFolder()
        try Suite.makeSuite(in: folder)
        let run = try Suite.compare(["--verbose", "--max-diff-pixels", "1000000", "--allow-resize"], in: folder)
        let lines = run.result.errorLines.filter { $0.hasPrefix("masonry: changed ") || $0.hasPrefix("masonry: resized ") }
        #expect(lines.count == 4, "\(run.result.errorLines)")
        let shift = try #require(run.item("ui/shift.png"))
        #expect(lines.contains("masonry: changed ui/shift.png: \(shift["diffPixels"]!) px differ "
                               + "(\(percent(shift["diffRatio"] as! Double))); limits 1000000 px, 0.000%; passes"))
        #expect(try Suite.compare([], in: folder).result.errorLines.allSatisfy { !$0.hasPrefix("masonry: changed ") })
    }

    /// The caption's percentage: three decimals.
    func percent(_ ratio: Double) -> String { String(format: "%.3f%%", ratio * 100) }
}
