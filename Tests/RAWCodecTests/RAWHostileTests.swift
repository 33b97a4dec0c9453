// Hostile RAWs made from a fixture byte by byte: each is refused with its one-line reason, from
// the header, before LibRaw sees a byte.
import Foundation
import CodecCore
import RAWCodec
import Testing

/// A little-endian DNG's directories, to patch.
struct DNGBytes {
    var bytes: [UInt8]

    func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
    func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
    mutating func set32(_ at: Int, _ value: Int) {
        for k in 0 ..< 4 { bytes[at + k] = UInt8(truncatingIfNeeded: value >> (8 * k)) }
    }
    var ifd0: Int { u32(4) }
    /// Where `tag`'s entry is in the directory at `ifd`.
    func entry(_ tag: Int, in ifd: Int) -> Int {
        let count = u16(ifd)
        for index in 0 ..< count where u16(ifd + 2 + 12 * index) == tag { return ifd + 2 + 12 * index }
        fatalError("no tag \(tag) in the directory at \(ifd)")
    }
    /// The SubIFDs' offsets of IFD0.
    var subIFDs: [Int] {
        let at = entry(330, in: ifd0), count = u32(at + 4)
        let values = count == 1 ? at + 8 : u32(at + 8)
        return (0 ..< count).map { u32(values + 4 * $0) }
    }
    func nextField(of ifd: Int) -> Int { ifd + 2 + 12 * u16(ifd) }
}

func headerError(_ bytes: [UInt8]) -> String? {
    do {
        _ = try RAWHeader(bytes: bytes)
        return nil
    } catch {
        return error.reason
    }
}

@Suite struct RAWHostileTests {
    let original = DNGBytes(bytes: try! fixtureFolder.bytes("rggb-preview-full.dng"))

