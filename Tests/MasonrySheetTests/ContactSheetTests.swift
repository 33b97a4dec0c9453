import Foundation
import WaterfallLayout
import MasonrySheet
import CodecCore
import PNGCodec
import Raster
import Testing
import TestSupport

/// The library's entry point (`ContactSheet`, issue #26) gives what the command gives, and the
/// example package under `Examples/` builds against the library and makes the command's sheet.
@Suite struct ContactSheetTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A folder of seven photo-like pictures of different sizes, some with alpha.
    static func pictures() throws -> TemporaryFolder {
        let folder = TemporaryFolder("masonry-contact-sheet")
        for index in 0..<7 {
            let width = 40 + 23 * index, height = 90 - 9 * index
            let pixels = TestImages.photoLike(width: width, height: height, seed: UInt64(index), alpha: index % 3 == 0 ? 160 : nil)
            try TestImages.write(pixels, width: width, height: height, to: folder.file("p\(index).png"))
        }
        return folder
    }

    @Test(arguments: ["white", "transparent"])
    func paintHandsOverTheRowsThatWriteEncodes(background: String) throws {
        let folder = try Self.pictures()
        var options = SheetOptions(layout: try LayoutConfiguration(width: 200, columns: 3))
        options.background = try RGBA8Color(parsing: background)
        options.paging.maxImagesPerPage = 3
        let sheet = ContactSheet(inputs: [folder.path], options: options)
        let out = TemporaryFolder("masonry-contact-sheet-out")
        let written = try sheet.write(to: out.file("sheet.png"))
        #expect(written.plan.pages.count > 1 && written.report.written.count == written.plan.pages.count)

        let rows = RowCollector()
        let painted = try sheet.paint(pageNames: out.file("sheet.png")) { rows.add($0) }
        #expect(painted.report.written.isEmpty && painted.report.rendered == written.report.rendered)
        for (page, file) in zip(written.plan.pages, written.report.written) {
            let decoded = try PNGDecoder.decodeRGBA(contentsOfFile: file.file.displayName)
            let mine = rows.pages[page.number] ?? []
            #expect(mine.count == page.height && decoded.height == page.height)
            let channels = background == "white" ? 3 : 4
            var rgba: [UInt8] = []
            for row in mine {
                for start in stride(from: 0, to: row.count, by: channels) {
                    rgba += row[start..<start + 3]
                    rgba.append(channels == 4 ? row[start + 3] : 255)
                }
            }
            #expect(rgba == decoded.pixels, "page \(page.number)")
        }
    }

    @Test func planDecodesNothingAndWritesNothing() throws {
        let folder = try Self.pictures()
        let sheet = ContactSheet(inputs: [folder.path], options: SheetOptions(layout: try LayoutConfiguration(width: 300, columns: 2)))
        let result = try sheet.plan(pageNames: folder.file("sheet.png"))
        #expect(result.plan.images.count == 7 && result.plan.pages.count == 1 && result.report.written.isEmpty)
        #expect(result.plan.layout.tiles.count == 7 && result.plan.layout.tiles.allSatisfy { $0.frame.maxX <= 300 })
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == (0..<7).map { "p\($0).png" })
    }

    @Test func compareReportsEveryPair() throws {
        let baseline = try Self.pictures(), current = try Self.pictures()
        let changed = TestImages.flat(width: 40, height: 90, rgba: [255, 0, 0, 255])
        try TestImages.write(changed, width: 40, height: 90, to: current.file("p0.png"))
        let out = TemporaryFolder()
        let outcome = try ContactSheet.compare(baseline: baseline.path, current: current.path, output: out.file("review.png"))
        #expect(outcome.summary.line == "1 changed, 6 unchanged; 1 failed")
        #expect(outcome.written.count == 1 && FileManager.default.fileExists(atPath: out.file("review.png")))
    }

    /// One test, as it builds a package: `Examples/ContactSheetExample` (which depends on this
    /// package by path) is built into `.build/examples/` (kept between runs, so later builds are
    /// incremental), run on SampleImages, and its sheet must be the command's, byte for byte.
    @Test func theExamplePackageBuildsAndMakesTheCommandsSheet() throws {
        let example = Self.packageRoot.appendingPathComponent("Examples/ContactSheetExample").path
        let scratch = Self.packageRoot.appendingPathComponent(".build/examples/ContactSheetExample").path
        // Without the build manifest cache: it missed targets the root package gained since the last
        // build (a merge adding a codec gave "no such module"), as it watches the example's manifest only.
        let build = try Self.run("/usr/bin/env", ["swift", "build", "--package-path", example, "--scratch-path", scratch,
                                                  "--disable-build-manifest-caching"])
        #expect(build.status == 0, "swift build of the example: \(build.standardOutput.suffix(2000))\(build.standardError.suffix(2000))")
        let work = TemporaryFolder("masonry-example")
        let samples = Self.packageRoot.appendingPathComponent("SampleImages").path
        let ran = try Self.run(scratch + "/debug/ContactSheetExample", [samples, "sheet.png"], in: work.path)
        #expect(ran.status == 0, "\(ran.standardOutput)")
        let lines = ran.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first == "wrote sheet.png (900x1572)")
        #expect(lines.dropFirst().first == "33 images planned on 1 page(s), 33 drawn, 0 skipped")
        #expect(lines.dropFirst(2).first?.hasPrefix("painted 1572 rows, mean sample value ") == true)
        #expect(lines.last == "compare: 33 unchanged; 0 failed")

        let command = try MasonryExecutable.run([samples, "-w", "900", "-c", "5", "--caption", "{stem}", "-o", "command.png", "-q"],
                                                in: work.path)
        #expect(command.status == 0)
        let sheet = try Data(contentsOf: URL(fileURLWithPath: work.file("sheet.png")))
        let commandSheet = try Data(contentsOf: URL(fileURLWithPath: work.file("command.png")))
        #expect(sheet == commandSheet, "the example's sheet is not the command's")
        TestLog.verbose("example sheet: \(sheet.count) bytes, SHA-256 \(SHA256.hex(Array(sheet)))")
    }

    /// README's "Use it from Swift" shows the example package whole: its manifest and program.
    @Test func theReadmeShowsTheWholeExample() throws {
        let readme = try String(contentsOf: Self.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        for file in ["Package.swift", "Sources/ContactSheetExample/main.swift"] {
            let text = try String(contentsOf: Self.packageRoot.appendingPathComponent("Examples/ContactSheetExample/\(file)"),
                                  encoding: .utf8)
            #expect(readme.contains("```swift\n" + text + "```\n"), "README does not show \(file) as it is")
        }
    }

    static func run(_ executable: String, _ arguments: [String], in folder: String? = nil) throws -> ProcessResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("masonry-run-\(UUID().uuidString)")
        try Data().write(to: output)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        try handle.close()
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        return ProcessResult(status: process.terminationStatus, standardOutput: text, standardError: "")
    }
}

/// The rows `paint` hands over, copied, by page (called on the test's thread, in order).
private final class RowCollector {
    var pages: [Int: [[UInt8]]] = [:]
    func add(_ row: SheetRow) {
        #expect(row.y == pages[row.page, default: []].count && row.pixels.count == row.width * row.channels)
        pages[row.page, default: []].append(Array(row.pixels))
    }
}
