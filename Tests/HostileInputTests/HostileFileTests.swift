// End-to-end: the real `masonry` executable on folders holding one good image
// and one hostile file each (plus one folder holding them all). Every hostile
// PNG is built here from bytes.

import Foundation
import Testing
@testable import PNGCodec
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// What the command must do with a hostile entry.
enum Outcome: Sendable, CustomStringConvertible {
    /// Left out: one `masonry: skipped <path>: <reason>` line whose reason contains the text.
    case skipped(String)
    /// Drawn, with one `masonry: warning: <path>: <reason>` line.
    case warned(String)
    /// Drawn without a message.
    case drawn

    var description: String {
        switch self {
        case .skipped(let r): "skipped (\(r))"
        case .warned(let r): "warning (\(r))"
        case .drawn: "drawn"
        }
    }

    var isDrawn: Bool { if case .skipped = self { false } else { true } }
}

/// One hostile file: its name, how to make its bytes, and what must happen.
struct HostileCase: Sendable, CustomTestStringConvertible {
    let name: String
    let outcome: Outcome
    var extraArguments: [String] = []
    let make: @Sendable () -> [UInt8]

    var testDescription: String { "\(name) -> \(outcome)" }
}

/// The pieces hostile files are made of.
enum Sample {
    static let goodColor: [UInt8] = [200, 30, 40, 255]
    static let hostileColor: [UInt8] = [20, 60, 220, 255]

    /// A valid 12×9 blue PNG made by our own encoder (real zlib compression).
    static let valid: [UInt8] = {
        let pixels = Array([[UInt8]](repeating: hostileColor, count: 12 * 9).joined())
        return try! PNGEncoder.encode(pixels: pixels, width: 12, height: 9, format: .rgba8, settings: .default)
    }()

    static func chunk(_ type: String, in png: [UInt8]) -> (offset: Int, type: String, data: Range<Int>) {
        PNGBytes.chunks(png).first { $0.type == type }!
    }

    /// `valid` with the chunk of `type` given a wrong CRC.
    static func badCRC(_ type: String, in png: [UInt8] = valid) -> [UInt8] {
        var bytes = png
        let c = chunk(type, in: bytes)
        bytes[c.data.upperBound + 3] ^= 0x5A
        return bytes
    }

    /// A stored-deflate RGBA PNG of `hostileColor`, with `edit` applied to the filtered rows.
    static func stored(width: Int = 12, height: Int = 9, before: [UInt8] = [], after: [UInt8] = [],
                       edit: ([UInt8]) -> [UInt8] = { $0 }) -> [UInt8] {
        let pixels = Array([[UInt8]](repeating: hostileColor, count: width * height).joined())
        let raw = edit(PNGBytes.filtered(width: width, height: height, pixels: pixels))
        return PNGBytes.signature + PNGBytes.ihdr(width: UInt32(width), height: UInt32(height)) + before
            + PNGBytes.chunk("IDAT", PNGBytes.zlibStored(raw)) + after + PNGBytes.chunk("IEND")
    }

    /// A header of any size followed by a small stored IDAT (not enough data for big sizes).
    static func header(width: UInt32, height: UInt32) -> [UInt8] {
        PNGBytes.signature + PNGBytes.ihdr(width: width, height: height)
            + PNGBytes.chunk("IDAT", PNGBytes.zlibStored([0, 1, 2, 3, 4])) + PNGBytes.chunk("IEND")
    }

    /// 50000×50000 RGBA whose IDAT is ~4 KB that inflates to ~4 MB of zeros
    /// (about 21 rows): a decompression bomb by its header, not by its data.
    static func bomb(interlaced: Bool = false) -> [UInt8] {
        let groups = 4000
        let inflated = 1 + 258 * groups * 4
        let adler = UInt32(1) | UInt32(inflated % 65521) << 16   // Adler-32 of `inflated` zeros
        return PNGBytes.signature + PNGBytes.ihdr(width: 50_000, height: 50_000, interlace: interlaced ? 1 : 0)
            + PNGBytes.chunk("IDAT", PNGBytes.zlibZeroBomb(matchGroups: groups, adler: adler)) + PNGBytes.chunk("IEND")
    }

