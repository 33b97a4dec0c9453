import Foundation
import HEIFCodec
import CodecCore
import PNGCodec
import Testing

/// The hostile files of issue #22 (item 6), made by scripts/make-heif-fixtures.py: each is
/// refused with its exact one-line reason by the box parser, before libheif sees it (libheif
/// 1.15 hangs growing past 800 MB on a grid that refers to itself, and heif-convert crashes on
/// two grids that refer to each other), or by the limits, before anything is allocated.
@Suite struct HEIFHostileTests {
    static let refusedByTheHeader: [(file: String, reason: String)] = [
        ("grid-self-reference.heic", "malformed HEIF file: item references loop (1 → 1)"),
        ("grids-refer-to-each-other.heic", "malformed HEIF file: item references loop (1 → 2 → 1)"),
        ("grid-cycle-through-tile.heic", "malformed HEIF file: item references loop (1 → 6 → 1)"),
        ("thumbnail-of-itself.heic", "malformed HEIF file: item references loop (1 → 1)"),
        ("alpha-planes-of-each-other.heic", "malformed HEIF file: item references loop (1 → 2 → 1)"),
        ("grid-missing-tile.heic", "malformed HEIF file: item 1 refers to missing item 9 ('dimg')"),
        ("grid-too-few-tiles.heic", "malformed HEIF file: grid item 1 has 3 tiles where its 2×2 layout needs 4"),
        ("grid-not-covered.heic", "malformed HEIF file: grid item 1: 2×2 tiles of 160×106 do not fit its 330×200 output"),
        ("grid-uneven-tiles.heic", "malformed HEIF file: grid item 1 has tiles of different sizes or codings"),
        ("missing-primary.heic", "malformed HEIF file: primary item 7 does not exist"),
        ("item-count-absurd.heic", "malformed HEIF file: 'iinf' box claims 65535 items in 21 bytes"),
        ("mdat-past-eof.heic", "malformed HEIF file: box 'mdat' runs past the end of the file"),
        ("child-past-parent.heic", "malformed HEIF file: box 'iloc' runs past the end of its parent 'meta'"),
        ("zero-size-child.heic", "malformed HEIF file: box 'iloc' has size 0 inside meta"),
        ("meta-past-eof.heic", "malformed HEIF file: box 'meta' runs past the end of the file"),
        ("meta-64bit-size.heic", "malformed HEIF file: box 'meta' runs past the end of the file"),
        ("truncated-in-meta.heic", "malformed HEIF file: box 'meta' runs past the end of the file"),
        ("truncated-in-data.heic", "malformed HEIF file: data of item 1 runs past the end of the file"),
    ]

