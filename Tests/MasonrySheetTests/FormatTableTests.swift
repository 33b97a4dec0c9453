import Foundation
import WaterfallLayout
@testable import MasonrySheet
import CodecCore
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
        let prefix = Array(bytes.prefix(ImageFormats.detectionPrefixBytes))
        #expect(try ImageFormats.format(ofPrefix: prefix) == format)
        // The winner outranks every other entry that accepts the sample.
        let accepting = ImageFormats.all.filter { $0.detection.matches(Array(prefix.prefix($0.detection.prefixBytes))) }
        #expect(accepting.contains(format))
        #expect(accepting.allSatisfy { $0 == format || $0.detection.priority < format.detection.priority })
        let folder = TemporaryFolder()
        try Self.write(bytes, to: folder.file("picture"))
        let file = try InputFile(path: folder.file("picture"))
        let (found, header) = try ImageFormats.header(of: file, limits: DecodeLimits())
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

    /// The overlaps detection decides (issue #35): a PNG is its signature, not its first byte;
    /// a text-mode-damaged PNG is still PNG's to name; a `mif1` file of AV1 items is AVIF.
    @Test func detectionDecidesTheOverlapsByTheMostSpecificEntry() throws {
        let png = try Self.sample(of: ImageFormats.png)
        // 0x89 and then anything but the PNG signature's first half: no format.
        var notPNG = png
        notPNG[1] = UInt8(ascii: "Q")
        #expect(throws: ImageError(.malformed, "not \(ImageFormats.namesForMessages) file")) {
            try ImageFormats.format(ofPrefix: Array(notPNG.prefix(ImageFormats.detectionPrefixBytes)))
        }
        // The first half right, the second changed by a text-mode transfer: PNG's reader names it.
        var damaged = png
        damaged[4] = 0x0A
        #expect(try ImageFormats.format(ofPrefix: Array(damaged.prefix(64))) == ImageFormats.png)
        // Shorter than every signature: the start of a PNG is a truncated PNG; anything else is too short.
        #expect(try ImageFormats.format(ofPrefix: Array(png.prefix(5))) == ImageFormats.png)
        #expect(throws: ImageError(.tooShortForAnyFormat(size: 5))) { try ImageFormats.format(ofPrefix: Array("hello".utf8)) }
        #expect(throws: ImageError(.emptyFile)) { try ImageFormats.format(ofPrefix: []) }
        // An AVIF whose brands name only the structure (mif1, miaf): AVIF by its AV1 items, so its
        // cache key names the AV1 decoder.
        var avif = try Self.sample(of: ImageFormats.avif)
        let ftypEnd = Int(avif[3]) | Int(avif[2]) << 8
        for at in stride(from: 8, to: ftypEnd, by: 4) where at != 12 && Array(avif[at..<(at + 4)]) == Array("avif".utf8) {
            avif.replaceSubrange(at..<(at + 4), with: Array("mif1".utf8))
        }
        #expect(!stride(from: 8, to: ftypEnd, by: 4).contains { Array(avif[$0..<($0 + 4)]) == Array("avif".utf8) })
        #expect(try ImageFormats.format(ofPrefix: Array(avif.prefix(ImageFormats.detectionPrefixBytes))) == ImageFormats.avif)
        let heic = try Self.sample(of: ImageFormats.heif)
        #expect(try ImageFormats.format(ofPrefix: Array(heic.prefix(ImageFormats.detectionPrefixBytes))) == ImageFormats.heif)

        // RAW inside TIFF: DNG by its DNGVersion; without it, a TIFF whose IFD0 is a thumbnail
        // with SubIFDs is a RAW only when a RAW maker made it; a plain TIFF stays TIFF.
        func format(_ bytes: [UInt8]) throws -> ImageFormat {
            try ImageFormats.format(ofPrefix: Array(bytes.prefix(ImageFormats.detectionPrefixBytes)))
        }
        let dng = try Self.sample(of: ImageFormats.raw)
        #expect(try format(dng) == ImageFormats.raw)
        let tiff = try Self.sample(of: ImageFormats.tiff)
        #expect(try format(tiff) == ImageFormats.tiff)
        func replacing(_ old: [UInt8], with new: [UInt8], in bytes: [UInt8]) -> [UInt8] {
            let at = (0 ... bytes.count - old.count).first { Array(bytes[$0 ..< $0 + old.count]) == old }!
            var copy = bytes
            copy.replaceSubrange(at ..< at + old.count, with: new)
            return copy
        }
        // DNGVersion (50706, little-endian 0x12 0xC6) renamed to an unknown tag: a TIFF of an unknown maker.
        let noDNGVersion = replacing([0x12, 0xC6, 0x01, 0x00], with: [0x50, 0xC3, 0x01, 0x00], in: dng)
        #expect(try format(noDNGVersion) == ImageFormats.tiff)
        #expect(try format(replacing(Array("Masonry\0".utf8), with: Array("NIKON\0\0\0".utf8), in: noDNGVersion)) == ImageFormats.raw)
        // A RAW maker's TIFF whose IFD0 is the picture (no thumbnail flag, SubIFDs or CFA) stays TIFF.
        let makerTIFF = replacing([0x4A, 0x01, 0x04, 0x00], with: [0x4B, 0x01, 0x04, 0x00], in:      // SubIFDs (330) renamed
            replacing([0xFE, 0x00, 0x04, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01], with: [0xFE, 0x00, 0x04, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00],
                      in: replacing(Array("Masonry\0".utf8), with: Array("NIKON\0\0\0".utf8), in: noDNGVersion)))
        #expect(try format(makerTIFF) == ImageFormats.tiff)
        // The makers' own signatures: CR2's "CR" after a TIFF header, ORF, RW2, RAF, CR3's brand.
        var cr2 = tiff
        cr2.replaceSubrange(8 ..< 10, with: Array("CR".utf8))
        #expect(try format(cr2) == ImageFormats.raw)
        for start in ["IIRO", "IIRS", "IIU\0", "FUJIFILMCCD-RAW ", "\0\0\0\u{18}ftypcrx "] {
            #expect(try format(Array(start.utf8) + [UInt8](repeating: 0, count: 64)) == ImageFormats.raw, "\(start)")
        }
        #expect(throws: ImageError.self) { try format(Array("IIU*".utf8) + [UInt8](repeating: 0, count: 64)) }
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

    /// A decoder that holds a whole picture is counted in the painting's memory budget: the
    /// page's `workers` largest such pictures (`SourceHeader.wholePictureBytes`); row-streaming
    /// ones are not.
    @Test func wholePictureDecodersAreCountedInTheMemoryBudget() throws {
        let options = SheetOptions(layout: try LayoutConfiguration(width: 400, columns: 2))
        let sizes = [(4000, 3000), (1000, 800), (2000, 1000)]
        func estimate(bytesPerPixel: Int, workers: Int) throws -> Int {
            let images = sizes.map { width, height in
                PlannedImage(path: RawPath("x"), format: ImageFormats.png,
                             source: SourceHeader(width: width, height: height, wholePictureBytes: width * height * bytesPerPixel),
                             orientation: .up, stamp: FileStamp(byteSize: 0, modificationTime: 0, inode: 0))
            }
            let plan = try Planner.plan(images: images, options: options, output: RawPath("s.png"))
            return BandScheduler.memoryEstimate(page: plan.pages[0], plan: plan, workers: workers, windowRows: 64)
        }
        #expect(try estimate(bytesPerPixel: 8, workers: 1) - estimate(bytesPerPixel: 0, workers: 1) == 4000 * 3000 * 8)
        #expect(try estimate(bytesPerPixel: 8, workers: 2) - estimate(bytesPerPixel: 0, workers: 2) == (4000 * 3000 + 2000 * 1000) * 8)
        // A header may claim any size: the product saturates rather than overflows.
        #expect(SourceHeader.saturatingProduct(Int.max / 2, 4, 8) == .max)
    }

    /// A 130-byte TIFF claiming 4294967295 × 4294967295 pixels: its pixel count saturates and
    /// the limits refuse it (the product overflowed, and the header pass trapped: found in the
    /// round-4 fuzz campaign).
    @Test func aTIFFOfTheLargest32BitSidesIsRefusedByTheLimits() throws {
        let side = Int(UInt32.max)
        var bytes: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 16, 0, 0, 0] + [UInt8](repeating: 0, count: 8)
        let entries: [(tag: UInt16, type: UInt16, value: UInt32)] = [
            (256, 4, UInt32(side)), (257, 4, UInt32(side)), (258, 3, 8), (259, 3, 1), (262, 3, 1),
            (273, 4, 8), (277, 3, 1), (278, 4, UInt32(side)), (279, 4, 8),
        ]
        func little(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        bytes += little(entries.count, 2)
        for entry in entries {
            bytes += little(Int(entry.tag), 2) + little(Int(entry.type), 2) + little(1, 4) + little(Int(entry.value), 4)
        }
        bytes += little(0, 4)
        let folder = TemporaryFolder()
        try Self.write(bytes, to: folder.file("huge.tif"))
        #expect(throws: ImageError(.pixelLimit(width: side, height: side, limit: DecodeLimits.defaultMaxPixels))) {
            _ = try ImageFormats.header(of: InputFile(path: folder.file("huge.tif")), limits: DecodeLimits())
        }
        #expect(SourceHeader(width: side, height: side).decodedPixels == .max)
        // A HEIF's `ispe` holds 32-bit sides too, and its coded pixels overflowed the same way;
        // the sample's shown size is its `clap`'s, and its coded planes are over the budget.
        var heif = try Self.sample(of: ImageFormats.heif)
        let ispe = try #require((0..<(heif.count - 4)).first { heif[$0..<($0 + 4)] == ArraySlice("ispe".utf8) })
        heif.replaceSubrange((ispe + 8)..<(ispe + 16), with: [UInt8](repeating: 0xFF, count: 8))
        try Self.write(heif, to: folder.file("huge.heic"))
        #expect(throws: ImageError(.limitExceeded, "image needs more decoding memory than the budget allows")) {
            _ = try ImageFormats.header(of: InputFile(path: folder.file("huge.heic")), limits: DecodeLimits())
        }
    }

    /// What each format's header says its decoder holds whole: libheif's planes (8 bytes a coded
    /// pixel), an interlaced PNG's image (4 bytes a pixel) or GIF first frame's indices (1);
    /// nothing for the formats and files that stream.
    @Test func wholePictureBytesComeFromEachHeader() throws {
        let folder = TemporaryFolder()
        func header(_ bytes: [UInt8], _ name: String) throws -> SourceHeader {
            try Self.write(bytes, to: folder.file(name))
            return try ImageFormats.header(of: InputFile(path: folder.file(name)), limits: DecodeLimits()).1
        }
        for format in ImageFormats.all {
            let source = try header(try Self.sample(of: format), "sample" + format.folderExtensions[0])
            // Pillow writes GIFs interlaced: the sample's first frame, the whole screen, is held.
            let expected = switch format.name {
            case "HEIF", "AVIF": source.decodedPixels * 8
            case "GIF": source.width * source.height
            // LibRaw's half-size demosaic: the file in memory and 5 bytes a sensor pixel.
            case "RAW": try Self.sample(of: format).count + 5 * source.width * source.height
            // A video decoder's reference frames and the converted poster (28 bytes a coded pixel).
            case "MP4", "MOV", "Matroska", "AVI": source.decodedPixels * 28
            // librsvg's document tree: 64 bytes a file byte (measured: 1.2 M empty elements in 33 MB took 1.78 GB).
            case "SVG": try Self.sample(of: format).count * 64
            // libjxl's whole first frame: the sample is lossy RGB, 3 output bytes and XYB's 4 a pixel.
            case "JPEG XL": source.width * source.height * 7
            default: 0
            }
            #expect(source.wholePictureBytes == expected, "\(format): \(source.wholePictureBytes)")
        }
        let interlacedPNG = PNGBytes.signature + PNGBytes.ihdr(width: 300, height: 200, interlace: 1) + PNGBytes.chunk("IEND")
        #expect(try header(interlacedPNG, "i.png").wholePictureBytes == 300 * 200 * 4)
        let plainPNG = PNGBytes.signature + PNGBytes.ihdr(width: 300, height: 200) + PNGBytes.chunk("IEND")
        #expect(try header(plainPNG, "p.png").wholePictureBytes == 0)
        // GIF89a, a 40×30 screen without a palette, then a 20×10 image at (5, 5), interlaced or not.
        func gif(flags: UInt8) -> [UInt8] {
            Array("GIF89a".utf8) + [40, 0, 30, 0, 0, 0, 0] + [0x2C, 5, 0, 5, 0, 20, 0, 10, 0, flags] + [2, 2, 0x4C, 0x01, 0] + [0x3B]
        }
        #expect(try header(gif(flags: 0x40), "i.gif").wholePictureBytes == 20 * 10)
        #expect(try header(gif(flags: 0), "p.gif").wholePictureBytes == 0)
    }

    /// An interlaced PNG too large to decode whole (12000×12000: 144 MP, within --max-pixels,
    /// 576 MB at 4 bytes a pixel) is skipped from its header; the same size not interlaced
    /// streams, so its header passes (its missing image data is what stops it).
    @Test func anInterlacedPNGOverTheWholePictureBudgetIsSkippedFromItsHeader() throws {
        #expect(12000 * 12000 <= DecodeLimits.defaultMaxPixels && 12000 * 12000 * 4 > ImageFormats.wholePictureBudget)
        let folder = TemporaryFolder()
        for (name, interlace) in [("interlaced.png", UInt8(1)), ("plain.png", UInt8(0))] {
            try Self.write(PNGBytes.signature + PNGBytes.ihdr(width: 12000, height: 12000, interlace: interlace) + PNGBytes.chunk("IEND"),
                           to: folder.file(name))
        }
        let run = try MasonryExecutable.run(["interlaced.png", "plain.png", "-o", "s.png"], in: folder.path)
        #expect(run.errorLines.contains("masonry: skipped interlaced.png: image needs more decoding memory than the budget allows"),
                "\(run.standardError)")
        #expect(!run.standardError.contains("plain.png: image needs more decoding memory"), "\(run.standardError)")
    }

    /// A picture whose decoder would hold more than the whole-picture budget is skipped from its
    /// header (one file, never the run): the HEIC sample with its `ispe` saying 9000×9000
    /// (81 MP: within --max-pixels, over 512 MiB at 8 bytes a pixel), though its `clap` still
    /// shows 48×32: libheif would decode the coded size.
    @Test func aPictureOverTheWholePictureBudgetIsSkippedFromItsHeader() throws {
        #expect(9000 * 9000 <= DecodeLimits.defaultMaxPixels && 9000 * 9000 * 8 > ImageFormats.wholePictureBudget)
        var bytes = try Self.sample(of: ImageFormats.heif)
        let ispe = Array("ispe".utf8)
        var patched = 0
        for offset in 0..<(bytes.count - 16) where Array(bytes[offset..<(offset + 4)]) == ispe {
            // type, version and flags (4 bytes), then width and height, big-endian.
            for (index, byte) in [0, 0, 0x23, 0x28, 0, 0, 0x23, 0x28].enumerated() { bytes[offset + 8 + index] = UInt8(byte) }
            patched += 1
        }
        #expect(patched >= 1)
        let folder = TemporaryFolder()
        try Self.write(bytes, to: folder.file("huge.heic"))
        try Self.write(try Self.sample(of: ImageFormats.png), to: folder.file("small.png"))
        let run = try MasonryExecutable.run(["huge.heic", "small.png", "-o", "s.png"], in: folder.path)
        #expect(run.status == 0, "stderr: \(run.standardError)")
        #expect(run.errorLines.first == "masonry: skipped huge.heic: image needs more decoding memory than the budget allows",
                "\(run.standardError)")
        #expect(run.errorLines.last?.contains("1 image, 1 skipped") == true, "\(run.standardError)")
    }
}