    /// A 16-bit RGB Adam7 image with a tRNS colour (the corner pixel's colour is transparent).
    static func interlaced16WithTRNS() -> [UInt8] {
        let width = 9, height = 7
        func sample(_ x: Int, _ y: Int) -> [UInt8] {
            if x == 0 && y == 0 { return [0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC] }   // the tRNS colour
            return [0x14, 0x00, 0x3C, 0x00, 0xDC, 0x00]                          // ≈ hostileColor
        }
        let passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        var raw: [UInt8] = []
        for (x0, y0, dx, dy) in passes {
            let xs = Array(stride(from: x0, to: width, by: dx)), ys = Array(stride(from: y0, to: height, by: dy))
            guard !xs.isEmpty, !ys.isEmpty else { continue }
            for y in ys { raw.append(0); for x in xs { raw += sample(x, y) } }
        }
        return PNGBytes.signature + PNGBytes.ihdr(width: UInt32(width), height: UInt32(height), bitDepth: 16, colorType: 2, interlace: 1)
            + PNGBytes.chunk("tRNS", [0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC])
            + PNGBytes.chunk("IDAT", PNGBytes.zlibStored(raw)) + PNGBytes.chunk("IEND")
    }

    /// An animated PNG: acTL + fcTL, the default image in IDAT, a second frame in fdAT.
    static func apng() -> [UInt8] {
        let be = PNGBytes.be32
        let fcTL0 = be(0) + be(12) + be(9) + be(0) + be(0) + [0, 1, 0, 10, 0, 0]
        let fcTL1 = be(1) + be(12) + be(9) + be(0) + be(0) + [0, 1, 0, 10, 0, 0]
        let other = Array([[UInt8]](repeating: [0, 255, 0, 255], count: 12 * 9).joined())
        let fdAT = be(2) + PNGBytes.zlibStored(PNGBytes.filtered(width: 12, height: 9, pixels: other))
        return stored(before: PNGBytes.chunk("acTL", be(2) + be(0)) + PNGBytes.chunk("fcTL", fcTL0),
                      after: PNGBytes.chunk("fcTL", fcTL1) + PNGBytes.chunk("fdAT", fdAT))
    }

    /// A WebP file of `chunks` ("RIFF", the size of what follows, "WEBP", the chunks).
    static func webp(_ chunks: [[UInt8]]) -> [UInt8] {
        let body = Array("WEBP".utf8) + chunks.joined()
        return Array("RIFF".utf8) + le32(body.count) + body
    }

    static func webpChunk(_ name: String, _ payload: [UInt8]) -> [UInt8] {
        Array(name.utf8) + le32(payload.count) + payload + (payload.count % 2 == 1 ? [0] : [])
    }

    /// A VP8 key frame header claiming `width` × `height` (first partition of one byte) and a few data bytes.
    static func webpVP8(width: Int, height: Int) -> [UInt8] {
        webpChunk("VP8 ", [0x30, 0, 0, 0x9D, 0x01, 0x2A, UInt8(width & 0xFF), UInt8(width >> 8),
                           UInt8(height & 0xFF), UInt8(height >> 8), 0, 0, 0, 0])
    }

    /// A VP8L header claiming `width` × `height` and a few data bytes.
    static func webpVP8L(width: Int, height: Int) -> [UInt8] {
        webpChunk("VP8L", [0x2F] + le32((width - 1) | (height - 1) << 14) + [0, 0, 0])
    }

