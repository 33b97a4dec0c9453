// Regression tests: one per bug the hostile-input suite found, and every
// fuzz crash reproducer (from /dev/shm/masonry-fuzz-<target>.last), kept as bytes.

import CodecCore
import Foundation
import Testing
@testable import MasonryCLI
@testable import MasonrySheet
@testable import PNGCodec
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

@Suite struct Regressions {
    /// `-o <FIFO or device>` used to rename the temporary file over the node
    /// (as root, `masonry dir -o /dev/null` replaced /dev/null with a PNG).
    @Test func atomicOutputRefusesNonRegularTargets() throws {
        let folder = ScratchFolder("reg-fifo")
        let fifo = folder.sub("out.png")
        try #require(mkfifo(fifo, 0o644) == 0)
        #expect(throws: SheetError("cannot write \(fifo): it is not a regular file")) {
            _ = try AtomicOutputFile(target: RawPath(fifo))
        }
        #expect(listFolder(folder.path) == ["out.png"])
        // A regular file and a link to one are still replaced as before.
        let file = folder.write("plain.png", [1])
        let output = try AtomicOutputFile(target: RawPath(file))
        try output.write([2])
        try output.commit()
        #expect(readFile(file) == [2])
    }

    /// An ancillary chunk with a bad CRC used to be dropped without a word;
    /// the picture is still decoded, and the file now gets a warning.
    @Test func badAncillaryCRCIsReported() throws {
        var png = Sample.stored(before: PNGBytes.chunk("tEXt", Array("Comment\0hi".utf8)))
        let text = Sample.chunk("tEXt", in: png)
        png[text.data.upperBound] ^= 0xFF
        let decoder = try PNGDecoder(bytes: png)
        var rows = 0
        try decoder.readRows { _, _ in rows += 1 }
        #expect(rows == 9)
        #expect(decoder.trailingProblem == ImageError(.badCRC(chunk: "tEXt")))
        #expect(decoder.trailingProblem?.reason == "bad CRC in tEXt chunk")
        // A clean file has no trailing problem.
        let clean = try PNGDecoder(bytes: Sample.stored())
        try clean.readRows { _, _ in }
        #expect(clean.trailingProblem == nil)
    }

    /// The hand-made deflate bomb really is one (so the bomb tests test something):
    /// libpng inflates it as image data and every byte is zero.
    @Test func zeroBombInflatesAsClaimed() throws {
        let groups = 40
        let inflated = 1 + 258 * groups * 4        // 41 281 bytes
        let adler = UInt32(1) | UInt32(inflated % 65521) << 16
        let png = PNGBytes.signature + PNGBytes.ihdr(width: 64, height: 160) + PNGBytes.chunk("IDAT", PNGBytes.zlibZeroBomb(matchGroups: groups, adler: adler))
            + PNGBytes.chunk("IEND")
        // 160 rows of 257 bytes need 41 120 bytes; the stream holds 41 281, so libpng
        // decodes every row and then notes the extra data (benign).
        let decoder = try PNGDecoder(bytes: png)
        var rows = 0
        try decoder.readRows { _, row in
            #expect(row.allSatisfy { $0 == 0 })
            rows += 1
        }
        #expect(rows == 160)
    }

    /// Found by the option fuzzer: a usage error quoted the bad value as it was
    /// typed, so `--width $'1\n2'` printed a two-line reason (and raw escape
    /// bytes reached the terminal). Values are now quoted escaped.
    @Test func usageMessageEchoesValueUnescaped() throws {
        let action = try ArgumentParser.parse([Array("--width".utf8), Array("1\n\u{1B}[2J".utf8), Array("in".utf8)])
        guard case .render(let parsed) = action else { Issue.record("not a render action"); return }
        do {
            _ = try CommandSettings.make(from: parsed)
            Issue.record("accepted")
        } catch {
            #expect(!error.message.contains("\n") && !error.message.contains("\u{1B}"), "\(error.message)")
            #expect(error.message.contains("'1\\n\\x1b[2J'"), "\(error.message)")
        }
    }

    /// A 2147483647×2 header in a 60-byte file, with the pixel limit raised, used
    /// to hang for 30 s+ and grow past 3 GiB (libpng allocating and clearing two
    /// 8 GiB row buffers) before failing as truncated. Now refused from its size.
    @Test func impossibleImageDataIsRefusedBeforeAllocation() throws {
        let png = Sample.header(width: 0x7FFF_FFFF, height: 2)
        let start = DispatchTime.now()
        let error = #expect(throws: ImageError.self) { try PNGDecoder(bytes: png, limits: DecodeLimits(maxPixels: 1 << 40, maxWidth: Int(Int32.max))) }
        #expect(error?.kind == .malformed)
        #expect(error?.reason.hasPrefix("truncated image data") == true, "\(String(describing: error))")
        #expect(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds < 1_000_000_000)
        // A valid image is never refused: the tightest real case, a highly compressible one.
        let flat = try PNGEncoder.encode(pixels: [UInt8](repeating: 0, count: 2000 * 2000 * 4), width: 2000, height: 2000,
                                         format: .rgba8, settings: .small)
        #expect(try PNGDecoder.decodeRGBA(bytes: flat).pixels.count == 2000 * 2000 * 4)
    }
}
