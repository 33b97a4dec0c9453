import Foundation
import CodecCore
import PNGCodec
import Testing
import TestSupport

/// Pages (SPEC §6, §8) through the built `masonry` command, as a user or a job runner runs it.
@Suite struct PagesEndToEndTests {
    /// 40 seeded images of assorted shapes in `folder/in`, named `img1.png` … `img40.png`.
    static func makeInputs(_ folder: TemporaryFolder, count: Int = 40) throws -> [String] {
        try FileManager.default.createDirectory(atPath: folder.file("in"), withIntermediateDirectories: true)
        var random = SplitMix64(seed: 7)
        return try (1...count).map { number in
            let width = random.int(20...160), height = random.int(20...160)
            let name = "in/img\(number).png"
            try TestImages.write(TestImages.photoLike(width: width, height: height, seed: UInt64(number),
                                                      alpha: number % 5 == 0 ? 160 : nil),
                                 width: width, height: height, to: folder.file(name))
            return name
        }
    }

    static let layout = ["-w", "300", "-c", "3", "--background", "#203040"]

    private func bytes(_ folder: TemporaryFolder, _ name: String) -> [UInt8]? {
        (try? Data(contentsOf: folder.url.appendingPathComponent(name))).map { [UInt8]($0) }
    }

    /// A file's SHA-256 in hex (short in failure messages), or nil when it does not exist.
    private func digest(_ folder: TemporaryFolder, _ name: String) -> String? {
        bytes(folder, name).map { SHA256.hex($0) }
    }

