import ColorManagement
import Foundation
import CodecCore
import PNGCodec
import Testing
import TestSupport

/// The colour step end to end, through the `masonry` command: tiles of tagged pictures against
/// ImageCms-then-Lanczos goldens, untagged and sRGB pictures untouched, the sheet's sRGB chunk,
/// the manifest's `color`, `--no-color-management` and the thumbnail cache.
@Suite struct SheetColorTests {
    static let fixtures = FixtureFolder(in: .module)
    static let cases = fixtures.goldenFields("cases.txt")

    /// A one-column sheet 100 px wide without margins of `inputs`: its PNG bytes, RGB8 pixels and manifest.
    static func sheet(_ inputs: [String], _ extra: [String] = [], in folder: TemporaryFolder)
        throws -> (bytes: [UInt8], width: Int, height: Int, rgb: [UInt8], manifest: String, result: ProcessResult) {
        let output = folder.file("sheet-\(UUID().uuidString.prefix(6)).png"), manifest = output + ".json"
        let result = try MasonryExecutable.run(inputs + ["-o", output, "--manifest", manifest, "-w", "100", "-c", "1",
                                                         "--margin", "0", "--gap", "0", "-q"] + extra)
        #expect(result.status == 0, "\(result.standardError)")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
        let decoder = try PNGDecoder(file: InputFile(path: output), compactOpaqueRows: true)
        var rgb: [UInt8] = []
        var rgba = [UInt8](repeating: 255, count: decoder.width * 4)
        try decoder.readRows { _, row in
            ConvertedPicture.widen(row, format: decoder.rowFormat, into: &rgba)
            rgb += ConvertedPicture.narrow(rgba)
        }
        return (bytes, decoder.width, decoder.height, rgb, try String(contentsOfFile: manifest, encoding: .utf8), result)
    }

    static func hasSRGBChunk(_ png: [UInt8]) -> Bool {
        var at = 8
        while at + 8 <= png.count {
            let length = png[at ..< at + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: png[at + 4 ..< at + 8], as: UTF8.self)
            if type == "sRGB" { return true }
            if type == "IDAT" { return false }
            at += 12 + length
        }
        return false
    }

    @Test(arguments: cases.map { $0[0] })
    func tileMatchesImageCmsThenLanczos(_ fixture: String) throws {
        let fields = try #require(Self.cases.first { $0[0] == fixture })
        let folder = TemporaryFolder("masonry-color")
        let converted = try Self.sheet([Self.fixtures.path(fixture)], in: folder)
        let stored = try Self.sheet([Self.fixtures.path(fixture)], ["--no-color-management"], in: folder)
        let golden = try ConvertedPicture.golden(fields[1].replacingOccurrences(of: ".golden.png", with: ".tile.golden.png"))
        try #require((converted.width, converted.height) == (golden.width, golden.height))
        let error = ColorErrorSummary(rgb: converted.rgb, golden.rgb)
        let asStored = ColorErrorSummary(rgb: stored.rgb, golden.rgb)
        TestLog.verbose("\(fixture) tile: converted \(error); --no-color-management \(asStored)")
        #expect(error.mean <= 1.0 && error.percentile99 <= 3.0, "\(fixture): \(error)")
        #expect(asStored.mean > 1.0 || asStored.percentile99 > 3.0, "\(fixture): as stored already meets the bar (\(asStored))")
        #expect(Self.hasSRGBChunk(converted.bytes) && !Self.hasSRGBChunk(stored.bytes))
        let color = fields[2...].joined(separator: " ")
        #expect(converted.manifest.contains("\"color\": \"\(color)\""), "\(converted.manifest)")
        #expect(stored.manifest.contains("\"color\": \"\(color)\""))
    }

