import Foundation
import CodecCore
import PNGCodec
import Testing
import TestSupport

/// The built `masonry` command, run as a user runs it, on folders made here.
@Suite struct SheetEndToEndTests {
    /// Seven seeded images of assorted shapes, one half-transparent, one palette-like flat.
    static func makeFixtureFolder(at folder: String) throws {
        let shapes: [(String, Int, Int, UInt8?)] = [
            ("img1.png", 120, 90, nil), ("img2.png", 60, 140, nil), ("img10.png", 200, 40, nil),
            ("img3.png", 90, 90, 128), ("photo-tall.png", 40, 200, nil), ("wide.PNG", 180, 60, nil), ("z.png", 33, 17, nil),
        ]
        for (index, (name, width, height, alpha)) in shapes.enumerated() {
            try TestImages.write(TestImages.photoLike(width: width, height: height, seed: UInt64(index + 1), alpha: alpha),
                                 width: width, height: height, to: folder + "/" + name)
        }
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: folder + "/notes.txt"))
    }

    private func render(_ arguments: [String], in folder: TemporaryFolder) throws -> (ProcessResult, [UInt8], String) {
        let result = try MasonryExecutable.run(arguments, in: folder.path)
        let sheet = (try? Data(contentsOf: folder.url.appendingPathComponent("out/sheet.png"))).map { [UInt8]($0) } ?? []
        let manifest = (try? String(contentsOf: folder.url.appendingPathComponent("out/sheet.json"), encoding: .utf8)) ?? ""
        return (result, sheet, manifest)
    }

    @Test func goldenSheetAndManifestAreIdenticalForEveryJobCount() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("in"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("out"), withIntermediateDirectories: true)
        try Self.makeFixtureFolder(at: folder.file("in"))
        var outputs: [[UInt8]] = []
        var manifests: [String] = []
        for jobs in ["1", "2", "8"] {
            let (result, sheet, manifest) = try render(
                ["in", "-o", "out/sheet.png", "--manifest", "out/sheet.json", "-w", "400", "-c", "3", "--jobs", jobs,
                 "--background", "#204060"], in: folder)
            #expect(result.status == 0, "stderr: \(result.standardError)")
            outputs.append(sheet)
            manifests.append(manifest)
        }
        #expect(outputs[0] == outputs[1] && outputs[1] == outputs[2], "sheet bytes differ across --jobs 1/2/8")
        #expect(manifests[0] == manifests[1] && manifests[1] == manifests[2], "manifest differs across --jobs")

        // Regression goldens (made by this code at the commit that added them, after the pixel and
        // geometry checks below and in the other suites passed). The PNG digest pins the bytes of
        // Masonry's own deflate (the default compression), which no installed zlib changes.
        let decoded = try PNGDecoder.decodeRGBA(bytes: outputs[0])
        #expect((decoded.width, decoded.height) == (400, 634))
        #expect(SHA256.hex(decoded.pixels) == Goldens.fixtureSheetPixels)
        #expect(SHA256.hex(outputs[0]) == Goldens.fixtureSheetPNG)
        #expect(SHA256.hex(Array(manifests[0].utf8)) == Goldens.fixtureManifest)
        // Masonry's mark (issue #36) is the only change the sheet's bytes and the manifest's
        // text saw since the earlier goldens: without it they are byte for byte what they were.
        let mark = PNGBytes.chunk("mnRY", Array("masonry".utf8))
        let iend = outputs[0].count - 12
        #expect(Array(outputs[0][(iend - mark.count)..<iend]) == mark)
        #expect(SHA256.hex(Array(outputs[0][..<(iend - mark.count)] + outputs[0][iend...])) == Goldens.fixtureSheetPNGBeforeTheMark)
        let unmarked = manifests[0].replacingOccurrences(of: "  \"generator\": \"masonry\",\n", with: "")
        #expect(SHA256.hex(Array(unmarked.utf8)) == Goldens.fixtureManifestBeforeTheMark)
    }

    @Test func manifestMatchesHandComputedGeometry() throws {
        let folder = TemporaryFolder()
        // 100×100, 100×50, 50×100 in two columns of 100 px (226 - 2×8 margin - 10 gap = 200).
        for (name, width, height) in [("a.png", 100, 100), ("b.png", 100, 50), ("c.png", 50, 100)] {
            try TestImages.write(TestImages.flat(width: width, height: height, rgba: [200, 10, 10, 255]),
                                 width: width, height: height, to: folder.file(name))
        }
        let result = try MasonryExecutable.run([".", "-o", "s.png", "--manifest", "m.json", "-w", "226", "-c", "2",
                                                "--gap", "10", "--margin", "8"], in: folder.path)
        #expect(result.status == 0, "stderr: \(result.standardError)")
        let manifest = try String(contentsOf: folder.url.appendingPathComponent("m.json"), encoding: .utf8)
        // a: column 0 at (8,8) 100×100; column bottoms 118 and 8.
        // b: shortest is column 1: (118,8) 100×50; bottoms 118 and 68.
        // c: column 1 again: height (2·100·100 + 50) / (2·50) = 200 → (118,68) 100×200; bottoms 118, 278.
        // Sheet height: 8 + max(100, 60 + 200) + 8 = 276.
        let expected = """
        {
          "version": 1,
          "generator": "masonry",
          "sheet": {"width": 226, "height": 276, "columns": 2, "columnGap": 10, "rowGap": 10, "insets": {"top": 8, "right": 8, "bottom": 8, "left": 8}, "background": "#ffffffff"},
          "items": [
            {"index": 0, "path": "./a.png", "sourceWidth": 100, "sourceHeight": 100, "format": "PNG", "color": "untagged", "column": 0, "x": 8, "y": 8, "width": 100, "height": 100, "image": {"x": 8, "y": 8, "width": 100, "height": 100}},
            {"index": 1, "path": "./b.png", "sourceWidth": 100, "sourceHeight": 50, "format": "PNG", "color": "untagged", "column": 1, "x": 118, "y": 8, "width": 100, "height": 50, "image": {"x": 118, "y": 8, "width": 100, "height": 50}},
            {"index": 2, "path": "./c.png", "sourceWidth": 50, "sourceHeight": 100, "format": "PNG", "color": "untagged", "column": 1, "x": 118, "y": 68, "width": 100, "height": 200, "image": {"x": 118, "y": 68, "width": 100, "height": 200}}
          ],
          "skipped": []
        }

        """
        #expect(manifest == expected)
        let sheet = try PNGDecoder.decodeRGBA(contentsOfFile: folder.file("s.png"))
        #expect((sheet.width, sheet.height) == (226, 276))
        #expect(Array(sheet.pixels[(150 * 226 + 150) * 4 ..< (150 * 226 + 150) * 4 + 3]) == [200, 10, 10])
        #expect(Array(sheet.pixels[(150 * 226 + 50) * 4 ..< (150 * 226 + 50) * 4 + 3]) == [255, 255, 255])
    }

    @Test func exitStatusesAndMessagesFollowTheSpec() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("empty"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("mixed"), withIntermediateDirectories: true)
        try TestImages.write(TestImages.photoLike(width: 30, height: 20, seed: 9), width: 30, height: 20,
                             to: folder.file("mixed/good.png"))
        var truncated = try [UInt8](Data(contentsOf: folder.url.appendingPathComponent("mixed/good.png")))
        truncated.removeLast(40)
        try Data(truncated).write(to: folder.url.appendingPathComponent("mixed/cut.png"))

        let badOption = try MasonryExecutable.run(["mixed", "--columns", "zero"], in: folder.path)
        #expect(badOption.status == 64)
        #expect(badOption.standardError.hasPrefix("masonry: error: invalid value 'zero' for '--columns <n>'"))
        #expect(badOption.standardError.contains("See 'masonry --help' for more information."))
        #expect(try MasonryExecutable.run(["--frobnicate", "mixed"], in: folder.path).status == 64)
        #expect(try MasonryExecutable.run([], in: folder.path).standardError.contains("masonry: error: missing expected argument '<input> ...'"))

        let missing = try MasonryExecutable.run(["no-such-folder", "-o", "x.png"], in: folder.path)
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("no-such-folder: no such file or folder"))
        #expect(!FileManager.default.fileExists(atPath: folder.file("x.png")))

        let empty = try MasonryExecutable.run(["empty", "-o", "x.png"], in: folder.path)
        #expect(empty.status == 1)
        #expect(empty.standardError.contains("masonry: error: no images found in empty"))

        let corrupt = try MasonryExecutable.run(["mixed", "-o", "x.png"], in: folder.path)
        #expect(corrupt.status == 0)
        #expect(corrupt.errorLines.contains("masonry: skipped mixed/cut.png: truncated image data"),
                "stderr: \(corrupt.standardError)")
        #expect(corrupt.errorLines.last?.hasPrefix("masonry: wrote x.png (") == true)
        #expect(corrupt.errorLines.last?.contains("1 image, 1 skipped") == true)

        let strict = try MasonryExecutable.run(["mixed", "-o", "y.png", "--strict"], in: folder.path)
        #expect(strict.status == 2)
        #expect(FileManager.default.fileExists(atPath: folder.file("y.png")))

        let help = try MasonryExecutable.run(["--help"], in: folder.path)
        #expect(help.status == 0)
        #expect(help.standardOutput.hasPrefix("OVERVIEW: "))
        #expect(help.standardOutput.contains("USAGE: masonry [<options>] <input> ..."))
        #expect(help.standardOutput.contains("--max-pixels <n>"))
        #expect(help.standardError.isEmpty)
    }

    @Test func killedRunLeavesTheEarlierSheetByteIdentical() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("in"), withIntermediateDirectories: true)
        for index in 0..<40 {
            try TestImages.write(TestImages.photoLike(width: 300, height: 240, seed: UInt64(index)), width: 300, height: 240,
                                 to: folder.file("in/\(index).png"))
        }
        // An earlier sheet of Masonry's (it ends in Masonry's mark), so the run may replace it.
        let earlier = Array("an earlier sheet".utf8) + PNGBytes.chunk("mnRY", Array("masonry".utf8)) + PNGBytes.chunk("IEND", [])
        try Data(earlier).write(to: folder.url.appendingPathComponent("sheet.png"))
        let (process, _, _) = try MasonryExecutable.start(["in", "-o", "sheet.png", "--jobs", "1"], in: folder.path)
        // Wait until the temporary sheet exists, i.e. rendering has started, then kill without warning.
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, !(try FileManager.default.contentsOfDirectory(atPath: folder.path).contains { $0.hasSuffix(".tmp") }) {
            usleep(2_000)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(try [UInt8](Data(contentsOf: folder.url.appendingPathComponent("sheet.png"))) == earlier)
    }
}