    /// A HEIF file of image items without coded data (enough for the header pass): `items` are
    /// (id, type, width, height), a grid's descriptor is in `idat`, `dimg` references in `grids`.
    static func heif(brand: String, primary: Int, items: [(id: Int, type: String, width: Int, height: Int)],
                     grids: [(id: Int, rows: Int, columns: Int, tiles: [Int])]) -> [UInt8] {
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { PNGBytes.be32(UInt32(8 + payload.count)) + Array(type.utf8) + payload }
        func full(_ type: String, _ payload: [UInt8]) -> [UInt8] { box(type, [0, 0, 0, 0] + payload) }
        func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        let sizes = Dictionary(uniqueKeysWithValues: items.map { ($0.id, ($0.width, $0.height)) })
        var descriptors: [UInt8] = [], locations: [UInt8] = []
        for grid in grids {
            let (width, height) = sizes[grid.id] ?? (0, 0)
            let descriptor: [UInt8] = [0, 0, UInt8(grid.rows - 1), UInt8(grid.columns - 1)] + be16(width) + be16(height)
            locations += be16(grid.id) + be16(1) + be16(0) + be16(1) + PNGBytes.be32(UInt32(descriptors.count)) + PNGBytes.be32(8)
            descriptors += descriptor
        }
        let infos: [UInt8] = items.flatMap { box("infe", [2, 0, 0, 0] + be16($0.id) + be16(0) + Array($0.type.utf8) + [0]) }
        let properties: [UInt8] = items.flatMap { full("ispe", PNGBytes.be32(UInt32($0.width)) + PNGBytes.be32(UInt32($0.height))) }
        let associations: [UInt8] = items.enumerated().flatMap { (index, item) -> [UInt8] in be16(item.id) + [1, UInt8(index + 1)] }
        let meta = full("meta", full("hdlr", [0, 0, 0, 0] + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
            + full("pitm", be16(primary))
            + box("iloc", [1, 0, 0, 0, 0x44, 0x00] + be16(grids.count) + locations)
            + full("iinf", be16(items.count) + infos)
            + full("iref", grids.flatMap { grid in
                box("dimg", be16(grid.id) + be16(grid.tiles.count) + grid.tiles.flatMap { be16($0) })
            })
            + box("iprp", box("ipco", properties) + full("ipma", PNGBytes.be32(UInt32(items.count)) + associations))
            + box("idat", descriptors))
        return box("ftyp", Array(brand.utf8) + [0, 0, 0, 0] + Array(brand.utf8) + Array("mif1".utf8)) + meta
    }

    private static func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }

    static let jpegStart: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00,
                                     0x00, 0x48, 0x00, 0x48, 0x00, 0x00, 0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 8, count: 64)
        + [0xFF, 0xC0, 0x00, 0x11, 0x08, 0x00, 0x10, 0x00, 0x10, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01, 0xFF, 0xD9]
}

