import CodecCore
import Foundation
@testable import MasonrySheet
import Testing
import TestSupport

/// JPEG XL through the table and the command (issue #31 §3), against djxl: the fixtures of
/// `Tests/JXLCodecTests/Fixtures` (scripts/make-jxl-fixtures.py), whose `orientation-K.djxl.png`
/// are djxl's output with the codestream's orientation applied.
@Suite struct JXLSheetTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("JXLCodecTests/Fixtures")

    static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    /// The table's header and decoder, turned as the sheet turns a tile, give djxl's picture exactly.
    @Test(arguments: 1 ... 8)
    func theTileIsTurnedAsDjxlShowsIt(orientation: Int) throws {
        let file = try InputFile(path: Self.fixture("orientation-\(orientation).jxl"))
        let (format, header) = try ImageFormats.header(of: file, limits: DecodeLimits())
        #expect(format.name == "JPEG XL")
        #expect(header.orientation.rawValue == orientation)
        let reference = try goldenRGB(Self.fixture("orientation-\(orientation).djxl.png"))
        #expect((header.displayWidth, header.displayHeight) == (reference.width, reference.height))
        let rows = try ImageFormats.decoder(for: file, format: format, expected: header, limits: DecodeLimits(),
                                            minimumWidth: 0, minimumHeight: 0)
        let ours = try tileOverWhite(rows, orientation: header.orientation, tileWidth: reference.width, tileHeight: reference.height)
        #expect(psnr(ours, reference.rgb) == .infinity, "orientation \(orientation)")
    }

    /// A sheet as a user draws one: the manifest names the format, the shown size and an
    /// animation's frames; a damaged file is skipped by name with its reason; nothing else is printed but the summary.
    @Test func aSheetOfJPEGXLFiles() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("in"), withIntermediateDirectories: true)
        for (name, copy) in [("orientation-6.jxl", "turned.jxl"), ("animated.jxl", "animated.jxl"),
                             ("jpeg-recompressed.jxl", "from-jpeg.jxl"), ("display-p3-lossless.jxl", "p3.jxl"),
                             ("hostile/truncated-data.jxl", "cut.jxl"), ("hostile/box-past-end.jxl", "lying.jxl")] {
            try FileManager.default.copyItem(atPath: Self.fixture(name), toPath: folder.file("in/" + copy))
        }
        let run = try MasonryExecutable.run(["in", "-o", "sheet.png", "--manifest", "m.json", "--width", "300"], in: folder.path)
        #expect(run.status == 0, "stderr: \(run.standardError)")
        #expect(Set(run.errorLines.filter { !$0.hasPrefix("masonry: wrote ") }) == ["masonry: skipped in/cut.jxl: truncated JPEG XL file",
                                        "masonry: skipped in/lying.jxl: JPEG XL box 'jxlc' runs past the end of the file"],
                "\(run.standardError)")
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.file("m.json")))) as? [String: Any]
        let items = try #require(manifest?["items"] as? [[String: Any]])
        let byPath = Dictionary(uniqueKeysWithValues: items.map { ($0["path"] as? String ?? "", $0) })
        let turned = try #require(byPath["in/turned.jxl"])
        #expect(turned["format"] as? String == "JPEG XL")
        #expect(turned["sourceWidth"] as? Int == 48 && turned["sourceHeight"] as? Int == 64, "\(turned)")
        #expect(byPath["in/animated.jxl"]?["frames"] as? Int == 3, "\(byPath["in/animated.jxl"] ?? [:])")
        #expect(byPath["in/p3.jxl"]?["color"] as? String == "Display P3", "\(byPath["in/p3.jxl"] ?? [:])")
        #expect(byPath["in/from-jpeg.jxl"]?["format"] as? String == "JPEG XL")
    }
}
