import Foundation
import Testing
import TestSupport

/// Plan files (SPEC §15) through the built command: plan once, paint each page in its own
/// process from the plan, gather with `masonry index`, and compare with one-machine runs.
@Suite struct PlanFileEndToEndTests {
    /// `count` seeded pictures in `folder/in/<sub>/imgN.png` (three sub-folders).
    static func makeInputs(_ folder: TemporaryFolder, count: Int = 30) throws {
        var random = SplitMix64(seed: 32)
        for number in 1...count {
            let sub = "in/s\(number % 3)"
            try FileManager.default.createDirectory(atPath: folder.file(sub), withIntermediateDirectories: true)
            let width = random.int(16...120), height = random.int(16...120)
            try TestImages.write(TestImages.photoLike(width: width, height: height, seed: UInt64(number),
                                                      alpha: number % 4 == 0 ? 150 : nil),
                                 width: width, height: height, to: folder.file("\(sub)/img\(number).png"))
        }
        for side in ["a", "b"] {
            try FileManager.default.createDirectory(atPath: folder.file(side), withIntermediateDirectories: true)
        }
    }

    private func bytes(_ path: String) -> [UInt8]? {
        (try? Data(contentsOf: URL(fileURLWithPath: path))).map { [UInt8]($0) }
    }

    private func run(_ arguments: [String], in folder: String) throws -> ProcessResult {
        try MasonryExecutable.run(arguments, in: folder)
    }

    /// The files of `folder` (names), sorted.
    private func names(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    static let styles: [[String]] = [
        ["-w", "320", "-c", "3", "--page-height", "400", "--background", "#203040"],
        ["-w", "300", "-c", "2", "--per-page", "7", "--caption", "{name} {width}x{height} {bytes}", "--sections",
         "--title", "Plan", "--frame", "2:#ff0000", "--sort", "size", "--reverse"],
    ]

    /// A one-page plan (a version-1 manifest: only the drawn tiles are listed) gathered by
    /// `masonry index` lists every tile, as the one-machine run does; a video's duration and
    /// frame count travel in the plan (issue #32 with #30's videos).
    @Test func aOnePagePlanWithAVideoIndexesAsAOneMachineRun() throws {
        let folder = TemporaryFolder()
        try Self.makeInputs(folder, count: 3)
        let clip = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/Video/clip.mov").path
        try FileManager.default.copyItem(atPath: clip, toPath: folder.file("in/clip.mov"))
        let common = ["-r", "../in", "-o", "s.png", "--manifest", "s.json"]
        let full = try run(common, in: folder.file("a"))
        try #require(full.status == 0, "\(full.standardError)")
        let plan = try run(common + ["--plan-only", "--plan", "s.mplan"], in: folder.file("b"))
        try #require(plan.status == 0, "\(plan.standardError)")
        try FileManager.default.removeItem(atPath: folder.file("b/s.json"))
        let index = try run(["index", "--from-plan", "s.mplan"], in: folder.file("b"))
        try #require(index.status == 0, "\(index.standardError)")
        let expected = try #require(bytes(folder.file("a/s.json")))
        let manifest = String(decoding: expected, as: UTF8.self)
        #expect(manifest.contains("\"version\": 1,") && manifest.contains("\"duration\": 3") && manifest.contains("\"path\": \"../in/s1/img1.png\""),
                "the one-machine manifest: \(manifest)")
        #expect(bytes(folder.file("b/s.json")) == expected, "the index differs: \(String(decoding: bytes(folder.file("b/s.json")) ?? [], as: UTF8.self))")
    }