extension HostileCase {
    static let all: [HostileCase] = [
        // Truncation.
        .init(name: "truncated-signature.png", outcome: .skipped("truncated file")) { Array(Sample.valid.prefix(5)) },
        .init(name: "truncated-header.png", outcome: .skipped("truncated file")) { Array(Sample.valid.prefix(20)) },
        .init(name: "truncated-idat.png", outcome: .skipped("truncated image data")) {
            let idat = Sample.chunk("IDAT", in: Sample.valid)
            return Array(Sample.valid.prefix(idat.data.lowerBound + idat.data.count / 2))
        },
        .init(name: "truncated-before-iend.png", outcome: .warned("truncated file")) {
            Array(Sample.valid.prefix(Sample.chunk("IEND", in: Sample.valid).offset))
        },
        // Bad CRCs.
        .init(name: "bad-crc-ihdr.png", outcome: .skipped("bad CRC in IHDR chunk")) { Sample.badCRC("IHDR") },
        .init(name: "bad-crc-idat.png", outcome: .skipped("bad CRC in IDAT chunk")) { Sample.badCRC("IDAT") },
        .init(name: "bad-crc-text.png", outcome: .warned("bad CRC in tEXt chunk")) {
            Sample.badCRC("tEXt", in: Sample.stored(before: PNGBytes.chunk("tEXt", Array("Comment\0hello".utf8))))
        },
        // Bad image data.
        .init(name: "bad-zlib.png", outcome: .skipped("corrupt image data")) {
            Sample.stored(before: []) { _ in [] }.replacingIDAT(with: [0x78, 0x9C, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x11, 0x22, 0x33])
        },
        .init(name: "bad-zlib-header.png", outcome: .skipped("corrupt image data")) {
            Sample.valid.replacingIDAT(with: [0x12, 0x34] + Array(Sample.valid[Sample.chunk("IDAT", in: Sample.valid).data].dropFirst(2)))
        },
        .init(name: "bad-filter.png", outcome: .skipped("bad filter type in image data")) {
            Sample.stored { raw in var r = raw; r[(12 * 4 + 1) * 3] = 5; return r }
        },
        .init(name: "missing-idat.png", outcome: .skipped("missing image data")) {
            PNGBytes.signature + PNGBytes.ihdr(width: 12, height: 9) + PNGBytes.chunk("IEND")
        },
        .init(name: "idat-before-ihdr.png", outcome: .skipped("first chunk is not IHDR")) {
            let idat = Sample.chunk("IDAT", in: Sample.valid), ihdr = Sample.chunk("IHDR", in: Sample.valid)
            return PNGBytes.signature + Array(Sample.valid[idat.offset..<(idat.data.upperBound + 4)])
                + Array(Sample.valid[ihdr.offset..<(ihdr.data.upperBound + 4)]) + PNGBytes.chunk("IEND")
        },
        .init(name: "second-ihdr.png", outcome: .skipped("IHDR")) {
            Sample.stored(before: PNGBytes.ihdr(width: 12, height: 9))
        },
        .init(name: "trailing-garbage.png", outcome: .drawn) { Sample.valid + Array("garbage after IEND\u{0}\u{1}".utf8) },
        // Sizes.
        .init(name: "zero-width.png", outcome: .skipped("zero width or height")) { Sample.header(width: 0, height: 10) },
        .init(name: "zero-height.png", outcome: .skipped("zero width or height")) { Sample.header(width: 10, height: 0) },
        .init(name: "width-2^31-1.png", outcome: .skipped("pixel limit")) { Sample.header(width: 0x7FFF_FFFF, height: 1) },
        .init(name: "width-2^31.png", outcome: .skipped("2^31-1")) { Sample.header(width: 0x8000_0000, height: 1) },
        .init(name: "bomb-50000.png", outcome: .skipped("over the 178956970-pixel limit")) { Sample.bomb() },
        .init(name: "bomb-50000-raised.png", outcome: .skipped("truncated image data"),
              extraArguments: ["--max-pixels", "2500000000"]) { Sample.bomb() },
        .init(name: "bomb-50000-raised-padded.png", outcome: .skipped("truncated image data"),
              extraArguments: ["--max-pixels", "2500000000"]) {
            // Big enough (10 MiB) to pass the size check, so ~60 rows are really
            // decoded before the data runs out: in bounded memory.
            let groups = 12_000
            let adler = UInt32(1) | UInt32((1 + 258 * groups * 4) % 65521) << 16
            return PNGBytes.signature + PNGBytes.ihdr(width: 50_000, height: 50_000)
                + PNGBytes.chunk("IDAT", PNGBytes.zlibZeroBomb(matchGroups: groups, adler: adler))
                + PNGBytes.chunk("paDd", [UInt8](repeating: 0, count: 10 << 20)) + PNGBytes.chunk("IEND")
        },
        .init(name: "width-2^31-1-raised.png", outcome: .skipped("over the 1048576-pixel width limit"),
              extraArguments: ["--max-pixels", "4294967294"]) { Sample.header(width: 0x7FFF_FFFF, height: 2) },
        // Interlaced, libpng would decode it whole: 10 GB, refused from the header before anything is allocated.
        .init(name: "bomb-50000-interlaced-raised.png", outcome: .skipped("image needs more decoding memory than the budget allows"),
              extraArguments: ["--max-pixels", "2500000000"]) { Sample.bomb(interlaced: true) },
        .init(name: "tall-1x20000.png", outcome: .drawn) { PNGBytes.solid(width: 1, height: 20_000, Sample.hostileColor) },
        .init(name: "wide-20000x1.png", outcome: .drawn) { PNGBytes.solid(width: 20_000, height: 1, Sample.hostileColor) },
        .init(name: "tiny-1x1.png", outcome: .drawn) { PNGBytes.solid(width: 1, height: 1, Sample.hostileColor) },
        // Ancillary-chunk bombs.
        .init(name: "text-length-2^31-1.png", outcome: .skipped("truncated file")) {
            let valid = Sample.stored()
            let ihdrEnd = Sample.chunk("IHDR", in: valid).data.upperBound + 4
            return Array(valid[..<ihdrEnd]) + PNGBytes.be32(0x7FFF_FFFF) + Array("tEXt".utf8) + Array("Comment\0".utf8)
                + Array(valid[ihdrEnd...])
        },
        .init(name: "ztxt-bomb.png", outcome: .drawn) {
            // ~1 MiB of zlib that inflates to ~1 GiB.
            Sample.stored(before: PNGBytes.chunk("zTXt", Array("Comment\0\0".utf8) + PNGBytes.zlibZeroBomb(matchGroups: 1 << 20)))
        },
        .init(name: "ztxt-bomb-after-idat.png", outcome: .drawn) {
            Sample.stored(after: PNGBytes.chunk("zTXt", Array("Comment\0\0".utf8) + PNGBytes.zlibZeroBomb(matchGroups: 1 << 18)))
        },
        .init(name: "iccp-oversized.png", outcome: .warned("iCCP chunk over 4 MiB: ignored")) {
            // A 6 MiB stored profile (over the 4 MiB chunk limit) ...
            Sample.stored(before: PNGBytes.chunk("iCCP", Array("icc\0\0".utf8) + PNGBytes.zlibStored([UInt8](repeating: 7, count: 6 << 20))))
        },
        .init(name: "iccp-bomb.png", outcome: .warned("iCCP profile inflates past 4 MiB: ignored")) {
            // ... and a 64 KiB one that inflates to 64 MiB.
            Sample.stored(before: PNGBytes.chunk("iCCP", Array("icc\0\0".utf8) + PNGBytes.zlibZeroBomb(matchGroups: 1 << 16)))
        },
        // Not PNGs, or unusual ones.
        .init(name: "empty.png", outcome: .skipped("empty file")) { [] },
        // 0x89 then not the PNG signature: no format's file (detection reads the whole signature).
        .init(name: "wrong-signature.png", outcome: .skipped("not a PNG, JPEG")) { var b = Sample.valid; b[1] = 0x51; return b },
        .init(name: "text-mode-signature.png", outcome: .skipped("not a PNG file")) {
            [0x89, 0x50, 0x4E, 0x47, 0x0A, 0x1A, 0x0A] + Array(Sample.valid.dropFirst(8))
        },
        // Read by its signature, not its name: a JPEG called .png is a JPEG (this one has no image data).
        .init(name: "jpeg.png", outcome: .skipped("no image in the JPEG file")) { Sample.jpegStart },
        .init(name: "apng.png", outcome: .drawn) { Sample.apng() },
        // WebP: sizes refused from Masonry's own chunk walk, before libwebp allocates anything.
        .init(name: "webp-claims-16383x16383.webp", outcome: .skipped("image is 16383×16383, over the 178956970-pixel limit")) {
            Sample.webp([Sample.webpVP8(width: 16383, height: 16383)])
        },
        .init(name: "webp-lossless-claims-12000x12000.webp", outcome: .skipped("image needs more decoding memory than the budget allows")) {
            Sample.webp([Sample.webpVP8L(width: 12000, height: 12000)])
        },
        .init(name: "webp-lossy-claims-12000x12000.webp", outcome: .skipped("corrupt VP8 image data")) {
            // Within the budget once shrunk on load for its tile: libwebp then finds the data corrupt.
            Sample.webp([Sample.webpVP8(width: 12000, height: 12000)])
        },
        .init(name: "webp-animation-canvas-2^24.webp", outcome: .skipped("image is 16777216×16777216, over the 178956970-pixel limit")) {
            let canvas = [0x12, 0, 0, 0] + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF] as [UInt8]
            let frame = [UInt8](repeating: 0, count: 15) + [0] + Sample.webpVP8L(width: 1, height: 1)
            return Sample.webp([Sample.webpChunk("VP8X", canvas), Sample.webpChunk("ANIM", [0, 0, 0, 0, 0, 0]), Sample.webpChunk("ANMF", frame)])
        },
        .init(name: "webp-chunk-past-riff.webp", outcome: .skipped("malformed WebP file (the VP8 chunk runs past the RIFF size)")) {
            var bytes = Sample.webp([Sample.webpVP8(width: 64, height: 64)])
            bytes[4] = 20
            return bytes
        },
        .init(name: "interlaced-16bit-trns.png", outcome: .drawn) { Sample.interlaced16WithTRNS() },
        // HEIF/AVIF, refused by Masonry's own box parser before libheif (which hangs growing past
        // 800 MB on a grid that refers to itself, and whose heif-convert crashes on two grids
        // that refer to each other) or by the limits from the header.
        .init(name: "heic-grid-refers-to-itself.heic", outcome: .skipped("malformed HEIF file: item references loop (1 → 1)")) {
            Sample.heif(brand: "heic", primary: 1, items: [(1, "grid", 512, 512)], grids: [(1, 1, 1, [1])])
        },
        .init(name: "heic-grids-refer-to-each-other.heic", outcome: .skipped("malformed HEIF file: item references loop (1 → 2 → 1)")) {
            Sample.heif(brand: "heic", primary: 1, items: [(1, "grid", 512, 512), (2, "grid", 512, 512)],
                        grids: [(1, 1, 1, [2]), (2, 1, 1, [1])])
        },
        .init(name: "heic-ispe-60000.heic", outcome: .skipped("image is 60000×60000, over the 178956970-pixel limit")) {
            Sample.heif(brand: "heic", primary: 1, items: [(1, "hvc1", 60000, 60000)], grids: [])
        },
        .init(name: "avif-grid-16384-one-tile.avif", outcome: .skipped("image is 16384×16384, over the 178956970-pixel limit")) {
            Sample.heif(brand: "avif", primary: 1, items: [(1, "grid", 16384, 16384), (2, "av01", 512, 512)],
                        grids: [(1, 32, 32, [Int](repeating: 2, count: 1024))])
        },
    ]
}

