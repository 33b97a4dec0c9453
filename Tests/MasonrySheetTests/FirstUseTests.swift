import Foundation
import PNGCodec
import Testing
import TestSupport

/// Issue #36, items 3-13: the rough edges a newcomer met in a first hour, each run as the user
/// ran it (the real executable, in a folder of their files).
@Suite struct FirstUseTests {
    /// `imgs/` with three small pictures.
    static func folder() throws -> TemporaryFolder {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("imgs"), withIntermediateDirectories: true)
        for (index, name) in ["a.png", "b.png", "c.png"].enumerated() {
            try TestImages.write(TestImages.photoLike(width: 40 + 10 * index, height: 30, seed: UInt64(index)),
                                 width: 40 + 10 * index, height: 30, to: folder.file("imgs/\(name)"))
        }
        return folder
    }

    static func run(_ arguments: [String], in folder: TemporaryFolder, input: [UInt8]? = nil) throws -> ProcessResult {
        guard let input else { return try MasonryExecutable.run(arguments, in: folder.path) }
        let process = Process()
        process.executableURL = MasonryExecutable.url
        process.arguments = arguments
        process.currentDirectoryURL = folder.url
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        (process.standardInput, process.standardOutput, process.standardError) = (stdin, stdout, stderr)
        try process.run()
        stdin.fileHandleForWriting.write(Data(input))
        try stdin.fileHandleForWriting.close()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ProcessResult(status: process.terminationStatus, standardOutput: String(decoding: output, as: UTF8.self),
                             standardError: String(decoding: errors, as: UTF8.self))
    }

    /// Item 3: `--title --sections` and `--caption -v` are usage errors, `--title=--sections` is a title.
    @Test func anOptionMissingItsValueDoesNotEatTheNextOption() throws {
        let folder = try Self.folder()
        for (arguments, option, next) in [(["--title", "--sections"], "--title", "--sections"), (["--caption", "-v"], "--caption", "-v")] {
            let result = try Self.run(["imgs"] + arguments, in: folder)
            #expect(result.status == 64)
            #expect(result.errorLines.first == "masonry: error: '\(option)' needs a value (to give '\(next)' as its value, write "
                    + "'\(option)=\(next)')", "\(result.errorLines)")
            #expect(!FileManager.default.fileExists(atPath: folder.file("sheet.png")))
        }
        let titled = try Self.run(["imgs", "--title=--sections", "--manifest", "m.json"], in: folder)
        #expect(titled.status == 0, "\(titled.standardError)")
        #expect(try String(contentsOfFile: folder.file("m.json"), encoding: .utf8).contains("\"version\": 2"))
    }

    /// Item 8: the 148 CSS colour names, as montage users type them.
    @Test func cssColourNamesWork() throws {
        let folder = try Self.folder()
        let result = try Self.run(["imgs", "--background", "red", "--frame", "2:blue", "--tile-background", "RebeccaPurple",
                                   "--manifest", "m.json"], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try String(contentsOfFile: folder.file("m.json"), encoding: .utf8).contains("\"background\": \"#ff0000ff\""))
        let sheet = try PNGDecoder.decodeRGBA(contentsOfFile: folder.file("sheet.png"))
        #expect(Array(sheet.pixels[0..<4]) == [255, 0, 0, 255], "the corner is the red background")
        let bad = try Self.run(["imgs", "--background", "reed"], in: folder)
        #expect(bad.status == 64 && bad.standardError.contains("a CSS colour name"), "\(bad.standardError)")
    }

    /// Item 10: montage's `-tile 4x` is `--columns 4` here.
    @Test func montagesTileGetsAHint() throws {
        let folder = try Self.folder()
        for spelling in ["--tile", "-tile"] {
            let result = try Self.run(["imgs", spelling, "4x"], in: folder)
            #expect(result.status == 64)
            #expect(result.errorLines.first == "masonry: error: unknown option '\(spelling)'; montage's -tile 4x is '--columns 4' "
                    + "here (the rows follow from the pictures)", "\(result.errorLines)")
        }
    }

    /// Item 12: `masonry help` prints help, as `git help`; `masonry help compare` compare's.
    @Test func helpAsACommand() throws {
        let folder = try Self.folder()
        let help = try Self.run(["help"], in: folder)
        #expect(help.status == 0 && help.standardOutput.hasPrefix("OVERVIEW: Lay out "), "\(help.standardError)")
        let compare = try Self.run(["help", "compare"], in: folder)
        #expect(compare.status == 0 && compare.standardOutput.contains("USAGE: masonry compare <baseline> <current>"))
    }

    /// Item 12: a missing output folder is found before any input is read, with the same status
    /// (64) and words in a render and a compare.
    @Test func aMissingOutputFolderIsTheSameMistakeEverywhere() throws {
        let folder = try Self.folder()
        try FileManager.default.copyItem(atPath: folder.file("imgs"), toPath: folder.file("cur"))
        // An unreadable picture would warn during the header pass: no warning may come first.
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0]).write(to: folder.url.appendingPathComponent("imgs/broken.png"))
        let render = try Self.run(["imgs", "-o", "nodir/x.png"], in: folder)
        let compare = try Self.run(["compare", "imgs", "cur", "-o", "nodir/x.png"], in: folder)
        for result in [render, compare] {
            #expect(result.status == 64)
            #expect(result.errorLines == ["masonry: error: cannot write nodir/x.png: folder nodir does not exist"], "\(result.errorLines)")
        }
    }

    /// Item 11: a folder of files Masonry does not read says what they are; a file under 8 bytes
    /// is too short for any format.
    @Test func noImagesFoundSaysWhy() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("txtonly"), withIntermediateDirectories: true)
        for name in ["a.bmp", "b.bmp", "c.bmp", "a.psd", "b.psd", "c.PSD", "notes.txt"] {
            try Data("x".utf8).write(to: folder.url.appendingPathComponent("txtonly/\(name)"))
        }
        let result = try Self.run(["txtonly"], in: folder)
        #expect(result.status == 1)
        #expect(result.errorLines.last?.hasPrefix("masonry: error: no images found in txtonly: 7 files of formats Masonry does not "
                                                  + "read by name: BMP (3), PSD (3), TXT (1); it reads *.png, ") == true,
                "\(result.errorLines)")
        try Data("abc".utf8).write(to: folder.url.appendingPathComponent("short.png"))
        let short = try Self.run(["short.png"], in: folder)
        #expect(short.errorLines.first == "masonry: skipped short.png: too short for any image format (3 bytes)", "\(short.errorLines)")
    }

    /// Item 10: `@list.txt`, `-` for names on stdin (NUL-separated with `-0`), `--include` and
    /// `--exclude`, `-o -` and `.avifs` in folders.
    @Test func fileListsGlobsAndStandardOutput() throws {
        let folder = try Self.folder()
        try Data("imgs/c.png\nimgs/a.png\n".utf8).write(to: folder.url.appendingPathComponent("list.txt"))
        let listed = try Self.run(["@list.txt", "--manifest", "m.json"], in: folder)
        #expect(listed.status == 0, "\(listed.standardError)")
        let manifest = try String(contentsOfFile: folder.file("m.json"), encoding: .utf8)
        #expect(manifest.contains("imgs/a.png") && manifest.contains("imgs/c.png") && !manifest.contains("imgs/b.png"))

        let piped = try Self.run(["-", "-0", "-o", "p.png", "--manifest", "p.json"], in: folder, input: Array("imgs/b.png\u{0}imgs/a.png\u{0}".utf8))
        #expect(piped.status == 0, "\(piped.standardError)")
        let pipedManifest = try String(contentsOfFile: folder.file("p.json"), encoding: .utf8)
        #expect(pipedManifest.contains("imgs/a.png") && pipedManifest.contains("imgs/b.png") && !pipedManifest.contains("imgs/c.png"))

        let globbed = try Self.run(["imgs", "--include", "*.png", "--exclude", "b*", "-o", "g.png", "--manifest", "g.json"], in: folder)
        #expect(globbed.status == 0, "\(globbed.standardError)")
        let globbedManifest = try String(contentsOfFile: folder.file("g.json"), encoding: .utf8)
        #expect(globbedManifest.contains("imgs/a.png") && !globbedManifest.contains("imgs/b.png"))

        let file = try Self.run(["imgs", "-o", "file.png"], in: folder)
        #expect(file.status == 0)
        let process = Process()
        process.executableURL = MasonryExecutable.url
        process.arguments = ["imgs", "-o", "-", "-q"]
        process.currentDirectoryURL = folder.url
        let stdout = Pipe()
        process.standardOutput = stdout
        try process.run()
        let bytes = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(bytes == (try Data(contentsOf: folder.url.appendingPathComponent("file.png"))), "-o - writes the sheet's bytes")
        #expect(!FileManager.default.fileExists(atPath: folder.file("-")))
        let paged = try Self.run(["imgs", "-o", "-", "--per-page", "1"], in: folder)
        #expect(paged.status == 64 && paged.standardError.contains("-o - writes one page"), "\(paged.standardError)")
    }

    /// Item 13: `-w 50` warns that its columns are too narrow to show anything.
    @Test func narrowColumnsWarn() throws {
        let folder = try Self.folder()
        let result = try Self.run(["imgs", "-w", "50"], in: folder)
        #expect(result.status == 0)
        #expect(result.errorLines.contains { $0.hasPrefix("masonry: warning: columns of 2 px") }, "\(result.errorLines)")
    }

    /// Item 9: sections of an absolute folder argument are named from that folder down.
    @Test func sectionHeadersAreRelativeToTheArgument() throws {
        let folder = try Self.folder()
        try FileManager.default.createDirectory(atPath: folder.file("imgs/deep/er"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: folder.file("imgs/a.png"), toPath: folder.file("imgs/deep/er/a.png"))
        let result = try Self.run([folder.file("imgs"), "-r", "--sections", "--manifest", "m.json"], in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let manifest = try String(contentsOfFile: folder.file("m.json"), encoding: .utf8)
        #expect(manifest.contains("\"text\": \"imgs \u{2014} 3 images\"") && manifest.contains("\"text\": \"imgs/deep/er \u{2014} 1 image\""),
                "\(manifest)")
        #expect(!manifest.contains("\"text\": \"\(folder.path)"))
    }
}

