import Foundation
@testable import MasonrySheet
import PNGCodec
import Testing
import TestSupport

/// The format table (SPEC §12) as a user meets it: every format's files are found in folders
/// under each of its extensions in any letter case, are read by their signature whatever
/// their name, land in the manifest with their format, and are compared by `masonry compare`.
/// Each format of `ImageFormats.all` has one sample in `Fixtures/Formats/` (made by
/// `scripts/make-format-samples.py`); a format without one fails `everyFormatHasASample`.
@Suite struct FormatTableTests {
    static let samples = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/Formats")
    /// The samples' size as shown (`scripts/make-format-samples.py`).
    static let sampleSize = (width: 48, height: 32)

    static func sample(of format: ImageFormat) throws -> [UInt8] {
        let ext = format.folderExtensions[0]
        return try [UInt8](Data(contentsOf: samples.appendingPathComponent("sample" + ext)))
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    @Test(arguments: ImageFormats.all)
    func everyFormatHasASampleThatOnlyItsOwnSignatureClaims(format: ImageFormat) throws {
        let bytes = try Self.sample(of: format)
        let prefix = Array(bytes.prefix(ImageFormats.prefixLength))
        #expect(ImageFormats.all.filter { $0.matches(prefix) } == [format])
        let folder = TemporaryFolder()
        try Self.write(bytes, to: folder.file("picture"))
        let file = try InputFile(path: folder.file("picture"))
        let (found, header) = try ImageFormats.header(of: file, limits: PNGLimits())
        #expect(found == format)
        #expect((header.displayWidth, header.displayHeight) == Self.sampleSize)
        #expect(header.frameCount == 1)
    }

    @Test func aFolderScanFindsEveryExtensionInAnyCaseAndReadsEachFileBySignature() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("in"), withIntermediateDirectories: true)
        // Every sample under every extension of the table, upper case for odd positions: a
        // PNG named .jpg is a PNG, and so on.
        let extensions = ImageFormats.all.flatMap(\.folderExtensions)
        var expected: [String: String] = [:]
        for (f, format) in ImageFormats.all.enumerated() {
            for (e, ext) in extensions.enumerated() {
                let name = "s\(f)-\(e)" + ((f + e) % 2 == 1 ? ext.uppercased() : ext)
                try Self.write(try Self.sample(of: format), to: folder.file("in/" + name))
                expected["in/" + name] = format.name
            }
        }
        try Self.write(Array("not a picture".utf8), to: folder.file("in/notes.txt"))
        let run = try MasonryExecutable.run(["in", "-o", "s.png", "--manifest", "m.json"], in: folder.path)
        #expect(run.status == 0, "stderr: \(run.standardError)")
        #expect(run.errorLines.last?.contains("\(expected.count) images") == true, "\(run.standardError)")
        #expect(run.errorLines.last?.contains("1 other file ignored") == true, "\(run.standardError)")
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.file("m.json")))) as? [String: Any]
        let items = try #require(manifest?["items"] as? [[String: Any]])
        var found: [String: String] = [:]
        for item in items {
            found[item["path"] as? String ?? ""] = item["format"] as? String
            #expect(item["sourceWidth"] as? Int == Self.sampleSize.width)
            #expect(item["frames"] == nil)
        }
        #expect(found == expected)
    }

    @Test func aFileOfNoKnownFormatIsSkippedNamingEveryFormat() throws {
        let folder = TemporaryFolder()
        try Self.write(try Self.sample(of: ImageFormats.png), to: folder.file("good.png"))
        try Self.write(Array("GIF? no: just some text in a file".utf8), to: folder.file("odd.png"))
        let run = try MasonryExecutable.run(["good.png", "odd.png", "-o", "s.png"], in: folder.path)
        #expect(run.status == 0, "stderr: \(run.standardError)")
        #expect(run.errorLines.first == "masonry: skipped odd.png: not \(ImageFormats.namesForMessages) file")
    }

    /// Compare reads every format: a pair of equal bytes is unchanged without decoding, and a
    /// pair holding the same picture in this format and as a PNG is decoded on both sides.
    @Test(arguments: ImageFormats.all)
    func compareReadsEveryFormat(format: ImageFormat) throws {
        let folder = TemporaryFolder()
        for side in ["base", "cur"] {
            try FileManager.default.createDirectory(atPath: folder.file(side), withIntermediateDirectories: true)
            try Self.write(try Self.sample(of: format), to: folder.file("\(side)/same\(format.folderExtensions[0])"))
        }
        // The same path, this format on one side and the PNG sample on the other.
        try Self.write(try Self.sample(of: format), to: folder.file("base/mixed.png"))
        try Self.write(try Self.sample(of: ImageFormats.png), to: folder.file("cur/mixed.png"))
        let run = try MasonryExecutable.run(["compare", "base", "cur", "-o", "r.png", "--report", "r.json",
                                             "--max-diff-ratio", "1"], in: folder.path)
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.file("r.json")))) as? [String: Any]
        let items = try #require(report?["items"] as? [[String: Any]])
        let byPath = Dictionary(uniqueKeysWithValues: items.map { ($0["path"] as? String ?? "", $0) })
        #expect(byPath["same\(format.folderExtensions[0])"]?["status"] as? String == "unchanged")
        let mixed = try #require(byPath["mixed.png"])
        #expect(mixed["reason"] == nil, "\(mixed)")
        for side in ["baseline", "current"] {
            let info = mixed[side] as? [String: Any]
            #expect(info?["width"] as? Int == Self.sampleSize.width && info?["height"] as? Int == Self.sampleSize.height, "\(side): \(mixed)")
        }
        // Lossy formats differ a little from the PNG; lossless ones not at all.
        #expect(["changed", "unchanged"].contains(mixed["status"] as? String), "\(mixed)")
    }
}