extension [UInt8] {
    /// This PNG with its (single) IDAT chunk's data replaced.
    func replacingIDAT(with data: [UInt8]) -> [UInt8] {
        let idat = Sample.chunk("IDAT", in: self)
        return Array(self[..<idat.offset]) + PNGBytes.chunk("IDAT", data) + Array(self[(idat.data.upperBound + 4)...])
    }
}

/// Checks a finished run against the rules every hostile run must keep, and
/// the sheet against the images that must be on it.
enum SheetCheck {
    static func basics(_ result: RunResult, label: String, status: Int32 = 0) {
        #expect(!result.timedOut, "\(label): hung: \(result)")
        #expect(result.status == status, "\(label): \(result)")
        #expect(result.seconds < Bounds.seconds, "\(label): took \(result.seconds) s")
        #expect(result.peakRSS < Bounds.peakRSS, "\(label): peak RSS \(result.peakRSS / MiB) MiB")
        if status == 0 || status == 2 {
            #expect(result.stderrLines.last?.hasPrefix("masonry: wrote ") == true, "\(label): no summary line: \(result.stderr)")
        }
    }

    /// The manifest's drawn paths and skipped (path, reason) pairs.
    static func manifest(_ path: String) throws -> (drawn: [String], skipped: [(String, String)], items: [[String: Any]]) {
        let data = try #require(FileManager.default.contents(atPath: path))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let items = try #require(json["items"] as? [[String: Any]])
        let skipped = try #require(json["skipped"] as? [[String: Any]])
        return (items.compactMap { $0["path"] as? String },
                skipped.map { ($0["path"] as? String ?? "", $0["reason"] as? String ?? "") }, items)
    }

