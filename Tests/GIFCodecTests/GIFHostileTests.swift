import Foundation
import GIFCodec
import CodecCore
import PNGCodec
import Testing

/// Broken and hostile GIFs: each gives a one-line reason, or the picture as far as it goes with
/// a trailing problem; never a crash, a hang or a large allocation.
@Suite struct GIFHostileTests {
    static let palette: [UInt8] = [255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255]

    /// An opaque 8×8 GIF whose 64 pixels are index (x + y) % 4.
    static let opaque: (bytes: [UInt8], pixels: [UInt8]) = {
        let indices: [UInt8] = (0..<64).map { (index: Int) in UInt8((index % 8 + index / 8) % 4) }
        let bytes: [UInt8] = GIFBytes.screen(width: 8, height: 8, palette: palette) + GIFBytes.frame(width: 8, height: 8, indices: indices)
        return (bytes + GIFBytes.trailer, indices)
    }()

    static func rgba(_ index: UInt8) -> [UInt8] { Array(palette[Int(index) * 3 ..< Int(index) * 3 + 3]) + [255] }

    @Test func notAGIF() {
        #expect(decodeOutcome(PNGBytes.signature + [UInt8](repeating: 0, count: 40)).error == ImageError(.malformed, "not a GIF file"))
        var other = GIFBytes.small
        other[4] = UInt8(ascii: "8")
        #expect(decodeOutcome(other).error == ImageError(.malformed, "unknown GIF version (not 87a or 89a)"))
        #expect(!GIFHeader.hasSignature(other) && !GIFHeader.hasSignature(Array("GIF8".utf8)))
        #expect(GIFHeader.hasSignature(Array("GIF87a".utf8)) && GIFHeader.hasSignature(GIFBytes.small))
    }

    /// A few dozen bytes claiming a 65535×65535 screen (or a frame placed far out, which grows
    /// the canvas) are refused from the header against the limits, before anything is allocated.
    @Test func hugeCanvasClaims() throws {
        let frame = GIFBytes.frame(width: 1, height: 1, indices: [0])
        let huge = GIFBytes.screen(width: 65535, height: 65535, palette: Self.palette) + frame + GIFBytes.trailer
        #expect(huge.count < 64)
        #expect(try GIFHeader(bytes: huge).width == 65535)
        #expect(decodeOutcome(huge).error == ImageError(.pixelLimit(width: 65535, height: 65535, limit: DecodeLimits.defaultMaxPixels)))
        let far = GIFBytes.screen(width: 1, height: 1, palette: Self.palette)
            + GIFBytes.frame(left: 65000, top: 60000, width: 1, height: 1, indices: [0]) + GIFBytes.trailer
        #expect(decodeOutcome(far).error == ImageError(.pixelLimit(width: 65001, height: 60001, limit: DecodeLimits.defaultMaxPixels)))
        let wide = GIFBytes.screen(width: 65535, height: 1, palette: Self.palette) + frame + GIFBytes.trailer
        #expect(decodeOutcome(wide, limits: DecodeLimits(maxWidth: 4096)).error == ImageError(.widthLimit(width: 65535, limit: 4096)))
    }

    /// Cut before the first frame's image data: the header walk refuses the file.
    @Test func truncatedBeforeTheImageData() throws {
        let bytes = Self.opaque.bytes
        let imageData = 13 + 12 + 10 + 1   // screen, 4-entry table, descriptor, code size
        for cut in [0, 3, 6, 12, 13, 20, 25, 30, imageData - 1] {
            let outcome = decodeOutcome(Array(bytes.prefix(cut)))
            let expected = cut < 6 ? "not a GIF file" : "truncated GIF file (before the image data)"
            #expect(outcome.error == ImageError(.malformed, expected), "cut at \(cut)")
        }
        // In an extension before the first frame, and a sub-block length past the end there.
        let comment = [0x21, 0xFE, 200] + [UInt8](repeating: 65, count: 20)
        let header = GIFBytes.screen(width: 2, height: 2, palette: Self.palette)
        #expect(decodeOutcome(header + comment).error == ImageError(.malformed, "truncated GIF file (before the image data)"))
        #expect(decodeOutcome(header + [0x21]).error == ImageError(.malformed, "truncated GIF file (before the image data)"))
    }

