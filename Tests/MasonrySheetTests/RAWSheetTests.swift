import Foundation
import Testing
import TestSupport

/// Camera RAW through the command: the manifest says which picture each tile came from, and a
/// hostile RAW is skipped with its one-line reason.
@Suite struct RAWSheetTests {
    static let sample = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/Formats/sample.dng")

    static func items(_ folder: TemporaryFolder) throws -> [String: [String: Any]] {
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.file("m.json")))) as? [String: Any]
        let items = try #require(manifest?["items"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: items.map { ($0["path"] as? String ?? "", $0) })
    }

    /// sample.dng is a 48×32 sensor with a 48×32 preview: a tile up to 24×16 is drawn from the
    /// preview, a larger one from the demosaic.
    @Test(arguments: [(16, "preview"), (24, "preview"), (25, "demosaic"), (400, "demosaic")])
    func theManifestSaysWhetherThePreviewOrTheDemosaicDrewTheTile(width: Int, source: String) throws {
        let folder = TemporaryFolder()
        try FileManager.default.copyItem(atPath: Self.sample.path, toPath: folder.file("shot.dng"))
        let run = try MasonryExecutable.run(["shot.dng", "-o", "s.png", "--manifest", "m.json", "--width", "\(width)",
                                             "--columns", "1", "--margin", "0"], in: folder.path)
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let item = try #require(try Self.items(folder)["shot.dng"])
        #expect(item["format"] as? String == "RAW")
        #expect(item["rawSource"] as? String == source, "\(item)")
        #expect(item["sourceWidth"] as? Int == 48 && item["sourceHeight"] as? Int == 32)
    }

    @Test func aRAWWhosePreviewPointsPastTheFileIsSkippedByName() throws {
        let folder = TemporaryFolder()
        var bytes = [UInt8](try Data(contentsOf: Self.sample))
        // IFD0 (at 8) is the preview; its StripByteCounts (279) entry's value made 2^31 - 65536.
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        let entries = (0 ..< u16(8)).map { 10 + 12 * $0 }
        let entry = try #require(entries.first { u16($0) == 279 })
        let start = u32(try #require(entries.first { u16($0) == 273 }) + 8)
        bytes.replaceSubrange(entry + 8 ..< entry + 12, with: [0x00, 0x00, 0xFF, 0x7F])
        try Data(bytes).write(to: URL(fileURLWithPath: folder.file("bad.dng")))
        try FileManager.default.copyItem(atPath: Self.sample.path, toPath: folder.file("good.dng"))
        let run = try MasonryExecutable.run(["good.dng", "bad.dng", "-o", "s.png"], in: folder.path)
        #expect(run.status == 0, "stderr: \(run.standardError)")
        #expect(run.errorLines.contains(
            "masonry: skipped bad.dng: RAW preview at offset \(start) claims \(0x7FFF_0000) bytes, past the end of the file (\(bytes.count) bytes)"),
            "\(run.standardError)")
    }
}
