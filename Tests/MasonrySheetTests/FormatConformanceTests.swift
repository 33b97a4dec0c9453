import CodecCore
import Foundation
@testable import MasonrySheet
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// One conformance suite over `ImageFormats.all` (issue #35): every entry, present and future,
/// is held to the same contract by being in the table. Each format's sample is
/// `Fixtures/Formats/sample<first extension>` (48×32 as shown, `scripts/make-format-samples.py`);
/// a format without one fails here, never passes as skipped.
@Suite struct FormatConformanceTests {
    static let formats = ImageFormats.all

    /// The tile sizes the decoders are asked for (stored orientation), from tiny to full size.
    static let targets = [DecodeTarget(minimumWidth: 1, minimumHeight: 1), DecodeTarget(minimumWidth: 5, minimumHeight: 3),
                          DecodeTarget(minimumWidth: 12, minimumHeight: 8), DecodeTarget(minimumWidth: 0, minimumHeight: 0),
                          DecodeTarget(minimumWidth: 4000, minimumHeight: 4000)]

    static func sample(_ format: ImageFormat) throws -> (path: String, bytes: [UInt8]) {
        let url = FormatTableTests.samples.appendingPathComponent("sample" + format.folderExtensions[0])
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw FixtureMissing(path: url.path)
        }
        return (url.path, [UInt8](data))
    }

    struct FixtureMissing: Error, CustomStringConvertible {
        let path: String
        var description: String { "missing conformance sample \(path)" }
    }

    /// The arguments below are the table itself: the folder must hold a sample for each of them
    /// and nothing else, so no format can drop out of the suite unnoticed.
    @Test func everyEntryHasExactlyOneSample() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: FormatTableTests.samples.path)
            .filter { $0.hasPrefix("sample") }.sorted()
        #expect(names == Self.formats.map { "sample" + $0.folderExtensions[0] }.sorted())
        #expect(Self.formats.count == Set(Self.formats.map(\.name)).count)
    }

    /// The header pass and the decoder agree on the stored size and orientation, and every
    /// shrink on load keeps each side at least twice what was asked (or the full size); a
    /// `.vector` format draws exactly the asked size.
    @Test(arguments: formats)
    func headerAndDecoderAgreeAndShrinksKeepTwiceTheTile(format: ImageFormat) throws {
        let sample = try Self.sample(format)
        let file = try InputFile(path: sample.path)
        let (found, header) = try ImageFormats.header(of: file, limits: DecodeLimits())
        #expect(found == format)
        for target in Self.targets {
            let (decoded, rows) = try format.openDecoder(file, DecodeLimits(), target.minimumWidth, target.minimumHeight)
            #expect(decoded == header, "\(format) at \(target)")
            if format.shrink.contains(.vector) {
                // Drawn, not decoded: exactly the asked size (larger than the header's too), the header's for 0 × 0.
                let asked = (target.minimumWidth > 0 ? target.minimumWidth : header.width,
                             target.minimumHeight > 0 ? target.minimumHeight : header.height)
                #expect((rows.width, rows.height) == asked, "\(format) at \(target): \(rows.width)×\(rows.height)")
            } else {
                #expect(rows.width >= min(header.width, 2 * target.minimumWidth) && rows.width <= header.width, "\(format) at \(target): \(rows.width)")
                #expect(rows.height >= min(header.height, 2 * target.minimumHeight) && rows.height <= header.height, "\(format) at \(target): \(rows.height)")
            }
            if format.shrink.isEmpty {
                #expect((rows.width, rows.height) == (header.width, header.height), "\(format) declares no shrink")
            }
            var count = 0
            while let row = try rows.nextRow() {
                #expect(row.count == rows.width * rows.rowFormat.bytesPerPixel)
                count += 1
            }
            #expect(count == rows.height, "\(format) at \(target)")
            #expect(rows.trailingProblem == nil, "\(format): \(rows.trailingProblem?.reason ?? "")")
        }
    }

    /// A truncated copy at several cut points never crashes and never hangs, and either draws
    /// what arrived or is skipped with a one-line reason naming the file: run as a user would.
    @Test(arguments: formats)
    func truncatedCopiesAreDrawnOrSkippedWithAReason(format: ImageFormat) throws {
        let sample = try Self.sample(format).bytes
        let folder = TemporaryFolder("conformance-cut")
        try FileManager.default.createDirectory(atPath: folder.file("cut"), withIntermediateDirectories: true)
        let cuts = Set([0, 1, 7, 8, 12, 16, 33, sample.count / 4, sample.count / 2, sample.count * 3 / 4, sample.count - 1])
            .filter { $0 < sample.count }.sorted()
        let ext = format.folderExtensions[0]
        for cut in cuts {
            try Data(sample.prefix(cut)).write(to: URL(fileURLWithPath: folder.file("cut/\(cut)\(ext)")))
        }
        let run = try MasonryExecutable.run(["cut", "-o", "s.png", "--manifest", "m.json"], in: folder.path)
        // 0: something was drawn; 1: nothing could be (every cut skipped). Never a signal.
        #expect(run.status == 0 || run.status == 1, "\(format): status \(run.status): \(run.standardError)")
        let skipped = run.errorLines.filter { $0.hasPrefix("masonry: skipped ") }
        for line in skipped {
            #expect(line.range(of: #"^masonry: skipped cut/\d+\.\w+: \S.*$"#, options: .regularExpression) != nil, "\(line)")
        }
        var drawn = 0
        if run.status == 0, let data = FileManager.default.contents(atPath: folder.file("m.json")),
           let manifest = try JSONSerialization.jsonObject(with: data) as? [String: Any] {
            drawn = (manifest["items"] as? [[String: Any]])?.count ?? 0
        }
        let empty = cuts.contains(0) ? 1 : 0
        // Every cut is accounted for: drawn (with or without a warning), or skipped by name.
        let named = Set(skipped.compactMap { $0.split(separator: ":").dropFirst().first }.map(String.init))
        #expect(drawn + named.count >= cuts.count - empty, "\(format): \(drawn) drawn, \(named.count) skipped of \(cuts.count): \(run.standardError)")
        #expect(skipped.contains { $0.hasPrefix("masonry: skipped cut/0\(ext): ") }, "\(format): the empty file")
    }

    /// A file that is not the one the header pass read is noticed when its decoder opens: the
    /// table compares the decoder's header with the plan's, whatever the format.
    @Test(arguments: formats)
    func aFileChangedBetweenHeaderAndDecodeIsDetected(format: ImageFormat) throws {
        let sample = try Self.sample(format)
        let (_, header) = try ImageFormats.header(of: InputFile(path: sample.path), limits: DecodeLimits())
        let planned = SourceHeader(width: header.width + 1, height: header.height, orientation: header.orientation,
                                   frameCount: header.frameCount, decodedPixels: header.decodedPixels,
                                   wholePictureBytes: header.wholePictureBytes, color: header.color)
        #expect(throws: ImageError(.changedWhileReading)) {
            _ = try ImageFormats.decoder(for: InputFile(path: sample.path), format: format, expected: planned,
                                         limits: DecodeLimits(), minimumWidth: 8, minimumHeight: 8)
        }
        // The bytes replaced by another format's picture: the decoder refuses it.
        let other = try Self.sample(Self.formats.first { $0 != format }!)
        #expect(throws: ImageError.self) {
            _ = try ImageFormats.decoder(for: InputFile(path: other.path), format: format, expected: header,
                                         limits: DecodeLimits(), minimumWidth: 8, minimumHeight: 8)
        }
    }

    /// A FIFO and a folder named like the format are refused without blocking, as arguments and
    /// inside a scanned folder, while the real picture beside them is drawn.
    @Test(arguments: formats)
    func aFIFOOrAFolderNamedLikeTheFormatIsRefusedWithoutBlocking(format: ImageFormat) throws {
        let folder = TemporaryFolder("conformance-fifo")
        let ext = format.folderExtensions[0]
        try FileManager.default.createDirectory(atPath: folder.file("in/folder\(ext)"), withIntermediateDirectories: true)
        try #require(mkfifo(folder.file("in/pipe\(ext)"), 0o644) == 0)
        try Data(try Self.sample(format).bytes).write(to: URL(fileURLWithPath: folder.file("in/good\(ext)")))
        #expect(throws: ImageError(.notARegularFile(fileType: S_IFIFO))) { try InputFile(path: folder.file("in/pipe\(ext)")) }
        #expect(throws: ImageError(.notARegularFile(fileType: S_IFDIR))) { try InputFile(path: folder.file("in/folder\(ext)")) }
        let inFolder = try MasonryExecutable.run(["in", "-o", "s.png"], in: folder.path)
        #expect(inFolder.status == 0, "\(format): \(inFolder.standardError)")
        #expect(inFolder.errorLines.contains("masonry: skipped in/pipe\(ext): is a FIFO, not a regular file"), "\(inFolder.standardError)")
        #expect(inFolder.errorLines.last?.contains("1 image") == true, "\(inFolder.standardError)")
        let named = try MasonryExecutable.run(["in/pipe\(ext)", "in/good\(ext)", "-o", "s.png"], in: folder.path)
        #expect(named.status == 0, "\(format): \(named.standardError)")
        #expect(named.errorLines.contains("masonry: skipped in/pipe\(ext): is a FIFO, not a regular file"), "\(named.standardError)")
        #expect(named.errorLines.last?.contains("1 image") == true, "\(named.standardError)")
    }
}