    @Test func aPreviewLengthPointingPastTheFileIsRefused() {
        var dng = original
        let counts = dng.entry(279, in: dng.ifd0)
        let start = dng.u32(dng.entry(273, in: dng.ifd0) + 8)
        dng.set32(counts + 8, 0x7FFF_0000)
        #expect(headerError(dng.bytes)
                == "RAW preview at offset \(start) claims \(0x7FFF_0000) bytes, past the end of the file (\(dng.bytes.count) bytes)")
    }

    @Test func aLoopInTheDirectoriesIsRefused() {
        var dng = original
        let sensor = dng.subIFDs.last!
        dng.set32(dng.nextField(of: sensor), dng.ifd0)
        #expect(headerError(dng.bytes) == "loop in the RAW file's image directories (directory 4 points back to an earlier one)")
    }

    @Test func aDirectoryClaimingMoreEntriesThanTheFileHoldsIsRefused() {
        var dng = original
        let sensor = dng.subIFDs.last!
        dng.bytes[sensor] = 0xFF
        dng.bytes[sensor + 1] = 0xFF
        #expect(headerError(dng.bytes) == "TIFF image directory at offset \(sensor) claims 65535 entries, more than the file holds")
    }

    /// A claimed sensor too large to demosaic is read from the header and refused by the limits
    /// before LibRaw allocates; at 2³² − 1 on both sides the pixel count passes Int.max, and
    /// saturates instead of trapping (found in round 4's fuzz campaign).
    @Test(arguments: [(200_000, 150_000), (0xFFFF_FFFF, 0xFFFF_FFFF)])
    func aHugeClaimedSensorIsRefusedByTheLimitsBeforeLibRawAllocates(width: Int, height: Int) throws {
        var dng = original
        let sensor = dng.subIFDs.last!
        dng.set32(dng.entry(256, in: sensor) + 8, width)
        dng.set32(dng.entry(257, in: sensor) + 8, height)
        let header = try RAWHeader(bytes: dng.bytes)
        #expect(header.width == width && header.height == height)
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        #expect(header.sensorPixels == (overflow ? .max : pixels))
        #expect(DecodeLimits().refusal(width: header.width, height: header.height) != nil)
        #expect(header.demosaicBytes(fileSize: dng.bytes.count) > 512 << 20)
    }

    @Test func everyTruncationIsRefusedWithAReasonOrReadWhole() {
        // Cut inside the header, IFD0, the previews and the sensor data: never a crash.
        for cut in [0, 7, 8, 20, 100, 1000, 4000, 20_000, original.bytes.count - 1] {
            let bytes = Array(original.bytes.prefix(cut))
            if let reason = headerError(bytes) {
                #expect(!reason.isEmpty && !reason.contains("\n"), "cut at \(cut)")
            } else {
                // Both previews end before byte 4000; the sensor data is LibRaw's to find short.
                #expect(cut >= 4000, "cut at \(cut) read as whole")
            }
        }
        #expect(headerError(Array(original.bytes.prefix(7))) == "not a TIFF-structured or CR3 camera RAW file")
    }

    /// ExifTool's Phase One IIQ with its first directory emptied: LibRaw 0.20's Phase One parser
    /// then walks a metadata directory at the offset its "IIII" gives, past the end of the file,
    /// as 2^32 - 1 entries, for minutes (found by the source-header fuzz target). The bridge
    /// refuses the file before LibRaw sees it; the intact file still reaches LibRaw.
    @Test(.timeLimit(.minutes(1)))
    func aPhaseOneMetadataDirectoryPastTheEndIsRefusedBeforeLibRawWalksIt() throws {
        let workspace = FileManager.default.temporaryDirectory.appendingPathComponent("raw-hostile-p1-\(getpid())")
        try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: workspace) }
        // "IIII" at byte 8, then "CwaR", then the first directory's offset from byte 8.
        var iiq = DNGBytes(bytes: try fixtureFolder.bytes("exiftool/PhaseOne.iiq"))
        let path = workspace.appendingPathComponent("empty-directory.iiq").path
        try Data(iiq.bytes).write(to: URL(fileURLWithPath: path))
        #expect(try RAWHeader(file: InputFile(path: path)).width > 0)
        iiq.set32(8 + iiq.u32(16), 0)
        try Data(iiq.bytes).write(to: URL(fileURLWithPath: path))
        #expect(throws: ImageError(.malformed, "malformed Phase One metadata (its directory claims more entries than the file holds)")) {
            _ = try RAWHeader(file: InputFile(path: path))
        }
    }

    /// LibRaw 0.20 reads a 36-value CFAPattern met before a 6×6 CFARepeatPatternDim into a 6-byte
    /// row of its X-Trans table, a loop Debian's build compiles without its bound: it wrote over
    /// LibRaw's own object until it crashed (found by the raw-decode fuzz target; the input is its
    /// regression file). The bridge refuses such bytes before LibRaw sees them; an X-Trans
    /// pattern after its 6×6 repeat still reaches LibRaw and is drawn.
    @Test func aCFAPatternOf36ValuesWithoutItsRepeatIsRefusedBeforeLibRaw() throws {
        let workspace = FileManager.default.temporaryDirectory.appendingPathComponent("raw-hostile-cfa-\(getpid())")
        try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: workspace) }
        let reason = "malformed RAW file: a 36-value CFA pattern without a 6×6 repeat before it (LibRaw 0.20 would write past its pattern table)"
        func demosaic(_ bytes: [UInt8], _ name: String) throws -> RAWDecoder {
            let path = workspace.appendingPathComponent(name).path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return try RAWDecoder(file: InputFile(path: path), limits: DecodeLimits(), minimumWidth: 1, minimumHeight: 1, drawing: .demosaic)
        }
        // X-Trans: the 6×6 repeat, then 36 colours (appended to the file).
        var xtrans = DNGBytes(bytes: try fixtureFolder.bytes("rggb-no-preview.dng"))
        let sensor = xtrans.ifd0
        let repeatDim = xtrans.entry(33421, in: sensor), pattern = xtrans.entry(33422, in: sensor)
        xtrans.bytes.replaceSubrange(repeatDim + 8 ..< repeatDim + 12, with: [6, 0, 6, 0])
        xtrans.set32(pattern + 4, 36)
        xtrans.set32(pattern + 8, xtrans.bytes.count)
        xtrans.bytes += [1, 1, 0, 1, 1, 2, 1, 1, 2, 1, 1, 0, 2, 0, 1, 0, 2, 1, 1, 1, 2, 1, 1, 0, 1, 1, 0, 1, 1, 2, 0, 2, 1, 2, 0, 1]
        let drawn = try demosaic(xtrans.bytes, "xtrans.dng")
        #expect(drawn.width == 80 && drawn.height == 48, "\(drawn.width)×\(drawn.height)")   // half size
        // The same pattern after a 2×2 repeat.
        var bare = xtrans
        bare.bytes.replaceSubrange(repeatDim + 8 ..< repeatDim + 12, with: [2, 0, 2, 0])
        #expect(throws: ImageError(.malformed, reason)) { _ = try demosaic(bare.bytes, "bare.dng") }
        // The fuzzer's input.
        let found = try [UInt8](Data(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../FuzzReplayTests/Corpus/raw-decode/regressions/libraw-36-value-cfa-pattern-without-6x6-repeat.dng")))
        #expect(throws: ImageError(.malformed, reason)) { _ = try demosaic(found, "found.dng") }
    }

    @Test func aTruncatedSensorIsDrawnFromItsPreviewAndRefusedByTheDemosaic() throws {
        // The preview lies before the sensor: cutting the sensor data short leaves the preview whole.
        let workspace = FileManager.default.temporaryDirectory.appendingPathComponent("raw-hostile-\(getpid())")
        try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: workspace) }
        let path = workspace.appendingPathComponent("cut.dng").path
        try Data(original.bytes.prefix(original.bytes.count - 10_000)).write(to: URL(fileURLWithPath: path))
        let preview = try RAWDecoder(file: InputFile(path: path), limits: DecodeLimits(), minimumWidth: 10, minimumHeight: 10)
        #expect(preview.source == .preview(index: 1))
        var rows = 0
        try preview.readRows { _, _ in rows += 1 }
        #expect(rows == 32)
        // The demosaic of the cut sensor: LibRaw runs out of bytes, and says so in one line.
        #expect(throws: ImageError(.malformed, "truncated RAW file (LibRaw read past its end)")) {
            _ = try RAWDecoder(file: InputFile(path: path), limits: DecodeLimits(), minimumWidth: 1000, minimumHeight: 1000)
        }
    }
}