    /// `--no-color-management` draws exactly today's sheet: the same bytes as the picture with its
    /// colour information cut out.
    @Test func noColorManagementIsTheSheetOfTheUntaggedPicture() throws {
        let folder = TemporaryFolder("masonry-color")
        let tagged = try Self.fixtures.bytes("crawfish-display-p3.png")
        try Data(Self.withoutChunk("iCCP", tagged)).write(to: URL(fileURLWithPath: folder.file("untagged.png")))
        let untagged = try Self.sheet([folder.file("untagged.png")], in: folder)
        let off = try Self.sheet([Self.fixtures.path("crawfish-display-p3.png")], ["--no-color-management"], in: folder)
        #expect(off.bytes == untagged.bytes)
        #expect(untagged.manifest.contains("\"color\": \"untagged\""))
    }

    /// Untagged pictures, pictures with HP's sRGB profile (as four SampleImages carry it), an sRGB
    /// chunk or cICP sRGB code points: the same sheet bytes with and without colour management, no
    /// sRGB chunk.
    @Test func untaggedAndSRGBPicturesKeepTheirBytes() throws {
        let folder = TemporaryFolder("masonry-color")
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let astronaut = root.appendingPathComponent("SampleImages/01-astronaut.png").path
        let untagged = Self.withoutChunk("iCCP", try Self.fixtures.bytes("bus-adobe-rgb.png"))
        let srgbChunk = Array(untagged[..<33]) + PNGBytes.chunk("sRGB", [0]) + untagged[33...]
        let cicp = Array(untagged[..<33]) + PNGBytes.chunk("cICP", [1, 13, 0, 1]) + untagged[33...]
        for (name, bytes) in [("untagged.png", untagged), ("srgb-chunk.png", srgbChunk), ("cicp-srgb.png", cicp)] {
            try Data(bytes).write(to: URL(fileURLWithPath: folder.file(name)))
        }
        let inputs = [astronaut, folder.file("untagged.png"), folder.file("srgb-chunk.png"), folder.file("cicp-srgb.png"),
                      root.appendingPathComponent("Tests/JPEGCodecTests/Fixtures/astronaut-q50-422.jpg").path]
        let on = try Self.sheet(inputs, in: folder)
        let off = try Self.sheet(inputs, ["--no-color-management"], in: folder)
        #expect(on.bytes == off.bytes)
        #expect(!Self.hasSRGBChunk(on.bytes))
        for name in ["icc:sRGB IEC61966-2.1", "untagged", "sRGB"] { #expect(on.manifest.contains("\"color\": \"\(name)\"")) }
    }

    /// The cache keeps converted and stored thumbnails apart: a warm run gives each mode's own bytes.
    @Test func thumbnailCacheKeyHoldsTheColourDecision() throws {
        let folder = TemporaryFolder("masonry-color")
        let input = [Self.fixtures.path("flowers-display-p3.jpg")]
        let cache = ["--cache", folder.file("cache")]
        let on = try Self.sheet(input, in: folder), off = try Self.sheet(input, ["--no-color-management"], in: folder)
        #expect(on.bytes != off.bytes)
        _ = try Self.sheet(input, cache, in: folder)
        #expect(try Self.sheet(input, cache + ["--no-color-management"], in: folder).bytes == off.bytes)
        #expect(try Self.sheet(input, cache, in: folder).bytes == on.bytes)
    }

    /// Pictures whose profile Masonry builds (CICP Display P3, PNG gAMA + cHRM) come
    /// from the cache in a later run, whatever second it starts in: the built profile's digest is
    /// in the cache key, and lcms used to stamp it with the time of day.
    @Test func thumbnailsOfBuiltProfilesComeFromTheCacheInALaterSecond() throws {
        let folder = TemporaryFolder("masonry-color")
        let inputs = ["strawberry-cicp-p3.png", "mug-gama-chrm.png"].map { Self.fixtures.path($0) }
        let arguments = inputs + ["-o", folder.file("s.png"), "-w", "300", "-c", "3", "--cache", folder.file("cache")]
        let cold = try MasonryExecutable.run(arguments)
        #expect(cold.status == 0, "\(cold.standardError)")
        let second = time(nil)
        while time(nil) == second { usleep(10_000) }
        let warm = try MasonryExecutable.run(arguments)
        #expect(warm.status == 0, "\(warm.standardError)")
        #expect(warm.standardError.contains("(2 from the cache)"), "\(warm.standardError)")
    }

    /// A bad profile never fails a run: the picture is drawn as stored with one warning naming it.
    @Test func brokenProfileIsAWarningAndThePictureAsStored() throws {
        let folder = TemporaryFolder("masonry-color")
        let jpeg = try Self.fixtures.bytes("flowers-display-p3.jpg")
        // Cut the APP2 segment's profile short by lying about its size field (bigger than the segment).
        let marker = try #require((0 ..< jpeg.count - 16).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xE2 })
        var broken = jpeg
        broken.replaceSubrange(marker + 18 ..< marker + 22, with: PNGBytes.be32(1 << 20))
        try Data(broken).write(to: URL(fileURLWithPath: folder.file("broken.jpg")))
        let output = folder.file("s.png")
        let result = try MasonryExecutable.run([folder.file("broken.jpg"), "-o", output, "-w", "100", "-c", "1"])
        #expect(result.status == 0)
        #expect(result.errorLines.filter { $0.contains("warning") }
            == ["masonry: warning: \(folder.file("broken.jpg")): ICC profile truncated (580 of 1048576 bytes)"], "\(result.standardError)")
        let stored = try Self.sheet([Self.fixtures.path("flowers-display-p3.jpg")], ["--no-color-management", "--margin", "8"], in: folder)
        let drawn = try Self.sheet([folder.file("broken.jpg")], ["--margin", "8"], in: folder)
        #expect(drawn.rgb == stored.rgb)
    }