/// Items 4, 7 and 13, which need a compare suite or a picture that breaks after planning.
@Suite struct FirstUseOutputTests {
    /// Item 4: `--dry-run` predicts exactly what the update then does, file by file and in its counts.
    @Test func dryRunPredictsTheUpdate() throws {
        let folder = TemporaryFolder()
        try CompareEndToEndTests.makeSuite(in: folder)
        let dry = try MasonryExecutable.run(["compare", "base", "cur", "-o", "dry.png", "--update-baseline=all"] + ["--dry-run"],
                                            in: folder.path)
        let real = try MasonryExecutable.run(["compare", "base", "cur", "-o", "real.png", "--update-baseline=all"], in: folder.path)
        func baselineLines(_ result: ProcessResult) -> [String] { result.errorLines.filter { $0.hasPrefix("masonry: baseline: ") } }
        let predicted = baselineLines(dry).map {
            $0.replacingOccurrences(of: "would write", with: "wrote").replacingOccurrences(of: "would delete", with: "deleted")
                .replacingOccurrences(of: "would change", with: "changed").replacingOccurrences(of: "would fail", with: "failed")
        }
        #expect(!predicted.isEmpty)
        #expect(predicted == baselineLines(real), "dry run: \(baselineLines(dry))\nrun: \(baselineLines(real))")
        let after = try MasonryExecutable.run(["compare", "base", "cur", "-o", "after.png"], in: folder.path)
        #expect(after.status == real.status, "the suite after the update fails as predicted: \(after.errorLines)")
    }

