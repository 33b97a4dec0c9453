// The fast decode path against libpng: every PngSuite file, every libpng test
// image, generated images of every colour type, bit depth and filter, and a
// seeded fuzz of mutated files must give the same verdict through both routes
// (both fail with the same reason, or both deliver identical rows, formats and
// trailing problems).

import CLibZ
import Foundation
import CodecCore
import PNGCodec
import Raster
import Testing

/// What a decoder made of a file: everything a caller can observe.
private enum Verdict: Equatable, CustomStringConvertible {
    case failed(String)
    case decoded(header: PNGHeader, format: PixelFormat, opaque: Bool, trailing: String?, digest: String)

    var description: String {
        switch self {
        case .failed(let reason): "failed: \(reason)"
        case .decoded(let header, let format, let opaque, let trailing, let digest):
            "\(header.width)×\(header.height) \(header.colorType)/\(header.bitDepth) as \(format), opaque \(opaque), "
                + "trailing \(trailing ?? "-"), rows \(digest.prefix(16))"
        }
    }
}

/// Decodes through one route; `fast` reports whether the fast path delivered the rows.
private func verdict(_ bytes: [UInt8], route: PNGDecodeRoute, compact: Bool) -> (Verdict, fast: Bool) {
    do {
        let decoder = try PNGDecoder(bytes: bytes, compactOpaqueRows: compact, route: route)
        var digest = SHA256()
        try decoder.readRows { _, row in digest.update(row) }
        return (.decoded(header: decoder.header, format: decoder.rowFormat, opaque: decoder.isOpaque,
                         trailing: decoder.trailingProblem?.reason, digest: SHA256.hex(digest.finalize())),
                decoder.usesFastPath)
    } catch let error as ImageError {
        return (.failed(error.reason), false)
    } catch {
        return (.failed("not a ImageError: \(error)"), false)
    }
}

/// Both routes, plain and compact rows; returns whether the fast path took the file.
@discardableResult
private func expectSameVerdict(_ bytes: [UInt8], _ label: String) -> Bool {
    var tookFastPath = false
    for compact in [false, true] {
        let (reference, _) = verdict(bytes, route: .libpngOnly, compact: compact)
        let (candidate, fast) = verdict(bytes, route: .automatic, compact: compact)
        tookFastPath = tookFastPath || fast
        #expect(candidate == reference, "\(label) compact \(compact): fast route \(candidate), libpng \(reference)")
    }
    return tookFastPath
}

/// Zlib-compresses with the system zlib (independent of the code under test).
private func zlibCompress(_ data: [UInt8], level: Int32) -> [UInt8] {
    var size = compressBound(uLong(data.count))
    var out = [UInt8](repeating: 0, count: Int(size))
    let status = compress2(&out, &size, data, uLong(data.count), level)
    precondition(status == Z_OK, "compress2 failed")
    return Array(out[0..<Int(size)])
}

