import CodecCore
import Foundation
@testable import MasonrySheet
import PNGCodec
import Testing
import TestSupport

/// Video poster frames (issue #30 §1) against FFmpeg's own: `ffmpeg -ss <10 % of the duration>
/// -i clip -frames:v 1`, autorotated, its sample aspect ratio applied (the first frame for a clip
/// under a second), made by scripts/make-video-fixtures.py into `Fixtures/Video/*.poster.png`.
@Suite struct VideoPosterTests {
    static let fixtures = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/Video")

    struct PosterCase: Sendable, CustomTestStringConvertible {
        let clip: String, width: Int, height: Int, seconds: Double
        var testDescription: String { clip }
    }

    static let posters: [PosterCase] = {
        let text = (try? String(contentsOf: fixtures.appendingPathComponent("posters.txt"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 4, let width = Int(fields[1]), let height = Int(fields[2]), let seconds = Double(fields[3]) else { return nil }
            return PosterCase(clip: String(fields[0]), width: width, height: height, seconds: seconds)
        }
    }()

    static let formatByExtension = ["mp4": "MP4", "mov": "MOV", "webm": "Matroska", "mkv": "Matroska", "avi": "AVI"]

    /// The header gives the shown shape (display matrix and sample aspect ratio applied) and the
    /// duration; the full-size poster, turned as shown, is within 35 dB of FFmpeg's.
    @Test(arguments: posters)
    func posterIsFFmpegsFrameAtATenthOfTheDuration(_ poster: PosterCase) throws {
        #expect(Self.posters.count == 8)
        let file = try InputFile(path: Self.fixtures.appendingPathComponent(poster.clip).path)
        let (format, header) = try ImageFormats.header(of: file, limits: DecodeLimits())
        #expect(format.name == Self.formatByExtension[String(poster.clip.split(separator: ".").last!)])
        #expect((header.displayWidth, header.displayHeight) == (poster.width, poster.height), "\(poster.clip)")
        #expect(header.durationSeconds == Int(poster.seconds.rounded()), "\(poster.clip)")
        let rows = try ImageFormats.decoder(for: file, format: format, expected: header, limits: DecodeLimits(),
                                            minimumWidth: 0, minimumHeight: 0)
        #expect((rows.width, rows.height) == (header.width, header.height))
        let ours = try tileOverWhite(rows, orientation: header.orientation, tileWidth: poster.width, tileHeight: poster.height)
        let reference = try goldenRGB(Self.fixtures.appendingPathComponent(poster.clip + ".poster.png").path)
        #expect((reference.width, reference.height) == (poster.width, poster.height))
        let decibels = psnr(ours, reference.rgb)
        TestLog.verbose("\(poster.clip): \(String(format: "%.2f", decibels)) dB against ffmpeg -ss")
        #expect(decibels >= 35, "\(poster.clip): \(decibels) dB")
    }

    static let hdrPosters: [PosterCase] = {
        let text = (try? String(contentsOf: fixtures.appendingPathComponent("hdr-posters.txt"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 4, let width = Int(fields[1]), let height = Int(fields[2]), let seconds = Double(fields[3]) else { return nil }
            return PosterCase(clip: String(fields[0]), width: width, height: height, seconds: seconds)
        }
    }()

    /// A PQ (HEVC in Matroska) and an HLG (VP9 in WebM) clip, 10-bit BT.2020: the poster is
    /// tone-mapped as FFmpeg's own filters do it (zimg to linear light of reference white
    /// 100 cd/m², BT.2020 → BT.709, `tonemap=hable:desat=0:peak=10`, sRGB), within 30 dB. The bar
    /// leaves room for the two paths' different chroma upsampling (swscale's bicubic against
    /// zimg's) on a 64×36 picture of fine detail (PQ: 37.3 dB), and for HLG's OOTF, which Masonry
    /// applies to the luminance as BT.2100 defines it and zimg to each component (32.3 dB; a
    /// NumPy model of each, fed the same 16-bit frame, gives 32.3 and 36.3 dB), and it discriminates: the
    /// frame drawn as if SDR (what Masonry did before, FFmpeg's `scale` to RGB) is under 25 dB
    /// from the reference (16 dB for PQ, 21 dB for HLG), washed out, and so is ours from it.
    @Test(arguments: hdrPosters)
    func hdrPosterIsToneMappedAsFFmpegsHableFilter(_ poster: PosterCase) throws {
        #expect(Self.hdrPosters.count == 2)
        let file = try InputFile(path: Self.fixtures.appendingPathComponent(poster.clip).path)
        let (format, header) = try ImageFormats.header(of: file, limits: DecodeLimits())
        #expect(format.name == "Matroska")
        #expect((header.displayWidth, header.displayHeight) == (poster.width, poster.height), "\(poster.clip)")
        let rows = try ImageFormats.decoder(for: file, format: format, expected: header, limits: DecodeLimits(),
                                            minimumWidth: 0, minimumHeight: 0)
        let ours = try tileOverWhite(rows, orientation: header.orientation, tileWidth: poster.width, tileHeight: poster.height)
        let reference = try goldenRGB(Self.fixtures.appendingPathComponent(poster.clip + ".poster.png").path)
        let asSDR = try goldenRGB(Self.fixtures.appendingPathComponent(poster.clip + ".as-sdr.png").path)
        #expect((reference.width, reference.height) == (poster.width, poster.height))
        #expect((asSDR.width, asSDR.height) == (poster.width, poster.height))
        let decibels = psnr(ours, reference.rgb), washedOut = psnr(asSDR.rgb, reference.rgb)
        TestLog.verbose("\(poster.clip): \(String(format: "%.2f", decibels)) dB against FFmpeg's tonemap=hable, "
                        + "\(String(format: "%.2f", washedOut)) dB drawn as SDR")
        #expect(decibels >= 30, "\(poster.clip): \(decibels) dB")
        #expect(washedOut < 25, "\(poster.clip): the SDR drawing is \(washedOut) dB from the tone-mapped one")
        #expect(psnr(ours, asSDR.rgb) < 25, "\(poster.clip): drawn as if SDR")
    }

    /// Drawn on a sheet: the manifest names the container, the frames and the duration; the
    /// caption's `{duration}` is the clock; the play mark is in the poster's bottom-left corner
    /// and nowhere else, and `--no-video-badge` leaves it out.
    @Test func theSheetShowsFormatFramesDurationAndAPlayMark() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("in"), withIntermediateDirectories: true)
        for clip in ["rotated.mp4", "clip.mov"] {
            try FileManager.default.copyItem(atPath: Self.fixtures.appendingPathComponent(clip).path, toPath: folder.file("in/" + clip))
        }
        let common = ["in", "--width", "400", "--columns", "2", "--caption", "{name} {duration}", "--background", "#ffffff"]
        let marked = try MasonryExecutable.run(common + ["-o", "marked.png", "--manifest", "m.json"], in: folder.path)
        #expect(marked.status == 0, "\(marked.standardError)")
        let plain = try MasonryExecutable.run(common + ["-o", "plain.png", "--no-video-badge"], in: folder.path)
        #expect(plain.status == 0, "\(plain.standardError)")
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.file("m.json")))) as? [String: Any]
        let items = try #require(manifest?["items"] as? [[String: Any]])
        try #require(items.count == 2)
        let byPath = Dictionary(uniqueKeysWithValues: items.map { ($0["path"] as? String ?? "", $0) })
        let mov = try #require(byPath["in/clip.mov"]), mp4 = try #require(byPath["in/rotated.mp4"])
        #expect(mov["format"] as? String == "MOV" && mov["frames"] as? Int == 30 && mov["duration"] as? Int == 3)
        #expect(mp4["format"] as? String == "MP4" && mp4["frames"] as? Int == 20 && mp4["duration"] as? Int == 2)
        #expect((mp4["sourceWidth"] as? Int, mp4["sourceHeight"] as? Int) == (48, 64))
        #expect((mov["caption"] as? [String: Any])?["text"] as? String == "clip.mov 0:03")
        #expect((mp4["caption"] as? [String: Any])?["text"] as? String == "rotated.mp4 0:02")

