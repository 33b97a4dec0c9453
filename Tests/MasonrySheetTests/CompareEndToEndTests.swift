import Foundation
@testable import MasonrySheet
import CodecCore
import PNGCodec
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `masonry compare` run as a user runs it: a generated suite of small screenshots with every
/// kind of change, the pixelmatch fixture pairs of ImageDiffTests, every status and exit code.
@Suite struct CompareEndToEndTests {
    static let width = 160, height = 100

    /// A flat UI screen: a top bar, two cards of text-like bars, a button, a round icon.
    static func screen(seed: UInt64, height: Int = height, button: [UInt8] = [40, 110, 220, 255], iconShift: Int = 0,
                       badge: Bool = false) -> [UInt8] {
        var random = SplitMix64(seed: seed)
        var pixels = TestImages.flat(width: width, height: height, rgba: [246, 247, 249, 255])
        func fill(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, _ rgba: [UInt8]) {
            for y in max(0, y0)..<min(height, y1) {
                for x in max(0, x0)..<min(width, x1) { pixels.replaceSubrange((y * width + x) * 4 ..< (y * width + x) * 4 + 4, with: rgba) }
            }
        }
        fill(0, 0, width, 12, [32, 36, 48, 255])
        for card in 0..<2 {
            let x0 = 8 + card * 76
            fill(x0, 20, x0 + 68, 70, [255, 255, 255, 255])
            for line in 0..<5 { fill(x0 + 4, 24 + 9 * line, x0 + 4 + random.int(20...60), 28 + 9 * line, [200, 204, 214, 255]) }
        }
        fill(110, 80, 150, 92, button)
        for y in 2..<10 {
            for x in 140..<148 where (x - 144) * (x - 144) + (y - 6) * (y - 6) <= 12 {
                fill(x + iconShift, y, x + iconShift + 1, y + 1, [250, 190, 60, 255])
            }
        }
        if badge { fill(150, 1, 157, 8, [220, 40, 40, 255]) }
        return pixels
    }

    static func png(_ pixels: [UInt8], height: Int = height) throws -> [UInt8] {
        try PNGEncoder.encode(pixels: pixels, width: width, height: height, format: .rgba8)
    }