    /// Item 13: nothing changed → a small sheet that says so, not an empty 1800×16 one.
    @Test func aCompareWithNothingChangedSaysSo() throws {
        let folder = try FirstUseTests.folder()
        try FileManager.default.copyItem(atPath: folder.file("imgs"), toPath: folder.file("cur"))
        let result = try MasonryExecutable.run(["compare", "imgs", "cur", "-o", "review.png"], in: folder.path)
        #expect(result.status == 0, "\(result.standardError)")
        let sheet = try PNGDecoder.decodeRGBA(contentsOfFile: folder.file("review.png"))
        #expect(sheet.width == 1800 && sheet.height > 16 && sheet.height < 100, "\(sheet.width)×\(sheet.height)")
        let dark = stride(from: 0, to: sheet.pixels.count, by: 4).filter { sheet.pixels[$0] < 0x80 }.count
        #expect(dark > 100, "the sheet shows text (\(dark) dark pixels)")
    }

    /// Item 7: a picture whose data breaks after its header is drawn as a visible error tile.
    @Test func aPictureThatFailsAfterPlanningIsAnErrorTile() throws {
        let folder = try FirstUseTests.folder()
        let good = try [UInt8](Data(contentsOf: folder.url.appendingPathComponent("imgs/a.png")))
        try Data(good.prefix(good.count * 2 / 3)).write(to: folder.url.appendingPathComponent("imgs/broken.png"))
        let result = try MasonryExecutable.run(["imgs", "-c", "1", "-w", "200", "--background", "white"], in: folder.path)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.errorLines.contains { $0.hasPrefix("masonry: skipped imgs/broken.png: ") }, "\(result.errorLines)")
        let sheet = try PNGDecoder.decodeRGBA(contentsOfFile: folder.file("sheet.png"))
        let pixels = stride(from: 0, to: sheet.pixels.count, by: 4).map { Array(sheet.pixels[$0..<($0 + 3)]) }
        #expect(pixels.filter { $0 == [0xFB, 0xE9, 0xE9] }.count > 1000, "the error tile's fill is drawn")
        #expect(pixels.contains([0xD6, 0x27, 0x28]), "the error tile's red frame is drawn")
    }
}