/// Recorded digests; see the test that checks them.
enum Goldens {
    static let fixtureSheetPixels = "7f655a21f8796040c7fa2475a9515d5e3946ccf38130640a4f1688f2f0228716"
    static let fixtureSheetPNG = "09dd1d216af4840ddbc8d8faf3ba0a6a4178362a17d9ce571f8c106eb8d50659"
    static let fixtureManifest = "34286db6122cf154a63c3f0e9d5697766d3b3ae7a533bba5323eb0439527356f"
    /// The goldens before Masonry marked its outputs (the `mnRY` chunk, the manifest's
    /// `"generator"`): the same files with the mark taken out.
    static let fixtureSheetPNGBeforeTheMark = "909b27e52e05dc35ad864e5009915f083d93e3e012f3068d018b62dc1d6a6b0e"
    static let fixtureManifestBeforeTheMark = "0c45569a3fc61d31e2f79ad72293385d9c5b38cfe920f857ac162a7cc490ed81"
}

/// Options whose effect is only visible on the command line: progress, quiet, version,
/// recursion, and the manifest's record of a file that failed after layout.
@Suite struct CommandBehaviourTests {
    private func makeImages(_ folder: TemporaryFolder, _ names: [String], side: Int = 24) throws {
        for (index, name) in names.enumerated() {
            try TestImages.write(TestImages.photoLike(width: side, height: side, seed: UInt64(index + 7)), width: side,
                                 height: side, to: folder.file(name))
        }
    }

