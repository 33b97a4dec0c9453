import Foundation
import CodecCore
import PNGCodec
import Raster
import Testing
import WebPCodec

/// Hostile and damaged WebP files, made by byte surgery on the fixtures: each is refused with
/// its exact one-line reason (or drawn with its exact trailing problem), never a crash, a hang
/// or an allocation the file's claims ask for.
@Suite struct WebPHostileTests {
    static let lossy = try! fixtureFolder.bytes("coffee-lossy-q80.webp")          // RIFF, VP8
    static let lossless = try! fixtureFolder.bytes("fern-lossless.webp")          // RIFF, VP8L
    static let withExif = try! fixtureFolder.bytes("cat-orientation-6.webp")      // RIFF, VP8X, VP8, EXIF
    static let animated = try! fixtureFolder.bytes("animated-3-frames.webp")      // RIFF, VP8X, ANIM, 3 ANMF

    static func reason(_ bytes: [UInt8], limits: DecodeLimits = DecodeLimits()) -> String? {
        decodeOutcome(bytes, limits: limits).error?.reason
    }

    /// The lossy fixture with its VP8 frame tag's first-partition length set to `length`.
    static func lossy(partitionLength length: Int) -> [UInt8] {
        var bytes = lossy
        let tag = Int(bytes[20]) | Int(bytes[21]) << 8 | Int(bytes[22]) << 16
        let patched = tag & 0x1F | length << 5
        bytes[20] = UInt8(patched & 0xFF); bytes[21] = UInt8((patched >> 8) & 0xFF); bytes[22] = UInt8(patched >> 16)
        return bytes
    }

    /// A few-byte VP8 key frame claiming `width` × `height` (first partition of one byte).
    static func tinyVP8(width: Int, height: Int) -> [UInt8] {
        let tag = 0x10 | 1 << 5   // key frame, profile 0, shown, first partition 1 byte
        let frame: [UInt8] = [UInt8(tag & 0xFF), UInt8(tag >> 8), 0, 0x9D, 0x01, 0x2A,
                              UInt8(width & 0xFF), UInt8(width >> 8), UInt8(height & 0xFF), UInt8(height >> 8), 0, 0, 0, 0]
        return WebPSurgery.riff([WebPSurgery.chunk("VP8 ", frame)])
    }

    /// A VP8L header claiming `width` × `height` and a few bytes of data.
    static func tinyVP8L(width: Int, height: Int) -> [UInt8] {
        let bits = (width - 1) | (height - 1) << 14
        return WebPSurgery.riff([WebPSurgery.chunk("VP8L", [0x2F] + WebPSurgery.le32(bits) + [0, 0, 0])])
    }

    /// The animated fixture's chunks after its VP8X: ANIM and the first ANMF.
    static var animationChunks: (anim: [UInt8], firstFrame: [UInt8]) {
        let chunks = WebPSurgery.chunks(animated)
        func whole(_ index: Int) -> [UInt8] {
            let chunk = chunks[index]
            return Array(animated[chunk.offset ..< chunk.offset + 8 + chunk.size + (chunk.size & 1)])
        }
        return (whole(1), whole(2))
    }

    // MARK: Claimed sizes, refused from the header before anything is allocated

