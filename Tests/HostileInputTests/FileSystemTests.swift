// End-to-end: hostile folder entries (not regular files, links that go
// nowhere, unreadable files) and hostile names.

import Foundation
import Testing
@testable import MasonrySheet
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

@Suite(.serialized) struct FileSystemTests {
    /// An entry made by `make(folder, fullPath)` must be skipped with `reason`.
    struct Entry: Sendable, CustomTestStringConvertible {
        let name: String
        let reason: String
        let make: @Sendable (String) -> Bool   // false: could not be made here
        var testDescription: String { name }
    }

    static let entries: [Entry] = [
        Entry(name: "x.png", reason: "is a folder, not a file") { mkdir($0, 0o755) == 0 },
        Entry(name: "fifo.png", reason: "is a FIFO, not a regular file") { mkfifo($0, 0o644) == 0 },
        Entry(name: "zero.png", reason: "is a device, not a regular file") { symlink("/dev/zero", $0) == 0 },
        Entry(name: "loop.png", reason: "symbolic link loop") { path in
            symlink(path + ".other.png", path) == 0 && symlink(path, path + ".other.png") == 0
        },
        Entry(name: "dangling.png", reason: "broken symbolic link") { symlink("/nonexistent/masonry/nothing.png", $0) == 0 },
    ]

    @Test(arguments: entries)
    func specialEntry(_ entry: Entry) throws {
        let folder = ScratchFolder("fs")
        let input = folder.mkdir("in")
        folder.write("in/good.png", PNGBytes.solid(width: 8, height: 8, Sample.goodColor))
        let path = "\(input)/\(entry.name)"
        try #require(entry.make(path), "could not create \(entry.name)")
        let sheet = folder.sub("sheet.png")
        let result = Masonry.run([input, "-o", sheet, "--manifest", folder.sub("m.json")])
        note(entry.name, result)
        SheetCheck.basics(result, label: entry.name)
        let lines = result.stderrLines.filter { $0.contains(path + ":") || $0.contains(path + ".other.png:") }
        #expect(!lines.isEmpty && lines.allSatisfy { $0.hasPrefix("masonry: skipped ") && $0.hasSuffix(": " + entry.reason) },
                "\(result.stderr)")
        let (drawn, _, _) = try SheetCheck.manifest(folder.sub("m.json"))
        #expect(drawn == ["\(input)/good.png"])
    }

    /// Named directly on the command line, a FIFO must not block the run either.
    @Test func fifoNamedAsArgument() throws {
        let folder = ScratchFolder("fifo")
        let good = folder.write("good.png", PNGBytes.solid(width: 8, height: 8, Sample.goodColor))
        let fifo = folder.sub("pipe")
        try #require(mkfifo(fifo, 0o644) == 0)
        let result = Masonry.run([fifo, good, "-o", folder.sub("sheet.png")])
        note("FIFO as argument", result)
        SheetCheck.basics(result, label: "fifo argument")
        #expect(result.stderrLines.contains("masonry: skipped \(fifo): is a FIFO, not a regular file"), "\(result.stderr)")
    }

    @Test(.enabled(if: !runningAsRoot, "running as root: permission bits do not stop root from reading, so an unreadable file cannot be made"))
    func unreadableFile() throws {
        let folder = ScratchFolder("perm")
        let input = folder.mkdir("in")
        folder.write("in/good.png", PNGBytes.solid(width: 8, height: 8, Sample.goodColor))
        let locked = folder.write("in/locked.png", PNGBytes.solid(width: 8, height: 8, Sample.hostileColor))
        chmod(locked, 0)
        let result = Masonry.run([input, "-o", folder.sub("sheet.png")])
        note("locked.png (mode 000)", result)
        SheetCheck.basics(result, label: "unreadable")
        #expect(result.stderrLines.contains("masonry: skipped \(locked): permission denied"), "\(result.stderr)")
    }

    /// Good images with hostile names are all drawn; a bad one is reported on
    /// one line with its name escaped.
    @Test func hostileNames() throws {
        let folder = ScratchFolder("names")
        let input = folder.mkdir("in")
        let names: [[UInt8]] = [
            Array("with spaces .png".utf8),
            Array("new\nline.png".utf8),
            Array("esc\u{1B}[31mred.png".utf8),
            Array("bell\u{07}tab\t.png".utf8),
            Array("latin1-".utf8) + [0xE9, 0xFF] + Array(".png".utf8),
            Array("日本語の写真.png".utf8),
            Array("Ελληνικά-عربي-עברית.png".utf8),
            Array("emoji-🧱.PNG".utf8),
            Array("-dash.png".utf8),
            Array("back\\slash \"quote\".png".utf8),
        ]
        for (i, name) in names.enumerated() {
            writeRaw(Array(input.utf8) + [0x2F] + name, PNGBytes.solid(width: 6 + i, height: 6, Sample.goodColor))
        }
        let badName = Array("bad\nname\u{1B}".utf8) + [0xFF] + Array(".png".utf8)
        writeRaw(Array(input.utf8) + [0x2F] + badName, [])
        let result = Masonry.run([input, "-o", folder.sub("sheet.png"), "--manifest", folder.sub("m.json")])
        note("hostile names (\(names.count) good, 1 empty)", result)
        SheetCheck.basics(result, label: "names")
        #expect(result.stderrLines.count == 2, "every message must be one line: \(result.stderr)")
        #expect(result.stderrLines.first == "masonry: skipped \(input)/bad\\nname\\x1b\\xff.png: empty file", "\(result.stderr)")
        #expect(!result.stderr.contains("\u{1B}"), "raw escape byte printed")
        #expect(result.stderrLines.last?.contains("\(names.count) images, 1 skipped") == true, "\(result.stderr)")
        let (drawn, _, _) = try SheetCheck.manifest(folder.sub("m.json"))
        #expect(drawn.count == names.count)

        // The same names given one by one as arguments (raw bytes, not UTF-8).
        let paths: [[UInt8]] = names.map { (name: [UInt8]) in Array(input.utf8) + [0x2F] + name }
        let direct = Masonry.run(paths + [Array("-o".utf8), Array(folder.sub("direct.png").utf8)])
        SheetCheck.basics(direct, label: "names as arguments")
        #expect(direct.stderrLines.last?.contains("\(names.count) images, 0 skipped") == true, "\(direct.stderr)")
    }

    /// The display form used in every message: one line, nothing raw.
    @Test func displayNameEscapes() {
        #expect(RawPath(bytes: Array("a\nb".utf8)).displayName == "a\\nb")
        #expect(RawPath(bytes: [0x61, 0xFF, 0xC3]).displayName == "a\\xff\\xc3")
        #expect(RawPath(bytes: Array("x\u{1B}\u{7F}\u{85}\u{2028}".utf8)).displayName == "x\\x1b\\x7f\\x85\\u{2028}")
        #expect(RawPath("日本").displayName == "日本")
    }
}
