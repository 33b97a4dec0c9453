import Foundation
import Testing
import TestSupport

/// Issue #36, items 1 and 2: a file Masonry did not write is never replaced, whatever output
/// path lands on it; the run stops with exit 64 naming the file and the way out, and the user's
/// bytes stay as they were. Masonry's own earlier outputs (marked: SPEC §5) are replaced, so
/// re-running into the same folder keeps working. Every case runs the command as a user does.
@Suite struct UserFileSafetyTests {
    /// A folder `imgs` of three pictures (a user's photos), with their bytes by name.
    static func photos(in folder: TemporaryFolder, _ name: String = "imgs") throws -> [String: [UInt8]] {
        try FileManager.default.createDirectory(atPath: folder.file(name), withIntermediateDirectories: true)
        var bytes: [String: [UInt8]] = [:]
        for (index, file) in ["01-astronaut.png", "02-strawberry.png", "03-fern.png"].enumerated() {
            let path = folder.file("\(name)/\(file)")
            try TestImages.write(TestImages.photoLike(width: 64 + 8 * index, height: 48, seed: UInt64(index)),
                                 width: 64 + 8 * index, height: 48, to: path)
            bytes["\(name)/\(file)"] = try read(path)
        }
        return bytes
    }

    static func read(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// Refused with 64 and one line naming `file` and `--overwrite`; every file of `kept` unchanged.
    static func expectRefused(_ result: ProcessResult, naming file: String, kept: [String: [UInt8]], in folder: TemporaryFolder) throws {
        #expect(result.status == 64, "\(result.standardError)")
        #expect(result.errorLines.count == 1, "\(result.errorLines)")
        #expect(result.errorLines.first?.hasPrefix("masonry: error: ") == true)
        #expect(result.standardError.contains(file) && result.standardError.contains("--overwrite"), "\(result.standardError)")
        for (name, bytes) in kept { #expect(try read(folder.file(name)) == bytes, "\(name) was changed") }
    }

    /// `masonry imgs -o imgs/01-astronaut.png`: the photo is the output path.
    @Test func outputNamesAPictureOfTheInputFolder() throws {
        let folder = TemporaryFolder()
        let kept = try Self.photos(in: folder)
        let result = try MasonryExecutable.run(["imgs", "-o", "imgs/01-astronaut.png"], in: folder.path)
        try Self.expectRefused(result, naming: "imgs/01-astronaut.png", kept: kept, in: folder)
        // The way out the message names: --overwrite replaces it.
        let forced = try MasonryExecutable.run(["imgs", "-o", "imgs/01-astronaut.png", "--overwrite"], in: folder.path)
        #expect(forced.status == 0, "\(forced.standardError)")
        #expect(try Self.read(folder.file("imgs/01-astronaut.png")) != kept["imgs/01-astronaut.png"])
    }

    /// `cd photos && masonry .` with the user's own `sheet.png` there.
    @Test func defaultOutputNameIsAUsersPicture() throws {
        let folder = TemporaryFolder()
        var kept = try Self.photos(in: folder, "photos")
        try Data(kept["photos/02-strawberry.png"]!).write(to: URL(fileURLWithPath: folder.file("photos/sheet.png")))
        kept["photos/sheet.png"] = kept["photos/02-strawberry.png"]
        let result = try MasonryExecutable.run(["."], in: folder.file("photos"))
        try Self.expectRefused(result, naming: "sheet.png", kept: kept, in: folder)
    }

    /// `-o hol/trip.png --per-page 2` with the user's trip-001.png … trip-003.png in `hol`: no page
    /// replaces them, and (as pictures, not earlier pages) they are never left out of a sheet.
    @Test func pageNamesAreUsersPictures() throws {
        let folder = TemporaryFolder()
        var kept = try Self.photos(in: folder)
        try FileManager.default.createDirectory(atPath: folder.file("hol"), withIntermediateDirectories: true)
        for (page, source) in ["trip-001.png", "trip-002.png", "trip-003.png"].enumerated() {
            let bytes = kept["imgs/0\(page + 1)-" + ["astronaut.png", "strawberry.png", "fern.png"][page]]!
            try Data(bytes).write(to: URL(fileURLWithPath: folder.file("hol/\(source)")))
            kept["hol/\(source)"] = bytes
        }
        let result = try MasonryExecutable.run(["imgs", "-o", "hol/trip.png", "--per-page", "2"], in: folder.path)
        try Self.expectRefused(result, naming: "hol/trip-001.png", kept: kept, in: folder)
        // A sheet of the holiday folder itself reads all three (they are pictures, not earlier pages).
        let own = try MasonryExecutable.run(["hol", "-o", "hol/trip.png", "--manifest", "hol.json"], in: folder.path)
        #expect(own.status == 0, "\(own.standardError)")
        #expect(own.errorLines.last?.contains("3 images") == true, "\(own.errorLines)")
    }

    /// Re-running into the same folder replaces Masonry's own sheet, pages, manifest and HTML page.
    @Test func rerunIntoTheSameFolderReplacesMasonrysOwnOutputs() throws {
        let folder = TemporaryFolder()
        let kept = try Self.photos(in: folder)
        for arguments in [["imgs", "-o", "imgs/sheet.png", "--manifest", "imgs/sheet.json", "--html", "imgs/sheet.html"],
                          ["imgs", "-o", "imgs/pages.png", "--per-page", "1", "--exclude", "sheet.png"]] {
            let first = try MasonryExecutable.run(arguments + ["-w", "300"], in: folder.path)
            #expect(first.status == 0, "\(first.standardError)")
            let second = try MasonryExecutable.run(arguments + ["-w", "400"], in: folder.path)
            #expect(second.status == 0, "\(second.standardError)")
            // The earlier outputs were neither read as pictures nor refused.
            #expect(second.errorLines.last?.contains(": 3 images") == true, "\(second.errorLines)")
        }
        #expect(try String(contentsOfFile: folder.file("imgs/sheet.json"), encoding: .utf8).contains("\"width\": 400"))
        for (name, bytes) in kept { #expect(try Self.read(folder.file(name)) == bytes) }
    }

    /// An earlier sheet in the input folder is no input under any name: a hard link to it named like
    /// a picture is left out too (the scan does not `stat` a folder's regular files; the header pass
    /// knows each file's identity from the descriptor it reads).
    @Test func aHardLinkOfTheEarlierSheetIsNoInput() throws {
        let folder = TemporaryFolder()
        let kept = try Self.photos(in: folder)
        let first = try MasonryExecutable.run(["imgs", "-o", "imgs/sheet.png", "-w", "300"], in: folder.path)
        #expect(first.status == 0, "\(first.standardError)")
        #expect(link(folder.file("imgs/sheet.png"), folder.file("imgs/04-copy-of-the-sheet.png")) == 0)
        let second = try MasonryExecutable.run(["imgs", "-o", "imgs/sheet.png", "-w", "400"], in: folder.path)
        #expect(second.status == 0, "\(second.standardError)")
        #expect(second.errorLines.last?.contains(": 3 images") == true, "\(second.errorLines)")
        for (name, bytes) in kept { #expect(try Self.read(folder.file(name)) == bytes) }
    }

    /// A manifest or HTML path on a user's file is refused the same way, before anything is written.
    @Test(arguments: ["--manifest", "--html"])
    func otherOutputsNeverReplaceAUsersFile(_ option: String) throws {
        let folder = TemporaryFolder()
        _ = try Self.photos(in: folder)
        let notes = Array("my notes\n".utf8)
        try Data(notes).write(to: URL(fileURLWithPath: folder.file("notes.txt")))
        let result = try MasonryExecutable.run(["imgs", option, "notes.txt"], in: folder.path)
        try Self.expectRefused(result, naming: "\(option) notes.txt", kept: ["notes.txt": notes], in: folder)
        #expect(!FileManager.default.fileExists(atPath: folder.file("sheet.png")), "a sheet was written although the run was refused")
    }

    /// `masonry compare base cur -o base/review.png`: an output inside a compared folder is
    /// refused (it would be paired on the next run); so is any report there, and a user's file
    /// outside them.
    @Test func compareNeverWritesIntoTheFoldersItCompares() throws {
        let folder = TemporaryFolder()
        let base = try Self.photos(in: folder, "base"), current = try Self.photos(in: folder, "cur")
        let kept = base.merging(current) { a, _ in a }
        for arguments in [["-o", "base/review.png"], ["-o", "cur/sub/../review.png"], ["--report", "cur/report.json"],
                          ["--junit", "base/junit.xml"], ["--markdown", "cur/summary.md"], ["--html", "base/review.html"]] {
            try FileManager.default.createDirectory(atPath: folder.file("cur/sub"), withIntermediateDirectories: true)
            let result = try MasonryExecutable.run(["compare", "base", "cur"] + arguments, in: folder.path)
            #expect(result.status == 64, "\(arguments): \(result.standardError)")
            #expect(result.errorLines.count == 1 && result.standardError.contains("never writes to"), "\(result.errorLines)")
            for (name, bytes) in kept { #expect(try Self.read(folder.file(name)) == bytes) }
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.file("base")).sorted()
                    == ["01-astronaut.png", "02-strawberry.png", "03-fern.png"])
        }
        let notes = Array("review notes\n".utf8)
        try Data(notes).write(to: URL(fileURLWithPath: folder.file("review.md")))
        let result = try MasonryExecutable.run(["compare", "base", "cur", "--markdown", "review.md"], in: folder.path)
        try Self.expectRefused(result, naming: "review.md", kept: ["review.md": notes], in: folder)
        // Outside both folders, re-running replaces compare's own files.
        let outputs = ["-o", "review.png", "--report", "r.json", "--junit", "j.xml", "--markdown", "m.md", "--html", "r.html"]
        for _ in 0..<2 {
            let run = try MasonryExecutable.run(["compare", "base", "cur"] + outputs, in: folder.path)
            #expect(run.status == 0, "\(run.standardError)")
        }
    }
}