    /// A profile lcms refuses (its rXYZ tag's type spoilt) embedded in a PNG: one warning line with
    /// lcms's reason and nothing else on stderr (lcms prints nothing), the picture as stored.
    @Test func lcmsRefusalIsOneWarningLine() throws {
        let folder = TemporaryFolder("masonry-color")
        var profile = try Self.fixtures.bytes("display-p3.icc")
        let tagCount = Int(profile[131])
        let entry = try #require((0..<tagCount).first { String(decoding: profile[132 + 12 * $0 ..< 136 + 12 * $0], as: UTF8.self) == "rXYZ" })
        let offset = Int(profile[132 + 12 * entry + 6]) << 8 | Int(profile[132 + 12 * entry + 7])
        profile.replaceSubrange(offset ..< offset + 4, with: Array("zzzz".utf8))
        let untagged = Self.withoutChunk("iCCP", try Self.fixtures.bytes("crawfish-display-p3.png"))
        let refused = Array(untagged[..<33]) + PNGBytes.chunk("iCCP", Array("p\0\0".utf8) + PNGBytes.zlibStored(profile)) + untagged[33...]
        try Data(refused).write(to: URL(fileURLWithPath: folder.file("refused.png")))
        try Data(untagged).write(to: URL(fileURLWithPath: folder.file("untagged.png")))
        let result = try MasonryExecutable.run([folder.file("refused.png"), "-o", folder.file("s.png"), "-w", "100"])
        #expect(result.status == 0)
        let lines = result.errorLines.filter { !$0.hasPrefix("masonry: wrote ") }
        #expect(lines.count == 1 && lines[0].hasPrefix("masonry: warning: \(folder.file("refused.png")): ICC profile refused by lcms: ")
                && lines[0].hasSuffix("; drawn as stored"), "\(result.standardError)")
        let drawn = try Self.sheet([folder.file("refused.png")], in: folder)
        #expect(drawn.rgb == (try Self.sheet([folder.file("untagged.png")], in: folder)).rgb)
    }

    static func withoutChunk(_ type: String, _ png: [UInt8]) -> [UInt8] {
        var out = Array(png[..<8]), at = 8
        while at + 8 <= png.count {
            let length = png[at ..< at + 4].reduce(0) { $0 << 8 | Int($1) }
            if String(decoding: png[at + 4 ..< at + 8], as: UTF8.self) != type { out += png[at ..< at + 12 + length] }
            at += 12 + length
        }
        return out
    }
}