/// A random valid PNG: random filter types and sample bytes (smooth, noisy or
/// flat rows, so Paeth's ties and every filter's wrap-around occur), any
/// colour type and bit depth, PLTE and tRNS where they apply, IDAT split at
/// random.
private func generatedPNG(colorType: UInt8, bitDepth: UInt8, rng: inout SplitMix64) -> [UInt8] {
    let width = rng.int(1...67), height = rng.int(1...23)
    let samples = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(colorType)]!
    let stride = (width * samples * Int(bitDepth) + 7) / 8
    var raw: [UInt8] = []
    for _ in 0..<height {
        raw.append(UInt8(rng.int(0...4)))
        let style = rng.int(0...2)
        let flat = rng.byte()
        for _ in 0..<stride {
            raw.append(style == 0 ? rng.byte() : style == 1 ? UInt8(rng.int(0...3)) : flat)
        }
    }
    var chunks = PNGBytes.ihdr(width: UInt32(width), height: UInt32(height), bitDepth: bitDepth, colorType: colorType)
    if rng.int(0...1) == 1 { chunks += PNGBytes.chunk("gAMA", PNGBytes.be32(45455)) }
    let most = (1 << Int(bitDepth)) - 1
    if colorType == 3 {
        let entries = rng.int(1...(most + 1))
        chunks += PNGBytes.chunk("PLTE", rng.bytes(3 * entries))
        if rng.int(0...1) == 1 { chunks += PNGBytes.chunk("tRNS", rng.bytes(rng.int(1...entries))) }
    } else if (colorType == 0 || colorType == 2), rng.int(0...1) == 1 {
        // A key that occurs: the first pixel's value after Up/None is likely among the small values.
        let values = (0..<(colorType == 0 ? 1 : 3)).map { _ in rng.int(0...min(most, 3)) }
        chunks += PNGBytes.chunk("tRNS", values.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })
    }
    let stream = zlibCompress(raw, level: Int32(rng.int(0...9)))
    var offset = 0
    repeat {
        let piece = min(stream.count - offset, rng.int(1...max(1, stream.count)))
        chunks += PNGBytes.chunk("IDAT", Array(stream[offset ..< offset + piece]))
        offset += piece
    } while offset < stream.count
    if rng.int(0...1) == 1 { chunks += PNGBytes.chunk("tEXt", Array("Comment\0generated".utf8)) }
    return PNGBytes.signature + chunks + PNGBytes.chunk("IEND")
}

private let colourMatrix: [(colorType: UInt8, depth: UInt8)] = [
    (0, 1), (0, 2), (0, 4), (0, 8), (0, 16), (2, 8), (2, 16), (3, 1), (3, 2), (3, 4), (3, 8),
    (4, 8), (4, 16), (6, 8), (6, 16),
]

/// Rewrites every chunk's CRC so a mutation reaches past the CRC checks.
private func fixingCRCs(_ png: [UInt8]) -> [UInt8] {
    var bytes = png
    var offset = 8
    while offset + 12 <= bytes.count {
        let length = Int(UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16
            | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3]))
        guard length <= bytes.count - offset - 12 else { break }
        let crc = PNGBytes.be32(Checksum.crc32(bytes[(offset + 4) ..< (offset + 8 + length)]))
        bytes.replaceSubrange((offset + 8 + length) ..< (offset + 12 + length), with: crc)
        offset += 12 + length
    }
    return bytes
}

@Suite("Fast decode path equals libpng")
struct FastDecodeDifferentialTests {
    static let pngSuite = fixtureFolder.pngNames(in: "pngsuite").map { "pngsuite/" + $0 }
    static let libpngImages = ["crashers", "badpal", "testpngs", "png-3"].flatMap { folder in
        fixtureFolder.pngNames(in: "libpng/" + folder).map { "libpng/\(folder)/" + $0 }
    }

    @Test func fixturesArePresent() {
        #expect(Self.pngSuite.count == 176)
        #expect(Self.libpngImages.count == 23 + 9 + 106 + 1)
    }

    @Test("PngSuite and libpng test images: same verdict through both routes")
    func fixtures() throws {
        var fast = 0, plainValid = 0
        for name in Self.pngSuite + Self.libpngImages {
            let bytes = try fixtureFolder.bytes(name)
            let tookFastPath = expectSameVerdict(bytes, name)
            if tookFastPath { fast += 1 }
            if let header = try? PNGHeader(parsing: bytes), !header.isInterlaced,
               case .decoded = verdict(bytes, route: .libpngOnly, compact: false).0 {
                plainValid += 1
            }
        }
        print("fast path took \(fast) of \(plainValid) valid non-interlaced fixtures")
        // Declining is always safe, but a fast path that declines most plain files is broken.
        #expect(fast * 10 >= plainValid * 8, "fast path took only \(fast) of \(plainValid) plain fixtures")
    }