    /// A 64×16 frame whose row r is index r % 4, stored in order or interlaced: plain LZW at
    /// code size 2 is 96 codes (36 bytes) a row, so its first 255-byte sub-block holds 7 rows.
    static func striped(interlaced: Bool) -> [UInt8] {
        let height = 16
        var order = Array(0..<height)
        if interlaced {
            order = [(0, 8), (4, 8), (2, 4), (1, 2)].flatMap { stride(from: $0.0, to: height, by: $0.1) }
        }
        let indices = order.flatMap { row in [UInt8](repeating: UInt8(row % 4), count: 64) }
        return GIFBytes.screen(width: 64, height: height, palette: palette)
            + GIFBytes.frame(width: 64, height: height, indices: indices, interlaced: interlaced) + GIFBytes.trailer
    }

    /// Where the striped frame's first sub-block starts (its length byte).
    static let stripedData = 13 + 12 + 10 + 1

    /// Cut inside the first frame's image data: the rows that arrived are drawn, the rest of the
    /// frame is transparent, and the trailing problem says so (what a browser shows for a
    /// download cut short). giflib reads whole sub-blocks, so a cut inside one loses that
    /// sub-block (at most 255 bytes) too.
    @Test func truncatedInsideTheImageData() throws {
        let bytes = Self.striped(interlaced: false)
        for (cut, rowsExpected) in [(Self.stripedData + 1, 0), (Self.stripedData + 200, 0), (Self.stripedData + 256, 7),
                                    (Self.stripedData + 300, 7), (bytes.count - 3, 14)] {
            let outcome = decodeOutcome(Array(bytes.prefix(cut)))
            #expect(outcome.error == nil, "cut at \(cut)")
            #expect(outcome.trailing == ImageError(.truncatedImageData), "cut at \(cut)")
            #expect(outcome.rows == 16)
            let header = try GIFHeader(bytes: Array(bytes.prefix(cut)))
            #expect(!header.isFirstFrameComplete && header.note == "truncated in frame 1")
            for row in 0..<16 {
                let pixels = Array(outcome.pixels[row * 256 ..< row * 256 + 256])
                let expected = row < rowsExpected ? (0..<64).flatMap { _ in Self.rgba(UInt8(row % 4)) } : [UInt8](repeating: 0, count: 256)
                #expect(pixels == expected, "cut at \(cut), row \(row)")
            }
        }
    }