    @Test func progressBarIsDrawnOnRequestAndQuietSilencesEverything() throws {
        let folder = TemporaryFolder()
        try makeImages(folder, ["a.png", "b.png", "c.png"])
        let bar = try MasonryExecutable.run([".", "-o", "s.png", "--progress"], in: folder.path)
        #expect(bar.status == 0)
        #expect(bar.standardError.contains("\r\u{1B}[K["), "the bar redraws in place: \(bar.standardError.debugDescription)")
        #expect(bar.standardError.contains("3/3 images"))
        #expect(bar.errorLines.last?.contains("masonry: wrote s.png (") == true)

        let plain = try MasonryExecutable.run([".", "-o", "s.png"], in: folder.path)
        #expect(!plain.standardError.contains("\r"), "no bar when stderr is not a terminal")

        let quiet = try MasonryExecutable.run([".", "-o", "s.png", "--quiet"], in: folder.path)
        #expect(quiet.status == 0)
        #expect(quiet.standardError.isEmpty)

        let version = try MasonryExecutable.run(["--version"], in: folder.path)
        #expect(version.status == 0 && version.standardOutput.hasPrefix("masonry "))
        #expect(try MasonryExecutable.run([".", "--progress", "--no-progress"], in: folder.path).status == 64)
    }

    @Test func aStderrReaderThatGoesAwayDoesNotStopTheRun() throws {
        let folder = TemporaryFolder()
        try makeImages(folder, ["a.png", "b.png"])
        let process = Process()
        process.executableURL = MasonryExecutable.url
        process.arguments = [".", "-o", "s.png", "--progress", "--manifest", "m.json"]
        process.currentDirectoryURL = folder.url
        let gone = Pipe()
        process.standardError = gone
        try gone.fileHandleForReading.close()   // every write to stderr now fails with EPIPE
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        #expect(FileManager.default.fileExists(atPath: folder.file("s.png")))
        #expect(FileManager.default.fileExists(atPath: folder.file("m.json")))
    }