    @Test(arguments: 0..<2)
    func pagesPaintedFromAPlanAndTheIndexEqualAOneMachineRun(style: Int) throws {
        let folder = TemporaryFolder()
        try Self.makeInputs(folder)
        let common = ["-r", "../in", "-o", "s.png", "--manifest", "s.json", "--html", "s.html"] + Self.styles[style]
        let full = try run(common + ["-j", "2"], in: folder.file("a"))
        #expect(full.status == 0, "\(full.standardError)")

        let plan = try run(common + ["--plan-only", "--plan", "s.mplan"], in: folder.file("b"))
        #expect(plan.status == 0, "\(plan.standardError)")
        #expect(plan.standardError.contains("planned") && plan.standardError.contains("in s.mplan"), "\(plan.standardError)")
        for file in ["s.json", "s.html"] { try FileManager.default.removeItem(atPath: folder.file("b/\(file)")) }
        let pageFiles = names(folder.file("a")).filter { $0.hasSuffix(".png") }
        #expect(pageFiles.count >= 3, "expected several pages: \(pageFiles)")

        // Every page in its own process, all at once, each with another --jobs; the first style's
        // jobs share one --cache, written concurrently (SPEC §10), as a cluster's would.
        let cache = style == 0 ? ["--cache", folder.file("cache")] : []
        let started = try (1...pageFiles.count).map { number in
            try MasonryExecutable.start(["--from-plan", "s.mplan", "--page", "\(number)", "-j", "\(1 + number % 3)", "-q"] + cache,
                                        in: folder.file("b"))
        }
        for (process, output, error) in started {
            _ = output.fileHandleForReading.readDataToEndOfFile()
            let message = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(message)")
        }
        #expect(!names(folder.file("b")).contains("s.json"), "a page job must not write the manifest")
        let index = try run(["index", "--from-plan", "s.mplan"], in: folder.file("b"))
        #expect(index.status == 0, "\(index.standardError)")
        #expect(index.standardError.contains("wrote s.json and s.html for \(pageFiles.count) pages"), "\(index.standardError)")

        #expect(names(folder.file("b")) == (names(folder.file("a")) + ["s.mplan"]).sorted())
        for name in names(folder.file("a")) {
            let expected = try #require(bytes(folder.file("a/\(name)")))
            #expect(bytes(folder.file("b/\(name)")) == expected, "\(name) differs from the one-machine run's")
        }
    }

