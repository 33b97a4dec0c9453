import Foundation
import BitmapText
import CodecCore
import PNGCodec
import Testing
import TestSupport

/// Captions, sections, titles and tile styling (SPEC §6, §7) through the built command.
@Suite struct CaptionEndToEndTests {
    static let layout = ["-w", "500", "-c", "3", "--page-height", "900"]

    private func manifest(_ folder: TemporaryFolder, _ name: String) throws -> [String: Any] {
        let data = try Data(contentsOf: folder.url.appendingPathComponent(name))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    private func rect(_ value: Any?) -> (x: Int, y: Int, width: Int, height: Int)? {
        guard let object = value as? [String: Any], let x = object["x"] as? Int, let y = object["y"] as? Int,
              let width = object["width"] as? Int, let height = object["height"] as? Int else { return nil }
        return (x, y, width, height)
    }

    /// Inputs in two folders (for sections), one name long enough to be shortened, one not UTF-8.
    private func makeInputs(_ folder: TemporaryFolder) throws {
        var random = SplitMix64(seed: 11)
        for sub in ["in/a", "in/b"] { try FileManager.default.createDirectory(atPath: folder.file(sub), withIntermediateDirectories: true) }
        let names = ["in/a/one.png", "in/a/a-rather-long-file-name-that-cannot-fit-in-one-column.png", "in/a/three.png",
                     "in/b/four.png", "in/b/five.png", "in/b/six.png", "in/b/seven.png", "in/b/eight.png"]
        for (number, name) in names.enumerated() {
            let width = random.int(30...200), height = random.int(30...200)
            try TestImages.write(TestImages.photoLike(width: width, height: height, seed: UInt64(number + 1),
                                                      alpha: number % 3 == 0 ? 120 : nil),
                                 width: width, height: height, to: folder.file(name))
        }
        let odd = Array(folder.file("in/b/caf").utf8) + [0xE9, 0x2E, 0x70, 0x6E, 0x67]   // "caf\xe9.png", not UTF-8
        try TestImages.write(TestImages.photoLike(width: 64, height: 48, seed: 99), width: 64, height: 48, to: folder.file("tmp.png"))
        let from = Array(folder.file("tmp.png").utf8CString), to = odd.map { CChar(bitPattern: $0) } + [0]
        _ = Glibc.rename(from, to)
    }

    @Test func captionedSectionedPagesAreDeterministicAndKeepTextInItsBands() throws {
        let folder = TemporaryFolder()
        try makeInputs(folder)
        let options = ["in", "-r", "--sections", "--caption", "{name}\\n{width}×{height}", "--title", "Captions",
                       "--tile-background", "#e8eef4", "--frame", "1:#405060", "--background", "#ffffff"] + Self.layout
        var digests: [[String]] = []
        for jobs in ["1", "2", "3"] {
            try FileManager.default.createDirectory(atPath: folder.file("j\(jobs)"), withIntermediateDirectories: true)
            let result = try MasonryExecutable.run(options + ["-o", "j\(jobs)/s.png", "--manifest", "j\(jobs)/s.json", "-j", jobs],
                                                   in: folder.path)
            #expect(result.status == 0, "\(result.standardError)")
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.file("j\(jobs)")).sorted()
            digests.append(try files.map { name in
                var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder.file("j\(jobs)/\(name)"))))
                if name.hasSuffix(".json") { bytes = Array(String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "j\(jobs)/", with: "").utf8) }
                return "\(name) \(SHA256.hex(bytes))"
            })
        }
        #expect(digests[0] == digests[1] && digests[1] == digests[2], "output differs across --jobs")

        let json = try manifest(folder, "j1/s.json")
        #expect(json["version"] as? Int == 2)
        let items = try #require(json["items"] as? [[String: Any]])
        let sections = try #require(json["sections"] as? [[String: Any]])
        #expect(items.count == 9)
        #expect(sections.compactMap { $0["text"] as? String }.first { $0.hasSuffix("/in/a — 3 images") || $0.hasSuffix("in/a — 3 images") } != nil,
                "\(sections)")
        for item in items {
            let tile = try #require(rect(item as Any))
            let caption = try #require(item["caption"] as? [String: Any])
            let band = try #require(rect(caption))
            let text = try #require(caption["text"] as? String)
            // The band lies inside its tile, at its foot, across its width.
            #expect(band.x == tile.x && band.width == tile.width && band.y + band.height == tile.y + tile.height)
            // Every line fits the band (6 px cells in the small font, 4 px padding each side).
            for line in text.split(separator: "\n") { #expect(line.unicodeScalars.count * 6 <= band.width - 8, "\(line)") }
        }
        let texts = items.compactMap { ($0["caption"] as? [String: Any])?["text"] as? String }
        #expect(texts.contains { $0.contains("…") }, "the long name is shortened in the middle")
        #expect(texts.contains { $0.hasPrefix("caf\\xe9.png") }, "bytes that are not UTF-8 are drawn escaped: \(texts)")

        // Outside every tile, header and title band, each page is the background: no text leaks out.
        let pages = try #require(json["pages"] as? [[String: Any]])
        for (number, page) in pages.enumerated() {
            let file = try #require(page["file"] as? String)
            let image = try PNGDecoder.decodeRGBA(contentsOfFile: folder.file(file))
            var covered = [Bool](repeating: false, count: image.width * image.height)
            func cover(_ r: (x: Int, y: Int, width: Int, height: Int)) {
                for y in r.y ..< r.y + r.height { for x in r.x ..< r.x + r.width { covered[y * image.width + x] = true } }
            }
            for item in items where item["page"] as? Int == number + 1 { cover(try #require(rect(item as Any))) }
            for header in sections where header["page"] as? Int == number + 1 { cover(try #require(rect(header as Any))) }
            cover((8, 8, 484, 32))   // the title band: large font (20 px) + 2 × 6 px
            var leaks = 0
            for index in covered.indices where !covered[index] {
                if image.pixels[4 * index ..< 4 * index + 4] != [255, 255, 255, 255] { leaks += 1 }
            }
            #expect(leaks == 0, "\(leaks) pixels outside the tiles and bands of \(file) are not background")
        }
    }

    /// Names in other scripts (issue #33): section headers, title and captions are laid out
    /// with the fallback font, wide cells and the bidi algorithm, deterministically for any
    /// `--jobs`; every line fits its band by the font's own measure, and the shortened name
    /// keeps its emoji ZWJ sequence whole or not at all.
    @Test func captionsInOtherScriptsFitTheirBandsAndAreDeterministic() throws {
        let folder = TemporaryFolder()
        let names = ["in/北京/사진_001.png", "in/北京/IMG_صورة_01.png", "in/תמונות/תמונה_2026.png",
                     "in/תמונות/👨\u{200D}👩\u{200D}👧_family_picnic_by_the_lake_2026.png"]
        for (number, name) in names.enumerated() {
            try FileManager.default.createDirectory(atPath: folder.file((name as NSString).deletingLastPathComponent), withIntermediateDirectories: true)
            try TestImages.write(TestImages.photoLike(width: 120, height: 90, seed: UInt64(number + 1)), width: 120, height: 90,
                                 to: folder.file(name))
        }
        let options = ["in", "-r", "--sections", "--caption", "{name}", "--title", "北京旅行 · صورة 2026", "--font-size", "medium",
                       "-w", "600", "-c", "2"]
        var digests: [String] = []
        for jobs in ["1", "2"] {
            try FileManager.default.createDirectory(atPath: folder.file("out\(jobs)"), withIntermediateDirectories: true)
            let result = try MasonryExecutable.run(options + ["-o", "out\(jobs)/s.png", "--manifest", "out\(jobs)/s.json", "-j", jobs],
                                                   in: folder.path)
            #expect(result.status == 0, "\(result.standardError)")
            digests.append(SHA256.hex([UInt8](try Data(contentsOf: folder.url.appendingPathComponent("out\(jobs)/s.png")))))
        }
        #expect(digests[0] == digests[1], "output differs across --jobs")
        let items = try #require(try manifest(folder, "out1/s.json")["items"] as? [[String: Any]])
        #expect(items.count == names.count)
        let font = BitmapFont.builtIn(.medium)
        var texts: [String] = []
        for item in items {
            let caption = try #require(item["caption"] as? [String: Any])
            let band = try #require(rect(caption)), text = try #require(caption["text"] as? String)
            #expect(TextLine(text).width(in: font) <= band.width - 8, "\(text) overflows its band")
            texts.append(text)
        }
        #expect(texts.contains("사진_001.png") && texts.contains("IMG_صورة_01.png"), "\(texts)")
        let family = try #require(texts.first { $0.contains("…") }, "the long name is shortened: \(texts)")
        #expect(family.hasPrefix("👨\u{200D}👩\u{200D}👧") || family.hasPrefix("…"), "a ZWJ sequence is cut: \(family)")
    }

    @Test func captionsLeaveEachPictureExactlyAsWithoutThem() throws {
        let folder = TemporaryFolder()
        try makeInputs(folder)
        let plain = try MasonryExecutable.run(["in", "-r", "-o", "p.png", "--manifest", "p.json", "--per-page", "100"] + Self.layout,
                                              in: folder.path)
        let captioned = try MasonryExecutable.run(["in", "-r", "-o", "c.png", "--manifest", "c.json", "--caption", "{stem} {index}"]
                                                  + Self.layout, in: folder.path)
        #expect(plain.status == 0 && captioned.status == 0)
        let plainItems = try #require(try manifest(folder, "p.json")["items"] as? [[String: Any]])
        let captionedItems = try #require(try manifest(folder, "c.json")["items"] as? [[String: Any]])
        func pageImage(_ json: String, _ page: Int) throws -> DecodedImage {
            let pages = try #require(try manifest(folder, json)["pages"] as? [[String: Any]])
            return try PNGDecoder.decodeRGBA(contentsOfFile: folder.file(try #require(pages[page - 1]["file"] as? String)))
        }
        for (a, b) in zip(plainItems, captionedItems) {
            let first = try #require(rect(a["image"] as Any)), second = try #require(rect(b["image"] as Any))
            #expect(first.width == second.width && first.height == second.height)
            let imageA = try pageImage("p.json", try #require(a["page"] as? Int))
            let imageB = try pageImage("c.json", try #require(b["page"] as? Int))
            var differing = 0
            for y in 0..<first.height {
                for x in 0..<first.width {
                    let pa = 4 * ((first.y + y) * imageA.width + first.x + x), pb = 4 * ((second.y + y) * imageB.width + second.x + x)
                    if imageA.pixels[pa ..< pa + 4] != imageB.pixels[pb ..< pb + 4] { differing += 1 }
                }
            }
            #expect(differing == 0, "\(a["path"] ?? "") differs in \(differing) pixels")
        }
    }
}