    @Test func scanSkipsAreReportedInNaturalOrderWhateverTheListingOrder() throws {
        let folder = TemporaryFolder()
        try makeImages(folder, ["ok.png"])
        let names = ["q.png", "b10.png", "zz.png", "b9.png", "a.png", "m.png", "c.png", "x.png"]
        for name in names { try FileManager.default.createDirectory(atPath: folder.file(name), withIntermediateDirectories: false) }
        let result = try MasonryExecutable.run([".", "-o", "s.png", "--manifest", "m.json"], in: folder.path)
        #expect(result.status == 0)
        let reported = result.errorLines.filter { $0.hasPrefix("masonry: skipped ") }
        let expected = ["a.png", "b9.png", "b10.png", "c.png", "m.png", "q.png", "x.png", "zz.png"]
            .map { "masonry: skipped ./\($0): is a folder, not a file" }
        #expect(reported == expected)
    }

    @Test func recursionVisitsEveryFolderOnceEvenThroughALinkLoop() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("in/sub/deeper"), withIntermediateDirectories: true)
        try makeImages(folder, ["in/top.png", "in/sub/mid.png", "in/sub/deeper/low.png"])
        try FileManager.default.createSymbolicLink(atPath: folder.file("in/sub/deeper/back"), withDestinationPath: "../..")
        let flat = try MasonryExecutable.run(["in", "-o", "flat.png", "--manifest", "flat.json"], in: folder.path)
        #expect(flat.status == 0)
        #expect(flat.errorLines.last?.contains("1 image, 0 skipped") == true, "\(flat.standardError)")
        let deep = try MasonryExecutable.run(["in", "-r", "-o", "deep.png", "--manifest", "deep.json"], in: folder.path)
        #expect(deep.status == 0)
        #expect(deep.errorLines.last?.contains("3 images, 0 skipped") == true, "\(deep.standardError)")
        let manifest = try String(contentsOfFile: folder.file("deep.json"), encoding: .utf8)
        // Natural order over the whole relative path: in/sub/… sorts before in/top.png.
        let paths = manifest.split(separator: "\n").compactMap { line -> String? in
            guard let start = line.range(of: "\"path\": \"") else { return nil }
            return String(line[start.upperBound...].prefix { $0 != "\"" })
        }
        #expect(paths == ["in/sub/deeper/low.png", "in/sub/mid.png", "in/top.png"])
    }

    @Test func aFileThatBreaksAfterLayoutIsAnErrorTileAndIsListedAsSkipped() throws {
        let folder = TemporaryFolder()
        try makeImages(folder, ["1.png", "2.png"], side: 40)
        var bytes = try [UInt8](Data(contentsOf: folder.url.appendingPathComponent("2.png")))
        bytes.removeLast(60)   // the header is intact, so the file is laid out, then fails to decode
        try Data(bytes).write(to: folder.url.appendingPathComponent("2.png"))
        let result = try MasonryExecutable.run([".", "-o", "s.png", "--manifest", "m.json", "-w", "112", "-c", "2",
                                                "--background", "#ff00ff"], in: folder.path)
        #expect(result.status == 0)
        #expect(result.errorLines.contains("masonry: skipped ./2.png: truncated image data"), "\(result.standardError)")
        let manifest = try String(contentsOfFile: folder.file("m.json"), encoding: .utf8)
        #expect(manifest.contains("\"skipped\": [\n    {\"path\": \"./2.png\", \"reason\": \"truncated image data\"}\n  ]"))
        #expect(!manifest.contains("{\"index\": 1,"), "the failed image is not an item")
        // Columns of 44 px: 112 - 2×8 margin - 8 gap = 88. The second tile (x 60...103) is the error
        // tile (issue #36): its 2 px red frame at the edges, the pale fill inside, never the background.
        let sheet = try PNGDecoder.decodeRGBA(contentsOfFile: folder.file("s.png"))
        func pixel(_ x: Int, _ y: Int) -> [UInt8] { Array(sheet.pixels[((y * sheet.width + x) * 4)..<((y * sheet.width + x) * 4 + 3)]) }
        for y in 8..<52 {
            for x in 60..<104 {
                let edge = x < 62 || x >= 102 || y < 10 || y >= 50
                if edge { #expect(pixel(x, y) == [0xD6, 0x27, 0x28], "(\(x),\(y)) should be the error frame") }
                #expect(pixel(x, y) != [255, 0, 255], "(\(x),\(y)) shows the background")
                if pixel(x, y) == [255, 0, 255] { return }
            }
        }
        #expect(pixel(63, 11) == [0xFB, 0xE9, 0xE9], "the error tile's fill, above its text")
    }
}