    /// Decodes the sheet and checks the centre pixel of every drawn item whose
    /// path is in `colors` (composited over white, so opaque colours come out as they are).
    static func pixels(sheet: String, items: [[String: Any]], colors: [String: [UInt8]]) throws {
        let image = try PNGDecoder.decodeRGBA(contentsOfFile: sheet)
        for item in items {
            guard let path = item["path"] as? String, let expected = colors[path],
                  let frame = item["image"] as? [String: Any],
                  let x = frame["x"] as? Int, let y = frame["y"] as? Int,
                  let w = frame["width"] as? Int, let h = frame["height"] as? Int else { continue }
            let at = ((y + h / 2) * image.width + (x + w / 2)) * 4
            let got = Array(image.pixels[at..<(at + 3)])
            let close = zip(got, expected.prefix(3)).allSatisfy { abs(Int($0) - Int($1)) <= 2 }
            #expect(close, "\(path): centre pixel \(got), expected \(Array(expected.prefix(3)))")
        }
    }
}

@Suite(.serialized) struct HostileFileTests {
    /// One good image and one hostile file: the warning line, the exit status,
    /// the time, the memory, and the good image on the sheet.
    @Test(arguments: HostileCase.all)
    func hostileFile(_ hostile: HostileCase) throws {
        let folder = ScratchFolder("case")
        let input = folder.mkdir("in")
        folder.write("in/good.png", PNGBytes.solid(width: 16, height: 12, Sample.goodColor))
        folder.write("in/\(hostile.name)", hostile.make())
        let sheet = folder.sub("sheet.png"), manifest = folder.sub("m.json")
        let result = Masonry.run([input, "-o", sheet, "--manifest", manifest, "--no-progress"] + hostile.extraArguments)
        note(hostile.name, result)
        SheetCheck.basics(result, label: hostile.name)
        let hostilePath = "\(input)/\(hostile.name)", goodPath = "\(input)/good.png"
        let messages = result.stderrLines.filter { !$0.hasPrefix("masonry: wrote ") }
        switch hostile.outcome {
        case .skipped(let reason):
            #expect(messages.count == 1, "\(result.stderr)")
            let prefix = "masonry: skipped \(hostilePath): "
            let line = try #require(messages.first { $0.hasPrefix(prefix) }, "\(result.stderr)")
            #expect(line.count > prefix.count, "no reason given: \(line)")
            #expect(line.dropFirst(prefix.count).contains(reason), "\(line)")
        case .warned(let reason):
            #expect(messages.count == 1, "\(result.stderr)")
            let prefix = "masonry: warning: \(hostilePath): "
            let line = try #require(messages.first { $0.hasPrefix(prefix) }, "\(result.stderr)")
            #expect(line.dropFirst(prefix.count).contains(reason), "\(line)")
        case .drawn:
            #expect(messages.isEmpty, "\(result.stderr)")
        }
        guard result.status == 0 else { return }
        let (drawn, skipped, items) = try SheetCheck.manifest(manifest)
        #expect(drawn.contains(goodPath))
        #expect(drawn.contains(hostilePath) == hostile.outcome.isDrawn, "\(drawn)")
        #expect(skipped.contains { $0.0 == hostilePath } == !hostile.outcome.isDrawn, "\(skipped)")
        var colors = [goodPath: Sample.goodColor]
        if hostile.outcome.isDrawn && !hostile.name.hasPrefix("interlaced") { colors[hostilePath] = Sample.hostileColor }
        try SheetCheck.pixels(sheet: sheet, items: items, colors: colors)
        #expect(result.stderrLines.last?.contains(hostile.outcome.isDrawn ? "2 images" : "1 image") == true, "\(result.stderr)")
    }