    /// Writes `bytes` at a path given as raw bytes (names that are not UTF-8 included).
    static func write(_ bytes: [UInt8], to path: [UInt8]) throws {
        let descriptor = (path + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
        }
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown) }
        defer { close(descriptor) }
        _ = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
    }

    /// The odd name: Latin-1 "café" (not UTF-8) and a control byte.
    static let oddName: [UInt8] = Array("odd/caf".utf8) + [0xE9, 0x20, 0x01] + Array(".png".utf8)

    /// The suite: 12 identical copies, one re-encoded copy, a +1-per-channel button, a 1 px icon
    /// shift, a new badge (also under the odd name), a resized page, a removed and an added file,
    /// names differing only in case, and a corrupt file on each side.
    static func makeSuite(in folder: TemporaryFolder) throws {
        for side in ["base", "cur"] {
            for sub in ["screens", "ui", "broken", "odd"] {
                try FileManager.default.createDirectory(atPath: folder.file("\(side)/\(sub)"), withIntermediateDirectories: true)
            }
        }
        func both(_ name: String, _ base: [UInt8], _ current: [UInt8]) throws {
            try write(base, to: Array(folder.file("base/" + name).utf8))
            try write(current, to: Array(folder.file("cur/" + name).utf8))
        }
        for index in 1...12 {
            let bytes = try png(screen(seed: UInt64(index)))
            try both("screens/s\(index).png", bytes, bytes)
        }
        let plain = screen(seed: 20)
        try both("screens/reencoded.png", try png(plain),
                 try PNGEncoder.encode(pixels: plain.enumerated().filter { $0.offset % 4 != 3 }.map(\.element),
                                       width: width, height: height, format: .rgb8))
        try both("ui/button-plus1.png", try png(screen(seed: 21)), try png(screen(seed: 21, button: [41, 111, 221, 255])))
        try both("ui/shift.png", try png(screen(seed: 22)), try png(screen(seed: 22, iconShift: 1)))
        try both("ui/badge.png", try png(screen(seed: 23)), try png(screen(seed: 23, badge: true)))
        try both("ui/resized.png", try png(screen(seed: 24)), try png(screen(seed: 24, height: 110), height: 110))
        try write(try png(screen(seed: 25)), to: Array(folder.file("base/ui/gone.png").utf8))
        try write(try png(screen(seed: 26)), to: Array(folder.file("cur/ui/new.png").utf8))
        try write(try png(screen(seed: 27)), to: Array(folder.file("base/ui/CASE.PNG").utf8))
        try write(try png(screen(seed: 27)), to: Array(folder.file("cur/ui/case.png").utf8))
        let good = try png(screen(seed: 28))
        try both("broken/base-corrupt.png", Array(good.prefix(good.count / 2)), good)
        try both("broken/cur-corrupt.png", good, Array("not a PNG at all".utf8))
        try write(try png(screen(seed: 29)), to: Array(folder.file("base").utf8) + [0x2F] + oddName)
        try write(try png(screen(seed: 29, badge: true)), to: Array(folder.file("cur").utf8) + [0x2F] + oddName)
        try Data("notes".utf8).write(to: folder.url.appendingPathComponent("cur/screens/notes.txt"))
    }

    struct Run {
        let result: ProcessResult
        let reportText: String
        let report: [String: Any]
        let items: [[String: Any]]
        let review: [UInt8]

        func item(_ path: String) -> [String: Any]? { items.first { $0["path"] as? String == path } }
    }

    static func compare(_ extra: [String], in folder: TemporaryFolder, base: String = "base", current: String = "cur") throws -> Run {
        try? FileManager.default.removeItem(atPath: folder.file("out"))
        try FileManager.default.createDirectory(atPath: folder.file("out"), withIntermediateDirectories: true)
        let result = try MasonryExecutable.run(["compare", base, current, "-o", "out/review.png", "--report", "out/report.json"] + extra,
                                               in: folder.path)
        let text = (try? String(contentsOfFile: folder.file("out/report.json"), encoding: .utf8)) ?? ""
        let report = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
        let review = (try? Data(contentsOf: folder.url.appendingPathComponent("out/review.png"))).map { [UInt8]($0) } ?? []
        return Run(result: result, reportText: text, report: report, items: report["items"] as? [[String: Any]] ?? [], review: review)
    }

    @Test func suiteGetsEveryStatusInSheetOrderWithExitOne() throws {
        let folder = TemporaryFolder()
        try Self.makeSuite(in: folder)
        let run = try Self.compare([], in: folder)
        #expect(run.result.status == 1, "stderr: \(run.result.standardError)")
        #expect(run.result.errorLines.last == "masonry: 3 changed, 1 resized, 2 added, 2 removed, 14 unchanged, 2 errors; 6 failed")
        #expect(run.result.errorLines.contains("masonry: error broken/base-corrupt.png: baseline: truncated image data"))
        #expect(run.result.errorLines.contains { $0.hasPrefix("masonry: error broken/cur-corrupt.png: current: not \(ImageFormats.namesForMessages) file") })

        let order = run.items.map { "\($0["status"]!) \($0["path"]!)" }
        #expect(Array(order.prefix(10)) == [
            "error broken/base-corrupt.png", "error broken/cur-corrupt.png",
            "changed odd/caf\\xe9 \\x01.png", "changed ui/badge.png", "changed ui/shift.png", "resized ui/resized.png",
            "added ui/case.png", "added ui/new.png", "removed ui/CASE.PNG", "removed ui/gone.png",
        ])
        #expect(order.dropFirst(10).allSatisfy { $0.hasPrefix("unchanged ") } && order.count == 24)

        let summary = run.report["summary"] as? [String: Int]
        #expect(summary == ["unchanged": 14, "changed": 3, "resized": 1, "added": 2, "removed": 2, "error": 2, "failed": 6])
        let options = run.report["options"] as? [String: Any]
        #expect(options?["threshold"] as? Double == 0.1 && options?["includeAA"] as? Bool == false)
        #expect(run.reportText.hasPrefix("{\n  \"version\": 1,\n  \"generator\": \"masonry\",\n  \"options\": {\"threshold\": 0.1, \"includeAA\": false, "
                                         + "\"maxDiffPixels\": 0, \"maxDiffRatio\": 0.0, \"colorManagement\": false},\n"))

        // Fields of each kind of item.
        let corrupt = try #require(run.item("broken/base-corrupt.png"))
        #expect(corrupt["baseline"] is NSNull && corrupt["failed"] as? Bool == true)
        #expect((corrupt["current"] as? [String: Any])?["width"] as? Int == Self.width)
        #expect(corrupt["reason"] as? String == "baseline: truncated image data" && corrupt["diffPixels"] is NSNull)
        let shift = try #require(run.item("ui/shift.png"))
        #expect(shift["failed"] as? Bool == true && (shift["diffPixels"] as? Int ?? 0) > 0)
        #expect(shift["diffRatio"] as? Double == Double(shift["diffPixels"] as! Int) / Double(Self.width * Self.height))
        let bounds = try #require(shift["bounds"] as? [String: Int])
        #expect(bounds["x"]! >= 140 && bounds["x"]! + bounds["width"]! <= 149 && bounds["y"]! >= 2 && bounds["y"]! + bounds["height"]! <= 10)
        #expect(shift["page"] as? Int == 1 && shift["tile"] is [String: Int] && shift["reason"] == nil)
        let resized = try #require(run.item("ui/resized.png"))
        #expect((resized["current"] as? [String: Any])?["height"] as? Int == 110)
        #expect(resized["diffRatio"] as? Double == Double(resized["diffPixels"] as! Int) / Double(Self.width * 110))
        let added = try #require(run.item("ui/new.png"))
        #expect(added["baseline"] is NSNull && added["failed"] as? Bool == false && added["diffPixels"] is NSNull)
        let unchanged = try #require(run.item("screens/s1.png"))
        #expect(unchanged["page"] is NSNull && unchanged["tile"] is NSNull && unchanged["diffPixels"] as? Int == 0)
        let base = unchanged["baseline"] as? [String: Any], current = unchanged["current"] as? [String: Any]
        let digest = TestSupport.SHA256.hex(try Data(contentsOf: folder.url.appendingPathComponent("base/screens/s1.png")))
        #expect(base?["sha256"] as? String == digest && current?["sha256"] as? String == digest)
        let reencoded = try #require(run.item("screens/reencoded.png"))
        #expect(base?["sha256"] as? String != nil && reencoded["status"] as? String == "unchanged")
        #expect((reencoded["baseline"] as? [String: Any])?["sha256"] as? String != (reencoded["current"] as? [String: Any])?["sha256"] as? String)
        // +1 per channel is below pixelmatch's default threshold.
        #expect(run.item("ui/button-plus1.png")?["status"] as? String == "unchanged")
    }

    @Test func reviewSheetShowsDifferencesAndFramesByStatus() throws {
        let folder = TemporaryFolder()
        try Self.makeSuite(in: folder)
        let run = try Self.compare(["--show-unchanged"], in: folder)
        #expect(run.result.status == 1)
        let sheet = try PNGDecoder.decodeRGBA(bytes: run.review)
        #expect(sheet.width == 1800)
        #expect((run.report["pages"] as? [[String: Any]])?.first?["height"] as? Int == sheet.height)
        func pixel(_ x: Int, _ y: Int) -> [UInt8] { Array(sheet.pixels[(y * sheet.width + x) * 4 ..< (y * sheet.width + x) * 4 + 3]) }
        func tile(_ path: String) throws -> (x: Int, y: Int, width: Int, height: Int) {
            let tile = try #require(run.item(path)?["tile"] as? [String: Int])
            return (tile["x"]!, tile["y"]!, tile["width"]!, tile["height"]!)
        }
        /// Pure-red pixels in the difference panel (the third of three panels, 6 px padding and gaps).
        func redPixels(_ path: String) throws -> Int {
            let t = try tile(path)
            let panel = (t.width - 12 - 12) / 3
            var count = 0
            for y in (t.y + 6)..<(t.y + 6 + panel * Self.height / Self.width) {
                for x in (t.x + 6 + 2 * (panel + 6))..<(t.x + 6 + 3 * panel + 12) where pixel(x, y) == [255, 0, 0] { count += 1 }
            }
            return count
        }
        #expect(try redPixels("ui/shift.png") > 0)
        #expect(try redPixels("ui/badge.png") > 0)
        #expect(try redPixels("screens/s1.png") == 0)
        #expect(try redPixels("screens/reencoded.png") == 0)
        let frames: [(String, [UInt8])] = [("ui/shift.png", [0xD6, 0x27, 0x28]), ("ui/new.png", [0x2C, 0xA0, 0x2C]),
                                           ("ui/gone.png", [0x75, 0x4A, 0xB8]), ("screens/s2.png", [0xB0, 0xB0, 0xB0]),
                                           ("broken/cur-corrupt.png", [0xD6, 0x27, 0x28])]
        for (path, colour) in frames {
            let t = try tile(path)
            #expect(pixel(t.x, t.y) == colour && pixel(t.x + t.width - 1, t.y + t.height - 1) == colour, "frame of \(path)")
        }
        // The baseline panel of the badge pair shows the screen's dark top bar.
        let badge = try tile("ui/badge.png")
        #expect(pixel(badge.x + 10, badge.y + 7) == [32, 36, 48])
    }

    /// A pair with one unreadable side draws the readable side's picture beside the reason.
    @Test func pairWithOneUnreadableSideDrawsTheOther() throws {
        let folder = TemporaryFolder()
        try Self.makeSuite(in: folder)
        let run = try Self.compare([], in: folder)
        let sheet = try PNGDecoder.decodeRGBA(bytes: run.review)
        func pixel(_ x: Int, _ y: Int) -> [UInt8] { Array(sheet.pixels[(y * sheet.width + x) * 4 ..< (y * sheet.width + x) * 4 + 3]) }
        for (path, readable) in [("broken/base-corrupt.png", 1), ("broken/cur-corrupt.png", 0)] {
            let tile = try #require(run.item(path)?["tile"] as? [String: Int])
            let panel = (tile["width"]! - 24) / 3
            // The screen's dark top bar in the readable side's panel, white in the other two.
            for index in 0..<3 {
                let colour = pixel(tile["x"]! + 6 + index * (panel + 6) + 10, tile["y"]! + 7)
                #expect(index == readable ? colour == [32, 36, 48] : colour == [255, 255, 255], "\(path), panel \(index)")
            }
        }
    }

    @Test func outputIsIdenticalForEveryJobCount() throws {
        let folder = TemporaryFolder()
        try Self.makeSuite(in: folder)
        var reports: [String] = [], bytes: [[[UInt8]]] = [], pages: [String] = []
        for jobs in ["1", "2", "3"] {
            let run = try Self.compare(["--jobs", jobs, "--show-unchanged", "--page-height", "600"], in: folder)
            #expect(run.result.status == 1)
            pages = (run.report["pages"] as? [[String: Any]])?.compactMap { $0["file"] as? String } ?? []
            reports.append(run.reportText)
            bytes.append(try pages.map { [UInt8](try Data(contentsOf: folder.url.appendingPathComponent($0))) })
        }
        #expect(pages.count > 1 && pages.enumerated().allSatisfy { $0.element == "out/review-00\($0.offset + 1).png" }, "\(pages)")
        #expect(reports[0] == reports[1] && reports[1] == reports[2], "reports differ across --jobs 1/2/3")
        #expect(bytes[0] == bytes[1] && bytes[1] == bytes[2], "review pages differ across --jobs 1/2/3")
    }

    @Test func optionsDecideWhichPairsPass() throws {
        let folder = TemporaryFolder()
        try Self.makeSuite(in: folder)
        let strict = try Self.compare(["--threshold", "0"], in: folder)
        #expect(strict.item("ui/button-plus1.png")?["status"] as? String == "changed")
        #expect(strict.report["options"].flatMap { ($0 as? [String: Any])?["threshold"] as? Double } == 0)

        let lenient = try Self.compare(["--max-diff-pixels", "1000000", "--allow-resize"], in: folder)
        #expect(lenient.result.status == 1, "the corrupt files still fail")
        #expect(lenient.items.filter { $0["failed"] as? Bool == true }.compactMap { $0["status"] as? String } == ["error", "error"])
        #expect(lenient.item("ui/resized.png")?["status"] as? String == "resized")

        let ratio = try Self.compare(["--max-diff-ratio", "0.5"], in: folder)
        #expect(ratio.item("ui/shift.png")?["failed"] as? Bool == false)
        #expect(ratio.item("ui/resized.png")?["failed"] as? Bool == true, "resized fails without --allow-resize")

        let missing = try Self.compare(["--fail-on-missing"], in: folder)
        #expect(missing.item("ui/new.png")?["failed"] as? Bool == true && missing.item("ui/gone.png")?["failed"] as? Bool == true)
        #expect(missing.items.prefix(10).allSatisfy { $0["failed"] as? Bool == true })

        // Two copies of the same folder: nothing fails, exit 0, no tile drawn.
        try FileManager.default.copyItem(atPath: folder.file("base/screens"), toPath: folder.file("same"))
        let same = try Self.compare([], in: folder, base: "base/screens", current: "same")
        #expect(same.result.status == 0, "stderr: \(same.result.standardError)")
        #expect(same.result.errorLines == ["masonry: 13 unchanged; 0 failed"])
        #expect(same.items.allSatisfy { $0["tile"] is NSNull })
        let quiet = try Self.compare(["-q"], in: folder, base: "base/screens", current: "same")
        #expect(quiet.result.status == 0 && quiet.result.standardError.isEmpty)
    }

    @Test func missingFoldersAndBadOptionsGetTheirStatuses() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("base"), withIntermediateDirectories: true)
        let missing = try Self.compare([], in: folder, base: "base", current: "nowhere")
        #expect(missing.result.status == 2 && missing.review.isEmpty && missing.reportText.isEmpty)
        #expect(missing.result.errorLines == ["masonry: error: cannot read folder nowhere: No such file or directory"])
        for (arguments, message) in [
            (["compare", "base"], "masonry: error: missing expected argument '<current>'"),
            (["compare", "base", "base", "--threshold", "1.5"], "masonry: error: invalid value '1.5' for '--threshold <t>': must be from 0 to 1"),
            (["compare", "base", "base", "--threshold", "-1"], "masonry: error: invalid value '-1' for '--threshold <t>': expected a number from 0 to 1"),
            (["compare", "base", "base", "--max-diff-ratio", "x"], "masonry: error: invalid value 'x' for '--max-diff-ratio <r>': expected a number from 0 to 1"),
            (["compare", "base", "base", "--columns", "3"], "masonry: error: unknown option '--columns'"),
        ] {
            let result = try MasonryExecutable.run(arguments, in: folder.path)
            #expect(result.status == 64 && result.errorLines.first == message, "\(arguments): \(result.standardError)")
        }
        let same = try MasonryExecutable.run(["compare", "base", "base", "-o", "x.png", "--report", "x.png"], in: folder.path)
        #expect(same.status == 64 && same.errorLines == ["masonry: error: the outputs x.png and x.png are the same file; give each output its own path"])
        #expect(!FileManager.default.fileExists(atPath: folder.file("x.png")))
        let help = try MasonryExecutable.run(["compare", "--help"], in: folder.path)
        #expect(help.status == 0 && help.standardOutput.hasPrefix("OVERVIEW: Compare two folders"))
    }

    /// The ImageDiff fixture pairs (goldens from the PyPI pixelmatch, see their make_fixtures.py):
    /// the report's counts and bounds equal pixelmatch's for every pair at two thresholds.
    @Test(arguments: ["0.0", "0.1"]) func countsEqualPixelmatch(threshold: String) throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("ImageDiffTests/Fixtures")
        let lines = try String(contentsOf: fixtures.appendingPathComponent("goldens.txt"), encoding: .utf8).split(separator: "\n")
        let goldens: [[String]] = lines.filter { !$0.hasPrefix("#") }.map { (line: Substring) in line.split(separator: " ").map(String.init) }
            .filter { (fields: [String]) in fields[2] == threshold && fields[3] == "false" }
        #expect(goldens.count >= 15)
        let folder = TemporaryFolder()
        for side in ["base", "cur"] { try FileManager.default.createDirectory(atPath: folder.file(side), withIntermediateDirectories: true) }
        for golden in goldens {
            let name = "\(golden[0])--\(golden[1]).png"
            try FileManager.default.copyItem(at: fixtures.appendingPathComponent("pairs/\(golden[0]).png"), to: folder.url.appendingPathComponent("base/" + name))
            try FileManager.default.copyItem(at: fixtures.appendingPathComponent("pairs/\(golden[1]).png"), to: folder.url.appendingPathComponent("cur/" + name))
        }
        let run = try Self.compare(["--threshold", threshold], in: folder)
        #expect(run.result.status == 1)
        for golden in goldens {
            let item = try #require(run.item("\(golden[0])--\(golden[1]).png"))
            let bounds = (item["bounds"] as? [String: Int]).map { "\($0["x"]!),\($0["y"]!),\($0["width"]!),\($0["height"]!)" } ?? "-"
            #expect("\(item["diffPixels"]!) \(item["aaPixels"]!) \(bounds)" == "\(golden[4]) \(golden[5]) \(golden[6])",
                    "\(golden[0]) vs \(golden[1]) at \(threshold)")
        }
    }
}