    @Test("Generated images of every colour type and depth: same rows, through the fast path",
          arguments: colourMatrix.indices)
    func generated(index: Int) {
        let (colorType, depth) = colourMatrix[index]
        let seed = SplitMix64.suiteSeed ^ UInt64(index)
        var rng = SplitMix64(seed: seed)
        for round in 0..<40 {
            let png = generatedPNG(colorType: colorType, bitDepth: depth, rng: &rng)
            let label = "colour type \(colorType) depth \(depth) round \(round) (seed \(seed))"
            #expect(expectSameVerdict(png, label), "\(label): the fast path declined a valid file")
        }
    }

    @Test("Both routes read files and memory alike")
    func fileRouteMatchesMemoryRoute() throws {
        for name in ["pngsuite/basn2c16.png", "pngsuite/basn3p02.png", "pngsuite/tbwn3p08.png", "pngsuite/f04n2c08.png"] {
            let fromFile = try PNGDecoder.decodeRGBA(contentsOfFile: fixtureFolder.path(name))
            let fromBytes = try PNGDecoder.decodeRGBA(bytes: fixtureFolder.bytes(name), route: .libpngOnly)
            #expect(fromFile == fromBytes, "\(name)")
            #expect(try PNGDecoder(contentsOfFile: fixtureFolder.path(name)).usesFastPath, "\(name)")
        }
    }

    @Test func budgetSendsLargerImagesToLibpng() throws {
        var rng = SplitMix64(seed: SplitMix64.suiteSeed)
        let png = generatedPNG(colorType: 6, bitDepth: 8, rng: &rng)
        let header = try PNGHeader(parsing: png)
        let raw = header.height * (header.width * 4 + 1)
        let atBudget = PNGLimits(fastDecodeBudget: max(raw, png.count))
        let below = PNGLimits(fastDecodeBudget: max(raw, png.count) - 1)
        #expect(try PNGDecoder(bytes: png, pngLimits: atBudget).usesFastPath)
        #expect(try !PNGDecoder(bytes: png, pngLimits: below).usesFastPath)
        #expect(try PNGDecoder.decodeRGBA(bytes: png, pngLimits: atBudget) == PNGDecoder.decodeRGBA(bytes: png, pngLimits: below))
    }

    @Test("Seeded fuzz: mutated files get the same verdict through both routes")
    func fuzz() throws {
        let seed = SplitMix64.suiteSeed
        print("fast-path fuzz seed \(seed) (set MASONRY_TEST_SEED to replay)")
        var rng = SplitMix64(seed: seed)
        var bases = try ["basn0g01", "basn0g16", "basn2c08", "basn3p04", "basn4a16", "basn6a08", "tbrn2c08",
                         "tbbn3p08", "f02n0g08", "f04n2c08", "tp1n3p08"].map { try fixtureFolder.bytes("pngsuite/\($0).png") }
        for (colorType, depth) in colourMatrix { bases.append(generatedPNG(colorType: colorType, bitDepth: depth, rng: &rng)) }
        var fastAccepted = 0
        for round in 0..<1500 {
            var bytes = bases[rng.int(0...(bases.count - 1))]
            for _ in 0..<rng.int(1...4) {
                let at = rng.int(8...(bytes.count - 1))
                switch rng.int(0...5) {
                case 0, 1: bytes[at] ^= UInt8(1 << rng.int(0...7))
                case 2: bytes[at] = rng.byte()
                case 3: bytes.removeSubrange(at ..< min(bytes.count, at + rng.int(1...16)))
                case 4: bytes.insert(contentsOf: rng.bytes(rng.int(1...8)), at: at)
                default: bytes = Array(bytes.prefix(at))
                }
                if bytes.count <= 8 { break }
            }
            if rng.int(0...3) != 0 { bytes = fixingCRCs(bytes) }
            if expectSameVerdict(bytes, "fuzz round \(round) (seed \(seed))") { fastAccepted += 1 }
        }
        print("fuzz: the fast path decoded \(fastAccepted) of 1500 mutated files, libpng the rest")
        #expect(fastAccepted > 0)
    }
}
