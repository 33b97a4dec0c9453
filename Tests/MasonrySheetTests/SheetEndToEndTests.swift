import Foundation
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
        // geometry checks below and in the other suites passed). The PNG digest also depends on
        // zlib's output for these settings (Debian 12's zlib 1.2.13); the pixel digest does not.
        let decoded = try PNGDecoder.decodeRGBA(bytes: outputs[0])
        #expect((decoded.width, decoded.height) == (400, 634))
        #expect(SHA256.hex(decoded.pixels) == Goldens.fixtureSheetPixels)
        #expect(SHA256.hex(outputs[0]) == Goldens.fixtureSheetPNG)
        #expect(SHA256.hex(Array(manifests[0].utf8)) == Goldens.fixtureManifest)
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
          "sheet": {"width": 226, "height": 276, "columns": 2, "columnGap": 10, "rowGap": 10, "insets": {"top": 8, "right": 8, "bottom": 8, "left": 8}, "background": "#ffffffff"},
          "items": [
            {"index": 0, "path": "./a.png", "sourceWidth": 100, "sourceHeight": 100, "column": 0, "x": 8, "y": 8, "width": 100, "height": 100, "image": {"x": 8, "y": 8, "width": 100, "height": 100}},
            {"index": 1, "path": "./b.png", "sourceWidth": 100, "sourceHeight": 50, "column": 1, "x": 118, "y": 8, "width": 100, "height": 50, "image": {"x": 118, "y": 8, "width": 100, "height": 50}},
            {"index": 2, "path": "./c.png", "sourceWidth": 50, "sourceHeight": 100, "column": 1, "x": 118, "y": 68, "width": 100, "height": 200, "image": {"x": 118, "y": 68, "width": 100, "height": 200}}
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
        #expect(badOption.standardError.hasPrefix("Error: Invalid value 'zero' for '--columns <n>'"))
        #expect(badOption.standardError.contains("See 'masonry --help' for more information."))
        #expect(try MasonryExecutable.run(["--frobnicate", "mixed"], in: folder.path).status == 64)
        #expect(try MasonryExecutable.run([], in: folder.path).standardError.contains("Missing expected argument '<input> ...'"))

        let missing = try MasonryExecutable.run(["no-such-folder", "-o", "x.png"], in: folder.path)
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("no-such-folder: no such file or folder"))
        #expect(!FileManager.default.fileExists(atPath: folder.file("x.png")))

        let empty = try MasonryExecutable.run(["empty", "-o", "x.png"], in: folder.path)
        #expect(empty.status == 1)
        #expect(empty.standardError.contains("masonry: error: no PNG images found in empty"))

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
        let earlier = Array("an earlier sheet".utf8)
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
    static let fixtureSheetPNG = "ebe896e7abeda14a8c57d64569fef3c21894b6da8f43acc61e336471aa2450fe"
    static let fixtureManifest = "c16183675d11d3613bdbb08b7bbf85c71eab6511e1761c9093c5a88fa887d396"
}