    @Test func aPageJobReadsOnlyItsOwnPagesInputs() throws {
        let folder = TemporaryFolder()
        try Self.makeInputs(folder)
        let plan = try run(["-r", "../in", "-o", "s.png", "--per-page", "5", "--plan-only", "--plan", "s.mplan"], in: folder.file("b"))
        #expect(plan.status == 0, "\(plan.standardError)")
        // page 1 still paints, as it reads neither.
        let manifest = try run(["index", "--from-plan", "s.mplan", "--manifest", "m.json"], in: folder.file("b"))
        #expect(manifest.status == 0, "\(manifest.standardError)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.file("b/m.json"))))
                                as? [String: Any])
        let items = try #require(json["items"] as? [[String: Any]])
        let offPage = items.filter { $0["page"] as? Int != 1 }.compactMap { $0["path"] as? String }
        #expect(offPage.count == items.count - 5)
        for path in offPage { try FileManager.default.removeItem(atPath: folder.file("b/\(path)")) }
        let page = try run(["--from-plan", "s.mplan", "--page", "1"], in: folder.file("b"))
        #expect(page.status == 0, "\(page.standardError)")
        #expect(bytes(folder.file("b/s-001.png")) != nil)
        // Page 2's inputs are gone: an error naming the first of them, nothing written.
        let second = try run(["--from-plan", "s.mplan", "--page", "2"], in: folder.file("b"))
        #expect(second.status == 3, "\(second.standardError)")
        #expect(second.errorLines.count == 1 && second.standardError.contains("it no longer exists"), "\(second.standardError)")
        #expect(bytes(folder.file("b/s-002.png")) == nil)
    }

    /// A plan of 30 images, 5 a page, in `folder/b/s.mplan`.
    private func planned(_ folder: TemporaryFolder) throws -> [UInt8] {
        try Self.makeInputs(folder)
        let plan = try run(["-r", "../in", "-o", "s.png", "--per-page", "5", "--plan-only", "--plan", "s.mplan"], in: folder.file("b"))
        #expect(plan.status == 0, "\(plan.standardError)")
        return try #require(bytes(folder.file("b/s.mplan")))
    }

    /// Runs page `page` from `plan` written as `name`; expects status `status`, one error line
    /// containing `reason`, and no page file written.
    private func expectRefused(_ plan: [UInt8], name: String = "bad.mplan", page: Int = 1, status: Int32, reason: String,
                               extra: [String] = [], in folder: TemporaryFolder, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try Data(plan).write(to: URL(fileURLWithPath: folder.file("b/\(name)")))
        let before = names(folder.file("b"))
        let result = try run(["--from-plan", name, "--page", "\(page)"] + extra, in: folder.file("b"))
        #expect(result.status == status, "\(result.standardError)", sourceLocation: sourceLocation)
        let lines = result.errorLines.filter { !$0.hasPrefix("Usage:") && !$0.hasPrefix("  See ") }
        #expect(lines.count == 1 && lines[0].hasPrefix("masonry: error: ") && lines[0].contains(reason),
                "\(result.standardError)", sourceLocation: sourceLocation)
        #expect(names(folder.file("b")) == before, "nothing may be written", sourceLocation: sourceLocation)
    }

    /// `plan` with the trailer's length and CRC-32 made right again, so a change inside passes the checksum.
    private func resealed(_ plan: [UInt8]) -> [UInt8] {
        var bytes = Array(plan.dropLast(16))
        let length = UInt64(bytes.count + 16)
        bytes += withUnsafeBytes(of: length.littleEndian, Array.init)
        let crc = CRC32.checksum(bytes)
        return bytes + withUnsafeBytes(of: crc.littleEndian, Array.init) + Array("END\n".utf8)
    }

    @Test func damagedForeignAndOtherVersionPlansAreOneLineErrors() throws {
        let folder = TemporaryFolder()
        let plan = try planned(folder)
        try expectRefused(Array(plan.prefix(plan.count / 2)), status: 1, reason: "bad.mplan: truncated", in: folder)
        try expectRefused(Array(plan.dropLast(1)), status: 1, reason: "truncated", in: folder)
        var flipped = plan
        flipped[plan.count / 2] ^= 0x40
        try expectRefused(flipped, status: 1, reason: "damaged (checksum mismatch)", in: folder)
        try expectRefused(Array("{\"version\": 2}\n".utf8), status: 1, reason: "not a masonry plan file", in: folder)
        try expectRefused([], status: 1, reason: "not a masonry plan file", in: folder)
        var otherFormat = plan
        otherFormat[16] = 9
        try expectRefused(resealed(otherFormat), status: 1, reason: "plan format version 9; this masonry reads version 1", in: folder)
        // The INFO block holds the masonry version: "0.1.0" made "0.1.9".
        let info = try #require(plan.firstRange(of: Array("0.1.0".utf8)))
        var otherVersion = plan
        otherVersion[info.upperBound - 1] = UInt8(ascii: "9")
        try expectRefused(resealed(otherVersion), status: 1, reason: "written by masonry 0.1.9; this is masonry 0.1.0", in: folder)
        // Inconsistent inside, with a good checksum: an image whose path leaves the path block.
        let records = try #require(plan.firstRange(of: Array("IMGS".utf8))).upperBound + 12
        var outside = plan
        outside[records + 7] = 0x7F
        try expectRefused(resealed(outside), status: 1, reason: "damaged (image 0: path outside the path block)", in: folder)
        try expectRefused(plan, name: "s.mplan", page: 7, status: 64, reason: "--page 7 is out of range: the plan has 6 pages",
                          in: folder)
        try expectRefused(plan, name: "s.mplan", page: 1, status: 64, reason: "'--columns' cannot be used with '--from-plan'",
                          extra: ["-c", "3"], in: folder)
        let folderAsPlan = try run(["--from-plan", "../in", "--page", "1"], in: folder.file("b"))
        #expect(folderAsPlan.status == 1 && folderAsPlan.standardError.contains("not a regular file"), "\(folderAsPlan.standardError)")
    }

    /// The first input of page 1 of the plan, as the manifest names it.
    private func firstInput(_ folder: TemporaryFolder) throws -> String {
        let index = try run(["index", "--from-plan", "s.mplan", "--manifest", "first.json"], in: folder.file("b"))
        #expect(index.status == 0, "\(index.standardError)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.file("b/first.json"))))
                                as? [String: Any])
        try FileManager.default.removeItem(atPath: folder.file("b/first.json"))
        return try #require((json["items"] as? [[String: Any]])?.first?["path"] as? String)
    }

    @Test func anInputChangedRemovedOrReplacedByAFIFOAfterPlanningStopsItsPage() throws {
        let folder = TemporaryFolder()
        let plan = try planned(folder)
        let input = try firstInput(folder)
        let path = folder.file("b/\(input)")
        let original = try #require(bytes(path))

        // Same bytes, another modification time.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_000_000)], ofItemAtPath: path)
        try expectRefused(plan, name: "s.mplan", status: 3, reason: "\(input) changed since it was planned (modification time)",
                          in: folder)
        // --replan-changed: drawn as it is now, with a warning, and the page equals the planned one.
        let replanned = try run(["--from-plan", "s.mplan", "--page", "1", "--replan-changed"], in: folder.file("b"))
        #expect(replanned.status == 0 && replanned.standardError.contains("warning: \(input): changed since it was planned"),
                "\(replanned.standardError)")
        try FileManager.default.removeItem(atPath: folder.file("b/s-001.png"))

        // Another picture of another size under the same name.
        try TestImages.write(TestImages.photoLike(width: 7, height: 9, seed: 1), width: 7, height: 9, to: path)
        try expectRefused(plan, name: "s.mplan", status: 3, reason: "\(input) changed since it was planned (size", in: folder)
        let resized = try run(["--from-plan", "s.mplan", "--page", "1", "--replan-changed"], in: folder.file("b"))
        #expect(resized.status == 0 && resized.standardError.contains("skipped \(input)"), "\(resized.standardError)")
        try FileManager.default.removeItem(atPath: folder.file("b/s-001.png"))

        try FileManager.default.removeItem(atPath: path)
        try expectRefused(plan, name: "s.mplan", status: 3, reason: "\(input) changed since it was planned (it no longer exists)",
                          in: folder)
        #expect(mkfifo(path, 0o644) == 0)
        try expectRefused(plan, name: "s.mplan", status: 3,
                          reason: "\(input) changed since it was planned (it is no longer a regular file)", in: folder)
        try FileManager.default.removeItem(atPath: path)
        try Data(original).write(to: URL(fileURLWithPath: path))
        // Same bytes again, but a new file (another inode, another time): still a change.
        try expectRefused(plan, name: "s.mplan", status: 3, reason: "\(input) changed since it was planned", in: folder)
    }

    @Test func planOptionsAreCheckedBeforeAnythingIsRead() throws {
        let folder = TemporaryFolder()
        try Self.makeInputs(folder)
        let noPlanOnly = try run(["../in", "--plan", "x.mplan"], in: folder.file("b"))
        #expect(noPlanOnly.status == 64 && noPlanOnly.standardError.contains("'--plan <file>' is written by '--plan-only' runs only"))
        let replan = try run(["../in", "--replan-changed"], in: folder.file("b"))
        #expect(replan.status == 64 && replan.standardError.contains("needs '--from-plan <file>'"))
        let inputs = try run(["--from-plan", "x.mplan", "../in"], in: folder.file("b"))
        #expect(inputs.status == 64 && inputs.standardError.contains("takes no inputs"), "\(inputs.standardError)")
        let missing = try run(["index", "--from-plan", "nowhere.mplan"], in: folder.file("b"))
        #expect(missing.status == 1 && missing.errorLines == ["masonry: error: cannot use the plan nowhere.mplan: No such file or directory"],
                "\(missing.standardError)")
        let plan = try run(["-r", "../in", "-o", "s.png", "--plan-only", "--plan", "s.mplan"], in: folder.file("b"))
        #expect(plan.status == 0)
        let nothing = try run(["index", "--from-plan", "s.mplan"], in: folder.file("b"))
        #expect(nothing.status == 64 && nothing.standardError.contains("the plan names no '--manifest' or '--html'"))
    }
}

/// CRC-32 (ISO-HDLC, zlib's), bit by bit: small enough to trust as the tests' own reference.
enum CRC32 {
    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