    /// An interlaced frame cut after its first sub-block: the first 7 lines in stored order
    /// (rows 0, 8, 4, 12, 2, 6, 10) are drawn, the others are transparent.
    @Test func truncatedInterlacedFrame() throws {
        let outcome = decodeOutcome(Array(Self.striped(interlaced: true).prefix(Self.stripedData + 256)))
        #expect(outcome.error == nil && outcome.trailing == ImageError(.truncatedImageData))
        for row in 0..<16 {
            let pixels = Array(outcome.pixels[row * 256 ..< row * 256 + 256])
            let drawn = [0, 8, 4, 12, 2, 6, 10].contains(row)
            #expect(pixels == (drawn ? (0..<64).flatMap { _ in Self.rgba(UInt8(row % 4)) } : [UInt8](repeating: 0, count: 256)),
                    "row \(row)")
        }
    }

    /// A sub-block claiming more bytes than the file holds, inside the first frame: the frame
    /// is drawn as far as its data goes.
    @Test func subBlockLengthPastTheEnd() throws {
        var bytes = Array(Self.opaque.bytes.dropLast())   // no trailer
        let firstBlock = 13 + 12 + 10 + 1
        bytes[firstBlock] = 255
        let header = try GIFHeader(bytes: bytes)
        #expect(!header.isFirstFrameComplete && header.frameCount == 1)
        let outcome = decodeOutcome(bytes)
        #expect(outcome.error == nil && outcome.trailing == ImageError(.truncatedImageData))
    }

    @Test(arguments: [0, 1, 9, 12, 255])
    func badLZWCodeSize(_ codeSize: Int) {
        var bytes = Self.opaque.bytes
        bytes[13 + 12 + 10] = UInt8(codeSize)
        #expect(decodeOutcome(bytes).error == ImageError(.malformed, "bad LZW code size \(codeSize) in the first GIF frame"))
    }

    /// Codes the LZW table does not hold yet: giflib stops, the rows so far are kept, and an
    /// opaque frame's missing rows take the screen's background colour (index 0 here).
    @Test func corruptLZWCodes() throws {
        var codes = [UInt8](repeating: 1, count: 24)   // three rows of index 1
        codes += [7, 7, 7, 7, 7, 7]                      // then codes the table does not define
        let plain = GIFBytes.plainLZW(codes, codeSize: 2)
        let bytes = GIFBytes.screen(width: 8, height: 8, palette: Self.palette)
            + [0x2C] + GIFBytes.le16(0) + GIFBytes.le16(0) + GIFBytes.le16(8) + GIFBytes.le16(8) + [0, 2]
            + GIFBytes.subBlocks(plain) + GIFBytes.trailer
        let outcome = decodeOutcome(bytes)
        #expect(outcome.error == nil)
        #expect(outcome.trailing == ImageError(.malformed, "corrupt image data (image is defective, decoding aborted)"))
        let rows = (0..<8).map { Array(outcome.pixels[$0 * 32 ..< $0 * 32 + 32]) }
        #expect(rows.prefix(3).allSatisfy { $0 == (0..<8).flatMap { _ in Self.rgba(1) } })
        #expect(rows.suffix(5).allSatisfy { $0 == (0..<8).flatMap { _ in Self.rgba(0) } })
    }

    /// The LZW end code before the frame is complete.
    @Test func imageDataEndsEarly() throws {
        let plain = GIFBytes.plainLZW([UInt8](repeating: 2, count: 16), codeSize: 2)
        let bytes = GIFBytes.screen(width: 8, height: 8, palette: Self.palette) + GIFBytes.graphicControl(transparent: 3)
            + [0x2C] + GIFBytes.le16(0) + GIFBytes.le16(0) + GIFBytes.le16(8) + GIFBytes.le16(8) + [0, 2]
            + GIFBytes.subBlocks(plain) + GIFBytes.trailer
        let outcome = decodeOutcome(bytes)
        #expect(outcome.error == nil)
        #expect(outcome.trailing == ImageError(.malformed, "corrupt image data (image EOF detected before image complete)"))
        #expect(outcome.pixels.prefix(64) == ArraySlice((0..<16).flatMap { _ in Self.rgba(2) }))
        #expect(outcome.pixels.dropFirst(64).allSatisfy { $0 == 0 })
    }

    /// A first frame outside the logical screen, or larger than it, grows the canvas (Pillow and
    /// Chromium alike); the uncovered part is transparent.
    @Test func frameOutsideOrLargerThanTheScreen() throws {
        let bytes = GIFBytes.screen(width: 2, height: 2, palette: Self.palette)
            + GIFBytes.frame(left: 3, top: 1, width: 2, height: 2, indices: [0, 1, 2, 3]) + GIFBytes.trailer
        let header = try GIFHeader(bytes: bytes)
        #expect(header.width == 5 && header.height == 3 && header.screenWidth == 2)
        let outcome = decodeOutcome(bytes)
        #expect(outcome.error == nil && outcome.trailing == nil && outcome.rows == 3)
        let clear = [UInt8](repeating: 0, count: 4)
        let expected = [clear, clear, clear, clear, clear,
                        clear, clear, clear, Self.rgba(0), Self.rgba(1),
                        clear, clear, clear, Self.rgba(2), Self.rgba(3)].flatMap { $0 }
        #expect(outcome.pixels == expected)
        let larger = GIFBytes.screen(width: 1, height: 1, palette: Self.palette)
            + GIFBytes.frame(width: 2, height: 2, indices: [3, 2, 1, 0]) + GIFBytes.trailer
        let grown = decodeOutcome(larger)
        #expect(grown.error == nil && grown.pixels == [3, 2, 1, 0].flatMap { Self.rgba(UInt8($0)) })
    }

    @Test func emptyOrMissingFirstFrame() {
        let screen = GIFBytes.screen(width: 4, height: 4, palette: Self.palette)
        #expect(decodeOutcome(screen + GIFBytes.trailer).error == ImageError(.malformed, "no image in the GIF file"))
        let empty = screen + GIFBytes.frame(width: 0, height: 4, indices: []) + GIFBytes.trailer
        #expect(decodeOutcome(empty).error == ImageError(.malformed, "first GIF frame is 0×4"))
        #expect(decodeOutcome(screen + [0x99]).error
                == ImageError(.malformed, "malformed GIF file (unknown block 0x99 before the first frame)"))
    }

    /// 100,000 one-pixel frames after the first: counted in one bounded pass (a 2 MB file read
    /// through one 64 KiB window), and only the first is decoded.
    @Test func aHundredThousandFrames() throws {
        var bytes = GIFBytes.screen(width: 8, height: 8, palette: Self.palette)
            + GIFBytes.frame(width: 8, height: 8, indices: Self.opaque.pixels)
        let tiny = GIFBytes.graphicControl(transparent: nil) + GIFBytes.frame(width: 1, height: 1, indices: [1])
        bytes.reserveCapacity(bytes.count + 100_000 * tiny.count + 1)
        for _ in 0..<100_000 { bytes += tiny }
        bytes += GIFBytes.trailer
        let header = try GIFHeader(bytes: bytes)
        #expect(header.frameCount == 100_001 && header.note == nil)
        let outcome = decodeOutcome(bytes)
        #expect(outcome.error == nil && outcome.pixels == Self.opaque.pixels.flatMap(Self.rgba))
    }

    /// Damage after the first frame: the picture is whole, the frames are counted up to the
    /// damage and the note says where the walk stopped.
    @Test func damageAfterTheFirstFrame() throws {
        let body = Array(Self.opaque.bytes.dropLast())
        let second = GIFBytes.frame(width: 8, height: 8, indices: Self.opaque.pixels)
        let cases: [(bytes: [UInt8], frames: Int, note: String)] = [
            (body, 1, "no trailer after frame 1"),
            (body + second, 2, "no trailer after frame 2"),
            (body + second.prefix(5), 1, "truncated in frame 2"),
            (body + second.prefix(second.count - 4), 2, "truncated in frame 2"),
            (body + [0x21, 0xF9, 4, 0], 1, "truncated after frame 1"),
            (body + [0x42, 0x3B], 1, "unknown block after frame 1"),
            (body + second + [0x21], 2, "truncated after frame 2"),
        ]
        for (index, entry) in cases.enumerated() {
            let header = try GIFHeader(bytes: entry.bytes)
            #expect(header.frameCount == entry.frames && header.note == entry.note && header.isFirstFrameComplete, "case \(index)")
            let outcome = decodeOutcome(entry.bytes)
            #expect(outcome.error == nil && outcome.trailing == nil, "case \(index)")
            #expect(outcome.pixels == Self.opaque.pixels.flatMap(Self.rgba), "case \(index)")
        }
    }

    /// Indices past the palette are opaque black (Pillow); a transparent index the code size
    /// cannot reach leaves the rows opaque RGB.
    @Test func indicesAndTransparencyAtTheEdges() throws {
        let twoColours: [UInt8] = [10, 20, 30, 40, 50, 60]
        let bytes = GIFBytes.screen(width: 4, height: 1, palette: twoColours) + GIFBytes.graphicControl(transparent: 200)
            + GIFBytes.frame(width: 4, height: 1, indices: [0, 1, 2, 3]) + GIFBytes.trailer
        let decoder = try GIFDecoder(file: InputFile(path: write(bytes)), limits: DecodeLimits())
        #expect(decoder.rowFormat == .rgb8)
        #expect(try decodeRGBA(decoder) == [10, 20, 30, 255, 40, 50, 60, 255, 0, 0, 0, 255, 0, 0, 0, 255])
        let reachable = GIFBytes.screen(width: 4, height: 1, palette: twoColours) + GIFBytes.graphicControl(transparent: 3)
            + GIFBytes.frame(width: 4, height: 1, indices: [0, 1, 2, 3]) + GIFBytes.trailer
        let outcome = decodeOutcome(reachable)
        #expect(outcome.pixels == [10, 20, 30, 255, 40, 50, 60, 255, 0, 0, 0, 255, 0, 0, 0, 0])
    }

    private let folder = TemporaryFolder("gif-hostile")

    private func write(_ bytes: [UInt8]) -> String {
        let path = folder.file("input.gif")
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)), "cannot write \(path)")
        return path
    }
}