    @Test func hugeClaimsAreRefusedFromTheHeader() throws {
        #expect(Self.reason(Self.tinyVP8(width: 16383, height: 16383)) == "image is 16383×16383, over the 178956970-pixel limit")
        #expect(Self.reason(Self.tinyVP8L(width: 16384, height: 16384)) == "image is 16384×16384, over the 178956970-pixel limit")
        #expect(Self.reason(Self.tinyVP8(width: 16383, height: 1), limits: DecodeLimits(maxWidth: 1000))
                == "image is 16383 px wide, over the 1000-pixel width limit")
        #expect(Self.reason(Self.tinyVP8L(width: 4097, height: 4097), limits: .init(maxPixels: 1 << 24, maxWidth: 1 << 14))
                == "image is 4097×4097, over the 16777216-pixel limit")
        // Within the pixel limit, but over libwebp's memory budget: a lossless picture holds its
        // ARGB pixels whole, and a full-size lossy one its output; shrunk on load, it fits.
        #expect(Self.reason(Self.tinyVP8L(width: 12000, height: 12000)) == "image needs more decoding memory than the budget allows")
        #expect(Self.reason(Self.tinyVP8(width: 12000, height: 12000)) == "image needs more decoding memory than the budget allows")
        let folder = TemporaryFolder()
        let path = folder.file("tiny.webp")
        #expect(FileManager.default.createFile(atPath: path, contents: Data(Self.tinyVP8(width: 12000, height: 12000))))
        let shrunk = try openDecoder(path, minimum: 100)
        #expect((shrunk.width, shrunk.height) == (200, 200))
        #expect(throws: ImageError(.malformed, "corrupt VP8 image data")) { _ = try shrunk.nextRow() }
        // An animation whose canvas is 16777216² (2^48 pixels) around a 160×110 frame.
        let (anim, frame) = Self.animationChunks
        let huge = WebPSurgery.riff([WebPSurgery.vp8x(flags: 0x12, width: 1 << 24, height: 1 << 24), anim, frame])
        #expect(huge.count < 5000)
        #expect(Self.reason(huge) == "image is 16777216×16777216, over the 178956970-pixel limit")
        #expect(try WebPHeader(bytes: huge).width == 1 << 24)
        // A still's canvas must be its image's size.
        let payload = Array(Self.lossy[12...])
        let still = WebPSurgery.riff([WebPSurgery.vp8x(flags: 0, width: 1 << 24, height: 1 << 24), payload])
        #expect(Self.reason(still) == "malformed WebP file (the VP8X canvas is 16777216×16777216, its image 300×200)")
    }

    // MARK: Truncation

    @Test(arguments: [10, 12, 16, 20, 25, 29, 30, 4000, 8289])
    func truncatedBeforeThePictureIsComplete(at cut: Int) {
        #expect(Self.reason(Array(Self.lossy.prefix(cut))) == "truncated WebP file (\(cut) of \(Self.lossy.count) bytes)")
    }

    @Test func tooShortToBeAWebP() {
        #expect(Self.reason(Array(Self.lossy.prefix(7))) == "not a WebP file")
        #expect(Self.reason([]) == "not a WebP file")
    }

    /// Cut inside the EXIF chunk that follows the picture: drawn, with the damage as the
    /// trailing problem (and no orientation, since the EXIF chunk is gone).
    @Test func truncatedAfterThePicture() throws {
        let exif = WebPSurgery.offset(of: "EXIF", in: Self.withExif)
        let cut = Array(Self.withExif.prefix(exif + 12))
        let outcome = decodeOutcome(cut)
        #expect(outcome.error == nil && outcome.rows == 160)
        #expect(outcome.trailing?.reason == "truncated WebP file (\(cut.count) of \(Self.withExif.count) bytes)")
        #expect(try WebPHeader(bytes: cut).orientation == .up)
        #expect(try WebPHeader(bytes: Self.withExif).orientation == .right)
    }

    /// The image chunk complete by its sizes, but holding only part of the picture's data.
    @Test func imageDataEndingEarly() {
        let kept = 4000
        var bytes = Array(Self.lossy.prefix(kept))
        bytes = WebPSurgery.setting(bytes, le32: kept - 8, at: 4)
        bytes = WebPSurgery.setting(bytes, le32: kept - 20, at: 16)
        #expect(Self.reason(bytes) == "truncated VP8 image data")
    }

    // MARK: Lying lengths

    @Test func riffSizeLies() throws {
        let longer = WebPSurgery.setting(Self.lossy, le32: Self.lossy.count - 8 + 100, at: 4)
        let outcome = decodeOutcome(longer)
        #expect(outcome.error == nil && outcome.rows == 200)
        #expect(outcome.trailing?.reason == "truncated WebP file (\(Self.lossy.count) of \(Self.lossy.count + 100) bytes)")
        #expect(Self.reason(WebPSurgery.setting(Self.lossy, le32: 100, at: 4)) == "malformed WebP file (the VP8 chunk runs past the RIFF size)")
        #expect(Self.reason(WebPSurgery.setting(Self.lossy, le32: 4, at: 4)) == "malformed WebP file (RIFF size 4 is too small)")
        let endless = WebPSurgery.setting(Self.withExif, le32: 0xFFFF_FFFF, at: 4)
        #expect(decodeOutcome(endless).trailing?.reason == "truncated WebP file (\(Self.withExif.count) of 4294967303 bytes)")
        #expect(try WebPHeader(bytes: endless).orientation == .right)
        // A RIFF size that ends inside a chunk header after the picture.
        let exif = WebPSurgery.offset(of: "EXIF", in: Self.withExif)
        let short = WebPSurgery.setting(Self.withExif, le32: exif + 4 - 8, at: 4)
        #expect(decodeOutcome(short).trailing?.reason == "malformed WebP file (a chunk header runs past the RIFF size)")
    }

    @Test func chunkSizePastTheEndOfTheFile() {
        #expect(Self.reason(WebPSurgery.setting(Self.lossy, le32: 0x7FFF_FFFF, at: 16))
                == "malformed WebP file (the VP8 chunk runs past the end of the file)")
        let exif = WebPSurgery.offset(of: "EXIF", in: Self.withExif)
        let outcome = decodeOutcome(WebPSurgery.setting(Self.withExif, le32: 1 << 30, at: exif + 4))
        #expect(outcome.error == nil && outcome.rows == 160)
        #expect(outcome.trailing?.reason == "malformed WebP file (the EXIF chunk runs past the end of the file)")
        // The first frame's VP8 chunk claims more than its ANMF chunk holds.
        let anmf = WebPSurgery.offset(of: "ANMF", in: Self.animated)
        let inner = anmf + 8 + 16
        #expect(String(decoding: Self.animated[inner ..< inner + 4], as: UTF8.self) == "VP8 ")
        #expect(Self.reason(WebPSurgery.setting(Self.animated, le32: 1 << 20, at: inner + 4))
                == "malformed WebP file (the VP8 chunk runs past its ANMF chunk)")
    }

    // MARK: Corrupt data

    @Test func corruptBitstreams() {
        #expect(Self.reason(Self.lossy(partitionLength: 1)) == "corrupt VP8 image data")
        #expect(Self.reason(Self.lossy(partitionLength: 9000)) == "corrupt VP8 data (first partition larger than the chunk)")
        var noKeyFrame = Self.lossy
        noKeyFrame[20] |= 1
        #expect(Self.reason(noKeyFrame) == "corrupt VP8 data (not a key frame)")
        var noStartCode = Self.lossy
        noStartCode[24] = 0
        #expect(Self.reason(noStartCode) == "corrupt VP8 data (no start code)")
        var zeroWidth = Self.lossy
        zeroWidth[26] = 0; zeroWidth[27] = 0
        #expect(Self.reason(zeroWidth) == "corrupt VP8 data (image is 0×200)")
        // Partition sizes that point past the chunk: libwebp waits for data that never comes.
        var scrambled = Self.lossy
        scrambled.replaceSubrange(30 ..< 70, with: [UInt8](repeating: 0xFF, count: 40))
        #expect(Self.reason(scrambled) == "truncated VP8 image data")

        var lossless = Self.lossless
        lossless.replaceSubrange(30 ..< 70, with: [UInt8](repeating: 0, count: 40))
        #expect(Self.reason(lossless) == "corrupt VP8L image data")
        var noSignature = Self.lossless
        noSignature[20] = 0x2E
        #expect(Self.reason(noSignature) == "corrupt VP8L data (no signature)")
        var version = Self.lossless
        version[24] |= 0x20
        #expect(Self.reason(version) == "corrupt VP8L data (version 1)")
    }

    // MARK: Structure

    @Test func malformedStructure() {
        let payload = Array(Self.lossy[12...])
        #expect(Self.reason(WebPSurgery.riff([WebPSurgery.chunk("JUNK", [1, 2]), payload]))
                == "malformed WebP file (first chunk is JUNK, not VP8, VP8L or VP8X)")
        #expect(Self.reason(WebPSurgery.riff([[1, 0, 0x41, 0xFF, 2, 0, 0, 0, 1, 2], payload]))
                == "malformed WebP file (first chunk is ??A?, not VP8, VP8L or VP8X)")
        #expect(Self.reason(WebPSurgery.riff([WebPSurgery.chunk("VP8X", [])]))
                == "malformed WebP file (VP8X chunk of 0 bytes, not 10)")
        #expect(Self.reason(WebPSurgery.riff([WebPSurgery.chunk("VP8 ", [])])) == "corrupt VP8 data (frame header too short)")
        #expect(Self.reason(WebPSurgery.riff([WebPSurgery.chunk("VP8L", [0x2F])])) == "corrupt VP8L data (header too short)")
        let (anim, frame) = Self.animationChunks
        #expect(Self.reason(WebPSurgery.riff([WebPSurgery.vp8x(flags: 0x12, width: 240, height: 160), anim]))
                == "malformed WebP file (animation without frames)")
        #expect(Self.reason(WebPSurgery.riff([WebPSurgery.vp8x(flags: 0x12, width: 240, height: 160), anim, WebPSurgery.chunk("ANMF", [])]))
                == "malformed WebP file (ANMF chunk of 0 bytes is too short)")
        #expect(Self.reason(WebPSurgery.riff([WebPSurgery.vp8x(flags: 0x12, width: 100, height: 100), anim, frame]))
                == "malformed WebP file (frame 1, 160×110 at 40,30, lies outside the 100×100 canvas)")
        let emptyFrame = WebPSurgery.chunk("ANMF", Array(frame[8 ..< 24]))
        #expect(Self.reason(WebPSurgery.riff([WebPSurgery.vp8x(flags: 0x12, width: 240, height: 160), anim, emptyFrame]))
                == "malformed WebP file (frame 1 has no image data)")
        var wrongSize = frame
        wrongSize[14] = 99   // frame width - 1, low byte: 100 wide instead of 160
        #expect(Self.reason(WebPSurgery.riff([WebPSurgery.vp8x(flags: 0x12, width: 240, height: 160), anim, wrongSize]))
                == "malformed WebP file (frame 1 is 100×110, its image 160×110)")
    }

    /// 100,000 zero-size chunks before (or instead of) the picture: walked once, linearly.
    @Test func zeroSizeChunks() throws {
        let junk = [[UInt8]](repeating: WebPSurgery.chunk("JUNK", []), count: 100_000)
        let vp8x = WebPSurgery.vp8x(flags: 0, width: 300, height: 200)
        #expect(Self.reason(WebPSurgery.riff([vp8x] + junk)) == "malformed WebP file (no image data)")
        let picture = Array(Self.lossy[12...])
        let outcome = decodeOutcome(WebPSurgery.riff([vp8x] + junk + [picture]))
        #expect(outcome.error == nil && outcome.rows == 200 && outcome.trailing == nil)
    }

    /// 100,000 frames: counted from their chunk headers; only the first is decoded.
    @Test func aHundredThousandFrames() throws {
        let (anim, frame) = Self.animationChunks
        let tinyFrame = WebPSurgery.chunk("ANMF", WebPSurgery.le24(0) + WebPSurgery.le24(0) + WebPSurgery.le24(1)
                                          + WebPSurgery.le24(1) + WebPSurgery.le24(10) + [0])
        let bytes = WebPSurgery.riff([WebPSurgery.vp8x(flags: 0x12, width: 240, height: 160), anim, frame]
                                     + [[UInt8]](repeating: tinyFrame, count: 99_999))
        let header = try WebPHeader(bytes: bytes)
        #expect(header.frameCount == 100_000)
        let folder = TemporaryFolder()
        let path = folder.file("frames.webp")
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let pixels = try allRows(openDecoder(path))
        let reference = try allRows(openDecoder(WebPFixture.named("animated-3-frames").path))
        #expect(pixels == reference)
    }

    // MARK: Metadata

    @Test func oversizedICCProfileIsDroppedWithANote() throws {
        let payload = Array(Self.lossy[12...])
        let profile = WebPSurgery.chunk("ICCP", [UInt8](repeating: 7, count: (4 << 20) + 1))
        let bytes = WebPSurgery.riff([WebPSurgery.vp8x(flags: 0x20, width: 300, height: 200), profile, payload])
        let header = try WebPHeader(bytes: bytes)
        #expect(header.iccProfile == nil)
        #expect(header.colorNote == "ICC profile of 4194305 bytes dropped (over 4 MiB)")
        let kept = WebPSurgery.riff([WebPSurgery.vp8x(flags: 0x20, width: 300, height: 200),
                                     WebPSurgery.chunk("ICCP", [1, 2, 3]), payload])
        #expect(try WebPHeader(bytes: kept).iccProfile == [1, 2, 3])
        #expect(decodeOutcome(bytes).rows == 200)
    }

    @Test func junkExifGivesUp() throws {
        let payload = Array(Self.lossy[12...])
        for exif in [[UInt8](), Array("MM\u{0}*".utf8), [UInt8](repeating: 0xFF, count: 40), Array("Exif\u{0}\u{0}II".utf8)] {
            let bytes = WebPSurgery.riff([WebPSurgery.vp8x(flags: 0x08, width: 300, height: 200), payload, WebPSurgery.chunk("EXIF", exif)])
            #expect(try WebPHeader(bytes: bytes).orientation == .up)
        }
    }
}