    private func manifest(_ folder: TemporaryFolder, _ name: String) throws -> [String: Any] {
        let data = try Data(contentsOf: folder.url.appendingPathComponent(name))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func everyPageIsTheWallOfItsOwnImagesAndPagesRenderAloneWithTheSameBytes() throws {
        let folder = TemporaryFolder()
        _ = try Self.makeInputs(folder)
        let full = try MasonryExecutable.run(["in", "-o", "out.png", "--manifest", "out.json", "--page-height", "500"]
                                             + Self.layout, in: folder.path)
        #expect(full.status == 0, "\(full.standardError)")
        let json = try manifest(folder, "out.json")
        #expect(json["version"] as? Int == 2)
        let pages = try #require(json["pages"] as? [[String: Any]])
        let items = try #require(json["items"] as? [[String: Any]])
        #expect(pages.count >= 4, "expected several pages, got \(pages.count)")
        #expect(pages.map { $0["file"] as? String } == (1...pages.count).map { String(format: "out-%03d.png", $0) })
        #expect(bytes(folder, "out.png") == nil, "a multi-page run must not write the -o path itself")
        #expect(full.standardError.contains("wrote \(pages.count) pages out-001.png … out-\(String(format: "%03d", pages.count)).png"))

        for (number, page) in pages.enumerated() {
            let file = try #require(page["file"] as? String)
            let png = try #require(bytes(folder, file))
            let decoded = try PNGDecoder.decodeRGBA(bytes: png)
            #expect(decoded.width == 300 && decoded.height == page["height"] as? Int && decoded.height <= 500)

            // The oracle: a one-page run over exactly this page's images gives the same pixels.
            let own = items.filter { $0["page"] as? Int == number + 1 }.compactMap { $0["path"] as? String }
            #expect(!own.isEmpty)
            let alone = try MasonryExecutable.run(own + ["-o", "alone.png", "--page-height", "0"] + Self.layout, in: folder.path)
            #expect(alone.status == 0, "\(alone.standardError)")
            #expect(digest(folder, "alone.png") == SHA256.hex(png), "page \(number + 1) differs from its images rendered alone")

            // --page K in its own process gives the same file, name and bytes.
            try FileManager.default.removeItem(atPath: folder.file(file))
            let single = try MasonryExecutable.run(["in", "-o", "out.png", "--page-height", "500", "--page", "\(number + 1)"]
                                                   + Self.layout, in: folder.path)
            #expect(single.status == 0, "\(single.standardError)")
            #expect(digest(folder, file) == SHA256.hex(png), "--page \(number + 1) differs from the full run")
        }
    }

    @Test func pagesRenderedInParallelProcessesEqualOneRun() throws {
        let folder = TemporaryFolder()
        _ = try Self.makeInputs(folder)
        let common = ["in", "--page-height", "420", "--per-page", "9"] + Self.layout
        try FileManager.default.createDirectory(atPath: folder.file("a"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder.file("b"), withIntermediateDirectories: true)
        let reference = try MasonryExecutable.run(common + ["-o", "a/s.png", "--manifest", "a/s.json", "-j", "1"], in: folder.path)
        #expect(reference.status == 0, "\(reference.standardError)")
        let plan = try MasonryExecutable.run(common + ["-o", "b/s.png", "--manifest", "b/s.json", "--plan-only"], in: folder.path)
        #expect(plan.status == 0, "\(plan.standardError)")
        let planned = String(decoding: bytes(folder, "b/s.json") ?? [], as: UTF8.self)
        #expect(planned.replacingOccurrences(of: "b/s-", with: "a/s-") == String(decoding: bytes(folder, "a/s.json") ?? [], as: UTF8.self),
                "--plan-only must write the full run's manifest")
        let pages = try #require(try manifest(folder, "b/s.json")["pages"] as? [[String: Any]])
        #expect(try manifest(folder, "b/s.json")["items"].map { ($0 as? [Any])?.count } == 40)
        #expect(pages.allSatisfy { ($0["height"] as? Int ?? .max) <= 420 })

        // As a job runner would: every page in its own process, all at once, with other --jobs.
        let started = try (1...pages.count).map { number in
            try MasonryExecutable.start(common + ["-o", "b/s.png", "--page", "\(number)", "-j", "\(1 + number % 3)"],
                                        in: folder.path)
        }
        for (process, output, error) in started {
            _ = output.fileHandleForReading.readDataToEndOfFile()
            _ = error.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
        }
        for page in pages {
            let name = try #require(page["file"] as? String)
            #expect(digest(folder, name) == digest(folder, name.replacingOccurrences(of: "b/", with: "a/")), "\(name)")
            #expect(digest(folder, name) != nil)
        }
    }

    @Test func multiPageRunsAreIdenticalForEveryJobCount() throws {
        let folder = TemporaryFolder()
        _ = try Self.makeInputs(folder)
        var runs: [[String?]] = []
        for jobs in ["1", "2", "5"] {
            let result = try MasonryExecutable.run(["in", "-o", "j\(jobs).png", "--manifest", "j\(jobs).json",
                                                    "--page-height", "420", "-j", jobs] + Self.layout, in: folder.path)
            #expect(result.status == 0, "\(result.standardError)")
            let count = try #require(try manifest(folder, "j\(jobs).json")["pages"] as? [Any]).count
            runs.append((1...count).map { digest(folder, String(format: "j\(jobs)-%03d.png", $0)) }
                        + [bytes(folder, "j\(jobs).json").map { SHA256.hex(Array(String(decoding: $0, as: UTF8.self)
                            .replacingOccurrences(of: "j\(jobs)-", with: "J-").utf8)) }])
        }
        #expect(runs[0].count > 3)
        #expect(runs[0] == runs[1] && runs[1] == runs[2])
    }

    @Test func onePageIsTheRoundOneSheetAndManifest() throws {
        let folder = TemporaryFolder()
        _ = try Self.makeInputs(folder, count: 12)
        let paged = try MasonryExecutable.run(["in", "-o", "a.png", "--manifest", "a.json"] + Self.layout, in: folder.path)
        let unpaged = try MasonryExecutable.run(["in", "-o", "b.png", "--manifest", "b.json", "--page-height", "0"]
                                                + Self.layout, in: folder.path)
        #expect(paged.status == 0 && unpaged.status == 0)
        #expect(digest(folder, "a.png") == digest(folder, "b.png") && digest(folder, "a.png") != nil)
        #expect(digest(folder, "a.json") == digest(folder, "b.json"))
        #expect(try manifest(folder, "a.json")["version"] as? Int == 1, "a one-page run keeps manifest version 1")
    }

    @Test func badPageOptionsExitWithTheUsageStatus() throws {
        let folder = TemporaryFolder()
        _ = try Self.makeInputs(folder, count: 6)
        let outOfRange = try MasonryExecutable.run(["in", "-o", "x.png", "--page", "99", "--page-height", "400"] + Self.layout,
                                                   in: folder.path)
        #expect(outOfRange.status == 64)
        #expect(outOfRange.errorLines.last?.hasPrefix("masonry: error: --page 99 is out of range: the plan has") == true,
                "\(outOfRange.standardError)")

        let tooSmall = try MasonryExecutable.run(["in", "-o", "x.png", "--page-height", "50"] + Self.layout, in: folder.path)
        #expect(tooSmall.status == 64)
        let message = tooSmall.errorLines.last ?? ""
        let smallest = try #require(message.split(separator: " ").last.flatMap { Int($0) }, "\(message)")
        #expect(message.contains("needs a tile taller than a page of --page-height 50 at --width"), "\(message)")
        let fits = try MasonryExecutable.run(["in", "-o", "x.png", "--page-height", "\(smallest)"] + Self.layout, in: folder.path)
        #expect(fits.status == 0, "\(fits.standardError)")
        let tooTight = try MasonryExecutable.run(["in", "-o", "x.png", "--page-height", "\(smallest - 1)"] + Self.layout,
                                                 in: folder.path)
        #expect(tooTight.status == 64)

        let planWithoutManifest = try MasonryExecutable.run(["in", "--plan-only"], in: folder.path)
        #expect(planWithoutManifest.status == 64)
    }

