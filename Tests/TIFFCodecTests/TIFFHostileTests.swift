import Foundation
import CodecCore
import Testing
import TIFFCodec

/// Hostile TIFFs, each refused from its header (or by the decoder) with its exact one-line
/// reason, before anything is allocated for its pixels.
@Suite struct TIFFHostileTests {
    static func reason(_ bytes: [UInt8]) -> String? {
        do {
            _ = try TIFFHeader(bytes: bytes)
            return nil
        } catch {
            return error.reason
        }
    }

    @Test func theBuilderMakesAReadableFile() throws {
        let bytes = TIFFBytes.grey(width: 6, height: 4).bytes
        #expect(Self.reason(bytes) == nil)
        #expect(decodeError(bytes) == nil)
    }

    @Test func truncatedAndMissingHeaders() {
        #expect(Self.reason([0x49, 0x49, 0x2A, 0x00, 8]) == "truncated TIFF file (in its header)")
        #expect(Self.reason(Array("GIF89a..".utf8)) == "not a TIFF file")
        #expect(Self.reason([0x49, 0x49, 0x2A, 0x00, 0, 0, 0, 0]) == "TIFF file has no image directory")
        #expect(Self.reason([0x49, 0x49, 0x2B, 0x00, 4, 0, 0, 0] + [UInt8](repeating: 0, count: 8))
                == "malformed BigTIFF header (offsets are not 8 bytes)")
    }

    @Test func directoryOffsetsPastTheEnd() {
        var bytes = TIFFBytes.grey(width: 6, height: 4).bytes
        bytes.replaceSubrange(4 ..< 8, with: [0xFF, 0xFF, 0, 0])
        #expect(Self.reason(bytes) == "TIFF image directory at offset 65535 lies past the end of the file")
        var next = TIFFBytes.grey(width: 6, height: 4)
        next.next = 1 << 30
        #expect(Self.reason(next.bytes) == "TIFF image directory at offset 1073741824 lies past the end of the file")
    }

    @Test func aLoopInTheDirectoryChain() {
        var tiff = TIFFBytes.grey(width: 6, height: 4)
        tiff.next = UInt32(tiff.ifdOffset)
        #expect(Self.reason(tiff.bytes) == "loop in the TIFF image directory chain (directory 1 points back to an earlier one)")
    }

    @Test func entryCountsAndArraysPastTheEnd() {
        var bytes = TIFFBytes.grey(width: 6, height: 4).bytes
        let ifd = TIFFBytes.grey(width: 6, height: 4).ifdOffset
        bytes.replaceSubrange(ifd ..< ifd + 2, with: [0x60, 0xEA])   // 60000 entries
        #expect(Self.reason(bytes) == "TIFF image directory at offset \(ifd) claims 60000 entries, more than the file holds")
        var bits = TIFFBytes.grey(width: 6, height: 4)
        bits.set(258, 3, [8, 8, 8])
        bits.set(277, 3, [3])
        bits.claimedCounts[258] = 1 << 30
        #expect(Self.reason(bits.bytes) == "TIFF tag 258's 1073741824 values lie past the end of the file")
    }

    @Test func stripsPastTheEndOrLargerThanTheFile() {
        var offset = TIFFBytes.grey(width: 6, height: 4)
        offset.set(273, 4, [1 << 20])
        #expect(Self.reason(offset.bytes) == "TIFF strip 0 lies past the end of the file")
        var count = TIFFBytes.grey(width: 6, height: 4)
        count.set(279, 4, [1 << 30])
        let size = count.bytes.count
        #expect(Self.reason(count.bytes) == "TIFF strip 0 claims 1073741824 bytes, more than the file's \(size)")
        var strips = TIFFBytes.grey(width: 6, height: 4)
        strips.set(278, 4, [1])
        #expect(Self.reason(strips.bytes) == "TIFF image lists 1 strips, its size needs 4")
    }

    /// A few-byte file claiming 100000×100000: refused by the limits before libtiff allocates.
    @Test func hugeClaimedSizes() throws {
        var huge = TIFFBytes.grey(width: 6, height: 4)
        huge.set(256, 4, [100_000])
        huge.set(257, 4, [100_000])
        huge.set(278, 4, [100_000])
        let header = try TIFFHeader(bytes: huge.bytes)
        #expect(header.width == 100_000)
        #expect(decodeError(huge.bytes) == ImageError(.pixelLimit(width: 100_000, height: 100_000, limit: DecodeLimits.defaultMaxPixels)))
        var zero = TIFFBytes.grey(width: 6, height: 4)
        zero.set(256, 4, [0])
        #expect(Self.reason(zero.bytes) == "TIFF image is 0×4")
    }

    @Test func layoutsThatAreNotRead() {
        // Signed samples are drawn (TIFFDecodeTests), but not premultiplied by a signed alpha,
        // nor as palette indices, nor of 64 bits; complex integers are not read at all.
        var premultiplied = TIFFBytes.grey(width: 6, height: 4)
        premultiplied.set(277, 3, [2])
        premultiplied.set(258, 3, [8, 8])
        premultiplied.set(338, 3, [1])
        premultiplied.set(339, 3, [2, 2])
        #expect(Self.reason(premultiplied.bytes) == "TIFF premultiplied alpha of signed integer samples is not supported")
        premultiplied.set(339, 3, [1, 1])
        #expect(Self.reason(premultiplied.bytes) == nil)
        var palette = TIFFBytes.grey(width: 6, height: 4)
        palette.set(262, 3, [3])
        palette.set(339, 3, [2])
        #expect(Self.reason(palette.bytes) == "TIFF palette image of 8-bit signed samples")
        var wide = TIFFBytes.grey(width: 6, height: 4)
        wide.set(258, 3, [64])
        wide.set(339, 3, [2])
        #expect(Self.reason(wide.bytes) == "TIFF samples of 64 bits are not supported")
        var complex = TIFFBytes.grey(width: 6, height: 4)
        complex.set(339, 3, [5])
        #expect(Self.reason(complex.bytes) == "TIFF sample format 5 is not supported")
        // Floats of 16, 32 and 64 bits are read; not 24-bit ones, nor of 8 bits.
        for bits: UInt32 in [8, 24] {
            var float = TIFFBytes.grey(width: 6, height: 4)
            float.set(258, 3, [bits])
            float.set(339, 3, [3])
            #expect(Self.reason(float.bytes) == "TIFF floating-point samples of \(bits) bits are not supported (16, 32 and 64 are)")
        }
        var lab = TIFFBytes.grey(width: 6, height: 4)
        lab.set(262, 3, [8])
        #expect(Self.reason(lab.bytes) == "TIFF photometric interpretation 8 is not supported")
        var mixed = TIFFBytes.grey(width: 6, height: 4)
        mixed.set(277, 3, [2])
        mixed.set(258, 3, [8, 16])
        #expect(Self.reason(mixed.bytes) == "TIFF samples of different bit depths are not supported")
        // libtiff refuses the directory ("Cannot handle different values per sample"); the
        // header says why first, as for the depths.
        var formats = TIFFBytes.grey(width: 6, height: 4)
        formats.set(277, 3, [2])
        formats.set(258, 3, [8, 8])
        formats.set(339, 3, [1, 3])
        #expect(Self.reason(formats.bytes) == "TIFF samples of different formats are not supported")
        var ycbcr = TIFFBytes.grey(width: 6, height: 4)
        ycbcr.set(262, 3, [6])
        ycbcr.set(277, 3, [3])
        ycbcr.set(258, 3, [8, 8, 8])
        #expect(Self.reason(ycbcr.bytes) == "TIFF YCbCr samples are only read JPEG-compressed")
        var tiles = TIFFBytes.grey(width: 6, height: 4)
        tiles.set(322, 4, [10])
        tiles.set(323, 4, [16])
        #expect(Self.reason(tiles.bytes) == "TIFF tiles of 10×16 (not multiples of 16)")
    }

    /// A LONG8 TileWidth of 2^63 − 16 (a multiple of 16): refused, where rounding the tile count
    /// up overflowed (the round-4 fuzz campaign's tiff-header finding).
    @Test func aTileSideOver32BitsIsRefused() {
        var wide = TIFFBytes.grey(width: 32, height: 16)
        wide.set(322, 16, [0xFFFF_FFF0, 0x7FFF_FFFF])   // one LONG8, as two little-endian halves
        wide.claimedCounts[322] = 1
        wide.set(323, 4, [16])
        #expect(Self.reason(wide.bytes) == "TIFF tiles of 9223372036854775792×16 (over 32-bit sides)")
    }

    /// Damaged compressed data: libtiff's words, never a crash.
    @Test func corruptImageDataIsThrown() throws {
        var bytes = try fixtureFolder.bytes("grey8-lzw.tif")
        let header = try TIFFHeader(bytes: bytes)
        #expect(header.page.compression == 5)
        // Garbage over the middle of the LZW data (tifffile writes the directory first).
        let middle = bytes.count / 2
        bytes.replaceSubrange(middle ..< middle + 200, with: [UInt8](repeating: 0xFF, count: 200))
        let error = try #require(decodeError(bytes))
        #expect(error.kind == .malformed && !error.reason.isEmpty && !error.reason.contains("\n"), "\(error)")
    }

    /// Every one-byte cut of a fixture is refused or drawn, in bounded time, never a crash.
    @Test(arguments: ["rgb8-tiles-lzw", "palette4", "rgb8-jpeg-ycbcr", "rgba16-associated"])
    func everyCutIsRefusedOrDrawn(_ name: String) throws {
        let bytes = try fixtureFolder.bytes(name + ".tif")
        for length in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 97)) {
            let cut = Array(bytes.prefix(length))
            if let error = decodeError(cut) {
                #expect(!error.reason.isEmpty && !error.reason.contains("\n"), "\(name) cut at \(length)")
            }
        }
    }
}