    @Test(arguments: refusedByTheHeader.map(\.file))
    func headerRefusesWithItsReason(_ file: String) throws {
        let expected = try #require(Self.refusedByTheHeader.first { $0.file == file }).reason
        let path = fixtureFolder.path("hostile/" + file)
        #expect(throws: ImageError(.malformed, expected)) {
            try HEIFHeader(file: InputFile(path: path))
        }
        #expect(throws: ImageError(.malformed, expected)) {
            _ = try HEIFDecoder(file: InputFile(path: path), limits: .fuzzing, minimumWidth: 0, minimumHeight: 0)
        }
    }

    /// Claimed sizes pass the box checks and are refused by the limits, from the header alone.
    @Test(arguments: [("ispe-60000.heic", 60000, 60000), ("grid-16384-one-tile.avif", 16384, 16384)])
    func hugeClaimsAreRefusedByTheLimits(file: String, width: Int, height: Int) throws {
        let path = fixtureFolder.path("hostile/" + file)
        let header = try HEIFHeader(file: InputFile(path: path))
        #expect(header.width == width && header.height == height)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).count < 16 << 10)
        let limits = DecodeLimits()
        #expect(throws: ImageError(.pixelLimit(width: width, height: height, limit: limits.maxPixels))) {
            _ = try HEIFDecoder(file: InputFile(path: path), limits: limits, minimumWidth: 0, minimumHeight: 0)
        }
    }

    /// A thumbnail claiming 2^32-1 pixels a side: its aspect is compared without overflow and it
    /// never stands in; the file is refused by the limits from the header, as libheif (which
    /// checks every item's size when it reads a file) would refuse it.
    @Test func hugeThumbnailClaimIsRefusedByTheLimits() throws {
        let file = try InputFile(path: fixtureFolder.path("hostile/thumbnail-huge-claim.heic"))
        let header = try HEIFHeader(file: file)
        let thumbnail = try #require(header.thumbnails.first)
        #expect(thumbnail.width == 0xFFFF_FFFF && !thumbnail.aspectMatches && !thumbnail.canStandIn)
        #expect(header.width == 320 && header.height == 212)
        let limits = DecodeLimits.fuzzing
        #expect(throws: ImageError(.pixelLimit(width: 0xFFFF_FFFF, height: 0xFFFF_FFFF, limit: limits.maxPixels))) {
            _ = try HEIFDecoder(file: file, limits: limits, minimumWidth: 0, minimumHeight: 0)
        }
    }

    @Test func goodFileOverASmallLimitIsRefused() throws {
        let limits = DecodeLimits(maxPixels: 10_000)
        #expect(throws: ImageError(.pixelLimit(width: 320, height: 212, limit: 10_000))) {
            _ = try HEIFDecoder(file: InputFile(path: fixtureFolder.path("cat-8bit.heic")), limits: limits,
                                minimumWidth: 0, minimumHeight: 0)
        }
    }

    /// Forty items whose data lie past the end, located in descending order: the reason names
    /// the lowest item every time. The locations were checked in dictionary order, which Swift
    /// seeds per dictionary, so two reads of one file could name different items (found by the
    /// source-header fuzz target, which reads each file twice).
    @Test func itemsPastTheEndAreNamedLowestFirstOnEveryRead() throws {
        func be(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { be(8 + payload.count, 4) + Array(type.utf8) + payload }
        let fullBox: [UInt8] = [0, 0, 0, 0]
        let hdlr = box("hdlr", fullBox + be(0, 4) + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
        let pitm = box("pitm", fullBox + be(1, 2))
        let iinf = box("iinf", fullBox + be(1, 2) + box("infe", [2, 0, 0, 0] + be(1, 2) + be(0, 2) + Array("hvc1".utf8) + [0]))
        // Version 0, 4-byte offsets and lengths, no base offset: id, data reference, one extent.
        let iloc = box("iloc", fullBox + [0x44, 0x00] + be(40, 2) + (1...40).reversed().flatMap { id in
            be(id, 2) + be(0, 2) + be(1, 2) + be(0, 4) + be(1 << 20, 4)
        })
        let bytes = box("ftyp", Array("heicmif1heic".utf8)) + box("meta", fullBox + hdlr + pitm + iinf + iloc)
        for _ in 0..<5 {
            #expect(throws: ImageError(.malformed, "malformed HEIF file: data of item 1 runs past the end of the file")) {
                try HEIFHeader(bytes: bytes)
            }
        }
    }

    @Test func notHEIFIsRefused() throws {
        #expect(throws: ImageError(.malformed, "not a HEIF file (no ftyp box first)")) {
            try HEIFHeader(bytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])
        }
        #expect(throws: ImageError(.malformed, "empty file")) { try HEIFHeader(bytes: []) }
    }

    /// Coded data replaced by garbage (boxes intact): libheif's decoder fails, and its message
    /// comes back as one line, nothing printed.
    @Test func corruptCodedDataGivesLibheifsReason() throws {
        var bytes = try fixtureFolder.bytes("cat-8bit.heic")
        let mdat = try #require(bytes.indices.last { bytes[$0] == 0x6D && Array(bytes[$0..<min($0 + 4, bytes.count)]) == Array("mdat".utf8) })
        for index in (mdat + 4)..<bytes.count { bytes[index] = UInt8(truncatingIfNeeded: index &* 37) }
        let folder = TemporaryFolder()
        let path = folder.file("garbage.heic")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        do {
            let decoder = try HEIFDecoder(file: InputFile(path: path), limits: .fuzzing, minimumWidth: 0, minimumHeight: 0)
            Issue.record("garbage decoded to \(decoder.width)×\(decoder.height)")
        } catch {
            TestLog.verbose("garbage coded data: \(error.reason)")
            #expect(error.kind == .malformed)
            #expect(error.reason.hasPrefix("corrupt HEIF file: ") && !error.reason.contains("\n"))
        }
    }
}

extension DecodeLimits {
    static let fuzzing = DecodeLimits(maxPixels: 1 << 24, maxWidth: 1 << 14)
}