        let withMark = try PNGDecoder.decodeRGBA(contentsOfFile: folder.file("marked.png"))
        let without = try PNGDecoder.decodeRGBA(contentsOfFile: folder.file("plain.png"))
        try #require((withMark.width, withMark.height) == (without.width, without.height))
        let squares = try items.map { item throws -> (x: Int, y: Int, width: Int, height: Int) in
            let image = try #require(item["image"] as? [String: Int])
            return PlayMarkPainter.square(in: (image["x"]!, image["y"]!, image["width"]!, image["height"]!))
        }
        var differing = 0
        for y in 0..<withMark.height {
            for x in 0..<withMark.width {
                let at = (y * withMark.width + x) * 4
                guard withMark.pixels[at..<(at + 3)] != without.pixels[at..<(at + 3)] else { continue }
                differing += 1
                #expect(squares.contains { x >= $0.x && x < $0.x + $0.width && y >= $0.y && y < $0.y + $0.height }, "(\(x), \(y))")
            }
        }
        #expect(differing > 0)
        for square in squares {
            // The triangle's widest row, just right of its base: white over the poster.
            let at = ((square.y + square.height / 2) * withMark.width + square.x + square.width * 3 / 8 + 1) * 4
            #expect(withMark.pixels[at..<(at + 3)].allSatisfy { $0 >= 200 }, "\(Array(withMark.pixels[at..<(at + 3)]))")
            // Its backing darkens the corner.
            let corner = ((square.y + 1) * withMark.width + square.x + 1) * 4, same = ((square.y + 1) * without.width + square.x + 1) * 4
            #expect(Int(withMark.pixels[corner]) < Int(without.pixels[same]) || without.pixels[same] < 40)
        }
    }

    /// Hostile videos are skipped by name with one exact reason each, FFmpeg opening nothing,
    /// in bounded time, while a good clip beside them is drawn.
    @Test func hostileVideosAreSkippedWithTheirReasons() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("in"), withIntermediateDirectories: true)
        let good = try [UInt8](Data(contentsOf: Self.fixtures.appendingPathComponent("rotated.mp4")))
        func write(_ bytes: [UInt8], _ name: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: folder.file("in/" + name))) }
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { be32(8 + payload.count) + Array(type.utf8) + payload }
        func be32(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        let ftyp = box("ftyp", Array("isom".utf8) + be32(512) + Array("isommp41".utf8))
        try write(good, "good.mp4")
        try write(Array("#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\nfile:///etc/passwd\n#EXT-X-ENDLIST\n".utf8), "playlist.mp4")
        try write(Array(good.prefix(good.count / 2)), "half.mp4")
        try write(ftyp + box("moov", be32(4) + Array("trak".utf8)), "loop.mp4")
        try write(ftyp + be32(1) + Array("moov".utf8) + [0x40, 0, 0, 0, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 64), "huge.mp4")
        try write(ftyp + box("moov", (0..<10_000).flatMap { _ in box("trak", []) }), "streams.mp4")
        try FileManager.default.copyItem(atPath: Self.fixtures.appendingPathComponent("many-streams.mkv").path, toPath: folder.file("in/many.mkv"))
        try write(Array("RIFF\u{10}\0\0\0AVI LIST".utf8) + [0xFF, 0xFF, 0xFF, 0xFF], "bad.avi")
        let started = Date()
        let run = try MasonryExecutable.run(["in", "-o", "s.png"], in: folder.path)
        #expect(Date().timeIntervalSince(started) < 20)
        #expect(run.status == 0, "\(run.standardError)")
        let skipped = Set(run.errorLines.filter { $0.hasPrefix("masonry: skipped ") })
        #expect(skipped == [
            "masonry: skipped in/playlist.mp4: not \(ImageFormats.namesForMessages) file",
            "masonry: skipped in/half.mp4: malformed MP4 file: box 'mdat' claims \(Self.mdatSize(good)) bytes, past the end of its parent",
            "masonry: skipped in/loop.mp4: malformed MP4 file: box 'trak' claims 4 bytes, less than its header",
            "masonry: skipped in/huge.mp4: malformed MP4 file: box 'moov' claims 4611686018427387904 bytes, past the end of its parent",
            "masonry: skipped in/streams.mp4: MP4 file has more than 64 tracks",
            "masonry: skipped in/many.mkv: Matroska file has more than 64 tracks",
            "masonry: skipped in/bad.avi: malformed AVI file: chunk 'LIST' at byte 12 claims 4294967295 bytes, past the end of its parent",
        ], "\(run.standardError)")
        #expect(run.errorLines.last?.contains("1 image, 7 skipped") == true, "\(run.standardError)")
    }

    /// A QuickTime data reference (a Mac alias record, which FFmpeg's `mov` demuxer reads as a
    /// path) naming a FIFO beside the file: FFmpeg is never allowed to open it (Masonry's
    /// `io_open` refuses every file and FFmpeg's `enable_drefs` stays off). Were the FIFO opened,
    /// the open would block for ever, with no writer: the run must end, within a bound.
    @Test func aDataReferenceToAFIFOOpensNothing() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("in"), withIntermediateDirectories: true)
        let fifo = folder.file("in/reference.fifo")
        try #require(mkfifo(fifo, 0o644) == 0)
        var clip = try [UInt8](Data(contentsOf: Self.fixtures.appendingPathComponent("clip.mov")))
        func be(_ value: Int, _ bytes: Int) -> [UInt8] { (0..<bytes).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        func size(at offset: Int) -> Int { clip[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) } }
        // The boxes from `moov` down to `dref` (the clip's `moov` follows its `mdat`, so no chunk
        // offset moves when they grow).
        var chain: [Int] = []
        var at = 0, end = clip.count
        for wanted in ["moov", "trak", "mdia", "minf", "dinf", "dref"] {
            while at + 8 <= end, String(decoding: clip[(at + 4)..<(at + 8)], as: UTF8.self) != wanted { at += size(at: at) }
            try #require(at + 8 <= end, "clip.mov has no '\(wanted)'")
            chain.append(at)
            end = at + size(at: at)
            at += wanted == "dref" ? 16 : 8
        }
        // One 'alis' entry: FFmpeg's layout of an alias record, then an absolute-path record.
        let path = Array(fifo.utf8) + (fifo.utf8.count % 2 == 1 ? [0] : [])
        var alias = be(0, 4) + be(0, 10) + [4] + Array("Disk".utf8) + [UInt8](repeating: 0, count: 23) + be(0, 12)
        alias += [14] + Array("reference.fifo".utf8) + [UInt8](repeating: 0, count: 49) + be(0, 16) + be(1, 2) + be(1, 2) + be(0, 16)
        alias += be(2, 2) + be(path.count, 2) + path + be(0xFFFF, 2) + be(0, 2)
        let entry = be(8 + alias.count, 4) + Array("alis".utf8) + alias
        let dref = chain.last!
        let replaced = be(16 + entry.count, 4) + Array("dref".utf8) + be(0, 4) + be(1, 4) + entry
        let delta = replaced.count - size(at: dref)
        for box in chain.dropLast() { clip.replaceSubrange(box..<(box + 4), with: be(size(at: box) + delta, 4)) }
        clip.replaceSubrange(dref..<(dref + size(at: dref)), with: replaced)
        try Data(clip).write(to: URL(fileURLWithPath: folder.file("in/reference.mov")))

        let (process, output, error) = try MasonryExecutable.start(["in/reference.mov", "-o", "s.png"], in: folder.path)
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        let hung = process.isRunning
        if hung { process.terminate() }
        process.waitUntilExit()
        _ = output.fileHandleForReading.readDataToEndOfFile()
        let message = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(!hung, "masonry still ran after 20 s: FFmpeg opened the FIFO the data reference names")
        #expect(message.contains("reference.mov") && !message.contains("\n\n"), "\(message)")
    }

    /// The size the clip's `mdat` box claims, from a walk of its top-level boxes.
    static func mdatSize(_ bytes: [UInt8]) -> Int {
        var at = 0
        while at + 8 <= bytes.count {
            let size = bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
            if String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self) == "mdat" { return size }
            at += max(8, size)
        }
        return -1
    }

    /// A zero duration (mvhd and mdhd) is an unknown one: the first frame is the poster, drawn.
    @Test func aClipOfZeroDurationIsDrawnFromItsFirstFrame() throws {
        var bytes = try [UInt8](Data(contentsOf: Self.fixtures.appendingPathComponent("rotated.mp4")))
        for name in ["mvhd", "mdhd"] {
            let at = try #require((0..<(bytes.count - 4)).first { String(decoding: bytes[$0..<($0 + 4)], as: UTF8.self) == name })
            #expect(bytes[at + 4] == 0)   // version 0: the duration after flags, two times and the time scale
            bytes.replaceSubrange((at + 20)..<(at + 24), with: [0, 0, 0, 0])
        }
        let folder = TemporaryFolder()
        try Data(bytes).write(to: URL(fileURLWithPath: folder.file("zero.mp4")))
        let file = try InputFile(path: folder.file("zero.mp4"))
        let (format, header) = try ImageFormats.header(of: file, limits: DecodeLimits())
        #expect(header.durationSeconds == nil)
        let rows = try ImageFormats.decoder(for: file, format: format, expected: header, limits: DecodeLimits(), minimumWidth: 0, minimumHeight: 0)
        var count = 0
        while try rows.nextRow() != nil { count += 1 }
        #expect(count == 48)
    }

    /// HEIF, AVIF and the videos share ISOBMFF: the brands decide. A HEIC that also names
    /// `isom` stays HEIF; an MP4 that also names `mif1` becomes HEIF's (the video entries are the
    /// family's catch-all); an MP4 of major brand `qt  ` is MOV; WebM and MKV DocTypes are Matroska.
    @Test func isobmffBrandsAndEBMLDocTypesDecideTheEntry() throws {
        let samples = FormatTableTests.samples
        func prefix(_ name: String) throws -> [UInt8] {
            Array(try [UInt8](Data(contentsOf: samples.appendingPathComponent(name))).prefix(ImageFormats.detectionPrefixBytes))
        }
        func replacingBrand(_ bytes: [UInt8], at offset: Int, with brand: String) -> [UInt8] {
            var changed = bytes
            changed.replaceSubrange(offset..<(offset + 4), with: Array(brand.utf8))
            return changed
        }
        let heic = try prefix("sample.heic"), mp4 = try prefix("sample.mp4")
        // The last compatible brand of each ftyp (its size is in its first four bytes).
        let heicLast = Int(heic[3]) - 4, mp4Last = Int(mp4[3]) - 4
        #expect(try ImageFormats.format(ofPrefix: replacingBrand(heic, at: heicLast, with: "isom")) == ImageFormats.heif)
        #expect(try ImageFormats.format(ofPrefix: mp4) == ImageFormats.mp4)
        #expect(try ImageFormats.format(ofPrefix: replacingBrand(mp4, at: mp4Last, with: "mif1")) == ImageFormats.heif)
        #expect(try ImageFormats.format(ofPrefix: replacingBrand(mp4, at: 8, with: "qt  ")) == ImageFormats.mov)
        #expect(try ImageFormats.format(ofPrefix: prefix("sample.mov")) == ImageFormats.mov)
        let webm = Array(try [UInt8](Data(contentsOf: Self.fixtures.appendingPathComponent("vp9.webm"))).prefix(64))
        let mkv = try prefix("sample.mkv")
        #expect(String(decoding: webm, as: UTF8.self).contains("webm") && String(decoding: mkv, as: UTF8.self).contains("matroska"))
        #expect(try ImageFormats.format(ofPrefix: webm) == ImageFormats.matroska)
        #expect(try ImageFormats.format(ofPrefix: mkv) == ImageFormats.matroska)
        // An EBML file of another DocType is no format of the table.
        let other = replacingBrand(mkv, at: try #require((0..<60).first { mkv[$0..<($0 + 4)] == ArraySlice("matr".utf8) }), with: "xxxx")
        #expect(throws: ImageError(.malformed, "not \(ImageFormats.namesForMessages) file")) { try ImageFormats.format(ofPrefix: other) }
    }
}