    @Test func planOnlyDecodesNoPixel() throws {
        let folder = TemporaryFolder()
        _ = try Self.makeInputs(folder, count: 5)
        // A file whose header is fine and whose image data is garbage: only decoding finds out.
        var broken = try #require(bytes(folder, "in/img3.png"))
        let idat = try #require(PNGBytes.chunks(broken).first { $0.type == "IDAT" })
        for offset in idat.data.lowerBound + 2 ..< idat.data.upperBound { broken[offset] ^= 0x5A }
        try Data(broken).write(to: folder.url.appendingPathComponent("in/img3.png"))

        let plan = try MasonryExecutable.run(["in", "-o", "p.png", "--manifest", "p.json", "--plan-only"], in: folder.path)
        #expect(plan.status == 0, "\(plan.standardError)")
        #expect(plan.errorLines.last?.hasPrefix("masonry: planned 1 page in p.json: 5 images, 0 skipped") == true,
                "\(plan.standardError)")
        #expect(bytes(folder, "p.png") == nil)
        let planned = try manifest(folder, "p.json")
        #expect((planned["skipped"] as? [Any])?.isEmpty == true)

        let full = try MasonryExecutable.run(["in", "-o", "p.png", "--manifest", "f.json", "--per-page", "100"], in: folder.path)
        #expect(full.status == 0)
        let rendered = try manifest(folder, "f.json")
        #expect((rendered["skipped"] as? [[String: Any]])?.first?["path"] as? String == "in/img3.png")
        #expect((rendered["items"] as? [Any])?.count == 5, "version 2 lists every planned tile")
    }
}

/// `--html` through the built command: one page over the plan, written with the other outputs.
@Suite struct HTMLEndToEndTests {
    @Test func theGalleryPageLinksEveryPageAndEveryInputRelativeToItself() throws {
        let folder = TemporaryFolder()
        let names = try PagesEndToEndTests.makeInputs(folder, count: 12)
        try FileManager.default.createDirectory(atPath: folder.file("site"), withIntermediateDirectories: true)
        let result = try MasonryExecutable.run(["in", "-o", "site/s.png", "--html", "site/index.html", "--page-height", "420"]
                                               + PagesEndToEndTests.layout, in: folder.path)
        #expect(result.status == 0, "\(result.standardError)")
        let page = try String(contentsOfFile: folder.file("site/index.html"), encoding: .utf8)
        let pageFiles = try FileManager.default.contentsOfDirectory(atPath: folder.file("site")).filter { $0.hasSuffix(".png") }
        #expect(pageFiles.count > 1)
        for file in pageFiles { #expect(page.contains("\"\(file)\""), "the page does not show \(file)") }
        for name in names { #expect(page.contains("\"../\(name)\""), "no link to \(name)") }
        #expect(!page.contains("http://") && !page.contains("https://"), "the page must fetch nothing")

        // --plan-only writes the same page without decoding a pixel.
        let plan = try MasonryExecutable.run(["in", "-o", "site/s.png", "--html", "site/plan.html", "--page-height", "420",
                                              "--plan-only"] + PagesEndToEndTests.layout, in: folder.path)
        #expect(plan.status == 0, "\(plan.standardError)")
        #expect(try String(contentsOfFile: folder.file("site/plan.html"), encoding: .utf8) == page)
    }
}
