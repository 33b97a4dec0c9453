import CodecCore
import Foundation
@testable import MasonrySheet
import Testing
import TestSupport
import VideoCodec

/// Masonry's own container readers (issue #30): MP4/MOV boxes, Matroska/WebM EBML and AVI RIFF,
/// read without FFmpeg, against ffprobe's reading of the same files (`Fixtures/Video/headers.txt`,
/// written by scripts/make-video-fixtures.py), and hostile containers refused with exact reasons.
@Suite struct VideoHeaderTests {
    static let fixtures = Bundle.module.resourceURL!.appendingPathComponent("Fixtures")

    struct ProbedHeader: Sendable, CustomTestStringConvertible {
        let path: String, width: Int, height: Int, aspect: [Int], rotation: Int, microseconds: Int, frames: Int, transfer: Int
        var testDescription: String { path }
    }

    static let probed: [ProbedHeader] = {
        let text = (try? String(contentsOf: fixtures.appendingPathComponent("Video/headers.txt"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count == 8 else { return nil }
            let numbers = [1, 2, 4, 5, 6, 7].compactMap { Int(fields[$0]) }, aspect = fields[3].split(separator: ":").compactMap { Int($0) }
            guard numbers.count == 6, aspect.count == 2 else { return nil }
            return ProbedHeader(path: fields[0], width: numbers[0], height: numbers[1], aspect: aspect, rotation: numbers[2],
                                microseconds: numbers[3], frames: numbers[4], transfer: numbers[5])
        }
    }()

    /// Coded size, sample aspect ratio, clockwise rotation, duration (to the microsecond), frame
    /// count and transfer characteristics (none from AVI) as ffprobe says, for every video
    /// fixture of the four containers (Matroska turned by `Projection` poses too); a PQ or HLG
    /// one counts its 16-bit frames in memory; and FFmpeg's demuxer agrees when it decodes it.
    @Test(arguments: probed)
    func ownHeaderReadsWhatFFprobeReads(_ probe: ProbedHeader) throws {
        #expect(Self.probed.count == 20)
        let file = try InputFile(path: Self.fixtures.appendingPathComponent(probe.path).path)
        let prefix = try [UInt8](Data(contentsOf: Self.fixtures.appendingPathComponent(probe.path)).prefix(VideoContainer.signaturePrefixBytes))
        let container = try #require(VideoContainer(prefix: prefix))
        let header = try VideoHeader(file: file, container: container)
        #expect((header.codedWidth, header.codedHeight) == (probe.width, probe.height))
        #expect([header.sampleAspectNumerator, header.sampleAspectDenominator] == probe.aspect)
        #expect(header.rotation == probe.rotation)
        let microseconds = try #require(header.durationMicroseconds)
        #expect(abs(microseconds - probe.microseconds) <= 1, "\(microseconds) µs, ffprobe \(probe.microseconds) µs")
        #expect(header.frameCount == probe.frames)
        #expect(header.transfer ?? 0 == probe.transfer)
        let (format, source) = try ImageFormats.header(of: file, limits: DecodeLimits())
        #expect(source.wholePictureBytes == probe.width * probe.height * (probe.transfer == 16 || probe.transfer == 18 ? 58 : 28))
        // FFmpeg, opening the file to decode it, finds the size, turn and aspect the own reader found.
        let rows = try ImageFormats.decoder(for: file, format: format, expected: source, limits: DecodeLimits(), minimumWidth: 8, minimumHeight: 8)
        #expect(try rows.nextRow() != nil)
    }

    /// A version 1 `mvhd`'s 64-bit duration over a timescale of 1 (the track's `mdhd` giving
    /// none) is past Int's microseconds: unknown, not a trap (the fuzzer's video-header finding).
    @Test func aDurationPastIntsMicrosecondsIsUnknown() throws {
        var mp4 = try [UInt8](Data(contentsOf: Self.fixtures.appendingPathComponent("Formats/sample.mp4")))
        func at(_ type: String) throws -> Int {
            try #require((0..<(mp4.count - 4)).first { mp4[$0..<($0 + 4)] == ArraySlice(type.utf8) }) + 4
        }
        func put(_ value: UInt64, bytes: Int, at offset: Int) {
            for k in 0..<bytes { mp4[offset + k] = UInt8(truncatingIfNeeded: value >> (8 * (bytes - 1 - k))) }
        }
        let mvhd = try at("mvhd"), mdhd = try at("mdhd")
        put(0, bytes: 4, at: mdhd + 16)                    // the track's duration: none
        mp4[mvhd] = 1                                      // version 1: 64-bit times
        put(1, bytes: 4, at: mvhd + 20)                    // a tick a second
        put(UInt64(Int64.max), bytes: 8, at: mvhd + 24)    // 2⁶³ − 1 seconds
        let folder = TemporaryFolder()
        try Data(mp4).write(to: URL(fileURLWithPath: folder.file("long.mp4")))
        let header = try MP4Header(file: InputFile(path: folder.file("long.mp4")), container: .mp4)
        #expect(header.durationMicroseconds == nil)
        #expect((header.codedWidth, header.codedHeight) == (48, 32))
    }

    /// An AVI whose `vprp` makes its pixels 65535 × (2³² − 1) times as wide as tall, on a
    /// 100000-pixel BITMAPINFOHEADER: the shown width passes Int's range, and saturates so that
    /// the limits refuse it (it trapped: the round-4 fuzz campaign's video-decode finding).
    @Test func aShownWidthPastIntsRangeIsRefusedByTheLimits() throws {
        var avi = try [UInt8](Data(contentsOf: Self.fixtures.appendingPathComponent("Formats/sample.avi")))
        func payload(_ type: String) throws -> Int {
            try #require((0..<(avi.count - 4)).first { avi[$0..<($0 + 4)] == ArraySlice(type.utf8) }) + 8
        }
        func put(_ value: UInt32, at offset: Int) {
            for k in 0..<4 { avi[offset + k] = UInt8(truncatingIfNeeded: value >> (8 * k)) }
        }
        let strf = try payload("strf"), vprp = try payload("vprp")
        put(100_000, at: strf + 4)        // biWidth
        put(0xFFFF_0001, at: vprp + 20)   // dwFrameAspectRatio 65535:1
        put(1, at: vprp + 24)             // the active frame: 1 wide,
        put(0xFFFF_FFFF, at: vprp + 28)   // 2³² − 1 tall
        let folder = TemporaryFolder()
        try Data(avi).write(to: URL(fileURLWithPath: folder.file("wide.avi")))
        let file = try InputFile(path: folder.file("wide.avi"))
        let header = try VideoHeader(file: file, container: .avi)
        #expect(header.width == .max && header.height == 32)
        // The sheet keeps sides in 32 bits: the refusal names the width saturated there.
        #expect(throws: ImageError(.pixelLimit(width: Int(UInt32.max), height: 32, limit: DecodeLimits.defaultMaxPixels))) {
            _ = try ImageFormats.header(of: file, limits: DecodeLimits())
        }
    }

    // EBML: an element is its ID, a size (written as an 8-byte variable-size integer) and its payload.
    static func element(_ id: [UInt8], _ payload: [UInt8]) -> [UInt8] {
        id + [0x01] + (0..<7).reversed().map { UInt8(truncatingIfNeeded: payload.count >> (8 * $0)) } + payload
    }
    static let ebmlHeader = element([0x1A, 0x45, 0xDF, 0xA3], element([0x42, 0x82], Array("webm".utf8)))
    static let segmentID: [UInt8] = [0x18, 0x53, 0x80, 0x67]
    static let info = element([0x15, 0x49, 0xA9, 0x66], element([0x2A, 0xD7, 0xB1], [0x0F, 0x42, 0x40]))
    static let videoTrack = element([0xAE], element([0x83], [1]) + element([0x86], Array("V_VP9".utf8))
                                    + element([0xE0], element([0xB0], [64]) + element([0xBA], [48])))
    static func tracks(_ entries: [UInt8]) -> [UInt8] { element([0x16, 0x54, 0xAE, 0x6B], entries) }

    /// A DocType that is neither Matroska's nor WebM's is quoted in the reason as printable ASCII,
    /// 32 bytes at most (the source-header fuzz target found a control byte copied into it).
    @Test func anUnknownDocTypeIsQuotedPrintably() throws {
        func refusal(_ docType: [UInt8]) -> ImageError? {
            let header = Self.element([0x1A, 0x45, 0xDF, 0xA3], Self.element([0x42, 0x82], docType))
            do {
                _ = try MatroskaHeader(bytes: header + Self.element(Self.segmentID, Self.info + Self.tracks(Self.videoTrack)))
                return nil
            } catch {
                return error
            }
        }
        #expect(refusal([0x02]) == ImageError(.malformed, "malformed Matroska file: DocType '?' is neither matroska nor webm"))
        #expect(refusal(Array("mkv\u{1B}[2J".utf8)) == ImageError(.malformed, "malformed Matroska file: DocType 'mkv?[2J' is neither matroska nor webm"))
        #expect(refusal([UInt8](repeating: 0x61, count: 40))
                == ImageError(.malformed, "malformed Matroska file: DocType '\(String(repeating: "a", count: 32))…' is neither matroska nor webm"))
        #expect(refusal(Array("webm".utf8)) == nil)
    }