    /// Every hostile file in one folder with six good ones, with `--strict`:
    /// one line per bad entry, exit 2, every good image drawn.
    @Test func allInOneFolder() throws {
        let folder = ScratchFolder("all")
        let input = folder.mkdir("in")
        var colors: [String: [UInt8]] = [:]
        for i in 0..<6 {
            let color: [UInt8] = [UInt8(40 * i), 200, UInt8(255 - 30 * i), 255]
            folder.write("in/good-\(i).png", PNGBytes.solid(width: 10 + i, height: 20 - i, color))
            colors["\(input)/good-\(i).png"] = color
        }
        // Only the cases that need no option: raised limits are checked one by one.
        let cases = HostileCase.all.filter { $0.extraArguments.isEmpty }
        for hostile in cases { folder.write("in/\(hostile.name)", hostile.make()) }
        let sheet = folder.sub("sheet.png"), manifest = folder.sub("m.json")
        // 400 px wide: a full-width sheet of 39 upscaled tiles costs ~4 s of resampling in a debug build.
        let result = Masonry.run([input, "-o", sheet, "--manifest", manifest, "--strict", "-q", "-w", "400"])
        let loud = Masonry.run([input, "-o", sheet, "--manifest", manifest, "--strict", "-w", "400"])
        note("all \(cases.count) hostile + 6 good, --strict", loud)
        let skippedCount = cases.filter { !$0.outcome.isDrawn }.count
        // Under --strict a skip is an error: --quiet keeps exactly those lines.
        #expect(result.status == 2 && result.stderrLines.count == skippedCount
                && result.stderrLines.allSatisfy { $0.hasPrefix("masonry: error: skipped ") }, "quiet: \(result)")
        SheetCheck.basics(loud, label: "all", status: 2)
        let (drawn, _, items) = try SheetCheck.manifest(manifest)
        for path in colors.keys { #expect(drawn.contains(path), "\(path) missing") }
        for hostile in cases {
            let path = "\(input)/\(hostile.name)"
            let lines = loud.stderrLines.filter { $0.contains(path + ":") }
            switch hostile.outcome {
            case .skipped: #expect(lines.count == 1 && lines[0].hasPrefix("masonry: error: skipped "), "\(hostile.name): \(lines)")
            case .warned: #expect(lines.count == 1 && lines[0].hasPrefix("masonry: warning: "), "\(hostile.name): \(lines)")
            case .drawn: #expect(lines.isEmpty, "\(hostile.name): \(lines)")
            }
        }
        #expect(loud.stderrLines.last?.contains("\(6 + cases.count - skippedCount) images, \(skippedCount) skipped") == true,
                "\(loud.stderrLines.last ?? "")")
        try SheetCheck.pixels(sheet: sheet, items: items, colors: colors)
    }
}