    /// A file written live puts its SeekHead first and Info and Tracks after the Clusters: the
    /// SeekHead's positions find them; DisplayWidth × DisplayHeight 16 × 9 of a 64 × 48 picture
    /// is FFmpeg's sample aspect ratio 48·16 : 64·9 = 4:3; Colour's transfer is kept.
    @Test func infoAndTracksAfterTheClusterAreFoundThroughTheSeekHead() throws {
        func position(_ value: Int) -> [UInt8] { (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        let seconds = Self.element([0x44, 0x89], withUnsafeBytes(of: Double(2000).bitPattern.bigEndian, Array.init))
        let info = Self.element([0x15, 0x49, 0xA9, 0x66], Self.element([0x2A, 0xD7, 0xB1], [0x0F, 0x42, 0x40]) + seconds)
        let video = Self.element([0xE0], Self.element([0xB0], [64]) + Self.element([0xBA], [48]) + Self.element([0x54, 0xB0], [16])
                                 + Self.element([0x54, 0xBA], [9]) + Self.element([0x55, 0xB0], Self.element([0x55, 0xBA], [16])))
        let tracks = Self.tracks(Self.element([0xAE], Self.element([0x83], [1]) + Self.element([0x86], Array("V_VP9".utf8)) + video))
        let cluster = Self.element([0x1F, 0x43, 0xB6, 0x75], Self.element([0xE7], [0]))
        func seekHead(info at: Int, tracks tracksAt: Int) -> [UInt8] {
            Self.element([0x11, 0x4D, 0x9B, 0x74],
                         Self.element([0x4D, 0xBB], Self.element([0x53, 0xAB], [0x15, 0x49, 0xA9, 0x66]) + Self.element([0x53, 0xAC], position(at)))
                         + Self.element([0x4D, 0xBB], Self.element([0x53, 0xAB], [0x16, 0x54, 0xAE, 0x6B]) + Self.element([0x53, 0xAC], position(tracksAt))))
        }
        let headSize = seekHead(info: 0, tracks: 0).count
        let segment = seekHead(info: headSize + cluster.count, tracks: headSize + cluster.count + info.count) + cluster + info + tracks
        let header = try MatroskaHeader(bytes: Self.ebmlHeader + Self.element(Self.segmentID, segment))
        #expect((header.codedWidth, header.codedHeight) == (64, 48))
        #expect(header.sampleAspect == (4, 3))
        #expect(header.durationMicroseconds == 2_000_000)
        #expect(header.transfer == 16)
        #expect(header.codec == "V_VP9" && header.trackCount == 1)
    }

    /// Hostile Matroska and AVI files are skipped by name with one exact reason each, before
    /// FFmpeg is loaded (a header FFmpeg then contradicts, when it decodes), while a good clip
    /// of each container beside them is drawn.
    @Test func hostileMatroskaAndAVIFilesAreSkippedWithTheirReasons() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("in"), withIntermediateDirectories: true)
        func write(_ bytes: [UInt8], _ name: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: folder.file("in/" + name))) }
        for clip in ["clip.mkv", "mpeg4.avi"] {
            try FileManager.default.copyItem(atPath: Self.fixtures.appendingPathComponent("Video/" + clip).path, toPath: folder.file("in/" + clip))
        }
        let header = Self.ebmlHeader, segmentAt = Self.ebmlHeader.count
        let good = Self.element(Self.segmentID, Self.info + Self.tracks(Self.videoTrack))
        try write(header + good.dropLast(10), "truncated.mkv")
        try write(header + Self.segmentID + [0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE] + [UInt8](repeating: 0, count: 32), "huge.mkv")
        try write(header + Self.segmentID + [0x00, 0x01, 0x02, 0x03], "vint.mkv")
        try write(header + Self.element(Self.segmentID, Self.info + Self.tracks((0..<10_000).flatMap { _ in Self.element([0xAE], []) })),
                  "tracks.mkv")
        // A SeekHead whose one entry points at itself, then a Cluster before any Info or Tracks.
        let seek = Self.element([0x4D, 0xBB], Self.element([0x53, 0xAB], [0x11, 0x4D, 0x9B, 0x74]) + Self.element([0x53, 0xAC], [0]))
        let cluster = Self.element([0x1F, 0x43, 0xB6, 0x75], Self.element([0xE7], [0]))
        try write(header + Self.element(Self.segmentID, Self.element([0x11, 0x4D, 0x9B, 0x74], seek) + cluster), "loop.mkv")
        try write(header + Self.element(Self.segmentID, [0x15, 0x49, 0xA9, 0x66, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF] + Self.tracks(Self.videoTrack)),
                  "unknown.mkv")
        try FileManager.default.copyItem(atPath: Self.fixtures.appendingPathComponent("Video/many-streams.mkv").path, toPath: folder.file("in/many.mkv"))
        // clip.mkv claiming a PixelWidth of 80: the header passes, FFmpeg reads the stream's 64.
        var wrongSize = try [UInt8](Data(contentsOf: Self.fixtures.appendingPathComponent("Video/clip.mkv")))
        let pixelWidth = try #require((0..<(wrongSize.count - 3)).first { wrongSize[$0..<($0 + 3)] == [0xB0, 0x81, 64] })
        wrongSize[pixelWidth + 2] = 80
        try write(wrongSize, "wrong-size.mkv")

        let avi = try [UInt8](Data(contentsOf: Self.fixtures.appendingPathComponent("Formats/sample.avi")))
        func offset(of type: String) throws -> Int {
            try #require((0..<(avi.count - 4)).first { avi[$0..<($0 + 4)] == ArraySlice(type.utf8) })
        }
        func patched(_ at: Int, _ value: UInt32) -> [UInt8] {
            var bytes = avi
            bytes.replaceSubrange(at..<(at + 4), with: (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) })
            return bytes
        }
        let avih = try offset(of: "avih"), strh = try offset(of: "strh")
        let headerListSize = avi[16..<20].reversed().reduce(0) { $0 << 8 | Int($1) }
        try write(patched(avih + 8 + 24, 3), "streams.avi")
        try write(patched(strh + 4, 0x7FFF_FFFF), "past.avi")
        try write(Array(avi.prefix(100)), "cut.avi")
        try write(Array("RIFF\u{10}\0\0\0AVI LIST".utf8) + [0xFF, 0xFF, 0xFF, 0xFF], "bad.avi")

        let run = try MasonryExecutable.run(["in", "-o", "s.png"], in: folder.path)
        #expect(run.status == 0, "\(run.standardError)")
        let skipped = Set(run.errorLines.filter { $0.hasPrefix("masonry: skipped ") })
        #expect(skipped == [
            "masonry: skipped in/truncated.mkv: malformed Matroska file: element 0x18538067 at byte \(segmentAt) claims \(good.count - 12) bytes, past the end of its parent",
            "masonry: skipped in/huge.mkv: malformed Matroska file: element 0x18538067 at byte \(segmentAt) claims 72057594037927934 bytes, past the end of its parent",
            "masonry: skipped in/vint.mkv: malformed Matroska file: element size at byte \(segmentAt + 4) is longer than 8 bytes",
            "masonry: skipped in/tracks.mkv: Matroska file has more than 64 tracks",
            "masonry: skipped in/loop.mkv: malformed Matroska file: the SeekHead entries loop back to the SeekHead at byte \(segmentAt + 12)",
            "masonry: skipped in/unknown.mkv: malformed Matroska file: element 0x1549A966 at byte \(segmentAt + 12) has an unknown size, which only a Segment or a Cluster may have",
            "masonry: skipped in/many.mkv: Matroska file has more than 64 tracks",
            "masonry: skipped in/wrong-size.mkv: malformed Matroska file: FFmpeg reads 64×48 turned 0° with pixels 1:1 "
                + "where the header says 80×48 turned 0° with pixels 1:1",
            "masonry: skipped in/streams.avi: malformed AVI file: 'avih' counts 3 streams where 'hdrl' has 1 'strl' lists",
            "masonry: skipped in/past.avi: malformed AVI file: chunk 'strh' at byte \(strh) claims 2147483647 bytes, past the end of its parent",
            "masonry: skipped in/cut.avi: malformed AVI file: chunk 'LIST' at byte 12 claims \(headerListSize) bytes, past the end of its parent",
            "masonry: skipped in/bad.avi: malformed AVI file: chunk 'LIST' at byte 12 claims 4294967295 bytes, past the end of its parent",
        ], "\(run.standardError)")
        #expect(run.errorLines.last?.contains("2 images, 12 skipped") == true, "\(run.standardError)")
    }
}
