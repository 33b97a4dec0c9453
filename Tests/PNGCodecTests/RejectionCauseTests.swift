// Each failure has one typed cause (PNGFailure or a shared ImageFailure), the same whichever route or
// source reads the file, and one kind per cause.

import CodecCore
import CPNGBridge
import Foundation
@testable import PNGCodec
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite struct RejectionCauseTests {
    /// A corrupt PngSuite file, the defect INVENTORY.md gives for it, and the cause
    /// each reader must name (with the decoder's words): the 33-byte header read (`PNGHeader`), which judges
    /// fields one by one, and the decoder, which has libpng's verdict.
    struct Corrupt: Sendable, CustomStringConvertible {
        let name: String
        let header: PNGFailure?
        let decoder: PNGFailure
        /// What users see for the decoder's cause (the words libpng's text was turned into before).
        let wording: String
        var description: String { name }
    }

    static let corrupt: [Corrupt] = [
        // Signature: libpng's rule (a wrong first half is not a PNG; a right first
        // half with a wrong second half is newline-conversion damage) for both readers.
        Corrupt(name: "xs1n0g01.png", header: .notPNG, decoder: .notPNG,
                wording: "not a PNG file"),           // byte 1's MSB reset
        Corrupt(name: "xs2n0g01.png", header: .notPNG, decoder: .notPNG,
                wording: "not a PNG file"),           // byte 2 is 'Q'
        Corrupt(name: "xs4n0g01.png", header: .notPNG, decoder: .notPNG,
                wording: "not a PNG file"),           // byte 4 lowercase
        Corrupt(name: "xs7n0g01.png", header: .textModeTransfer, decoder: .textModeTransfer,
                wording: "not a PNG file (corrupted by text-mode transfer)"),   // byte 7 a space
        Corrupt(name: "xcrn0g04.png", header: .textModeTransfer, decoder: .textModeTransfer,
                wording: "not a PNG file (corrupted by text-mode transfer)"),   // CR added
        Corrupt(name: "xlfn0g04.png", header: .textModeTransfer, decoder: .textModeTransfer,
                wording: "not a PNG file (corrupted by text-mode transfer)"),   // LF added
        Corrupt(name: "xhdn0g08.png", header: .badCRC(chunk: "IHDR"), decoder: .badCRC(chunk: "IHDR"),
                wording: "bad CRC in IHDR chunk"),
        Corrupt(name: "xc1n0g08.png", header: .invalidColourType(1), decoder: .invalidIHDR,
                wording: "invalid IHDR chunk (size, bit depth or colour type)"),
        Corrupt(name: "xc9n2c08.png", header: .invalidColourType(9), decoder: .invalidIHDR,
                wording: "invalid IHDR chunk (size, bit depth or colour type)"),
        Corrupt(name: "xd0n2c08.png", header: .invalidBitDepth(0, colourType: 2), decoder: .invalidIHDR,
                wording: "invalid IHDR chunk (size, bit depth or colour type)"),
        Corrupt(name: "xd3n2c08.png", header: .invalidBitDepth(3, colourType: 2), decoder: .invalidIHDR,
                wording: "invalid IHDR chunk (size, bit depth or colour type)"),
        Corrupt(name: "xd9n2c08.png", header: .invalidBitDepth(99, colourType: 2), decoder: .invalidIHDR,
                wording: "invalid IHDR chunk (size, bit depth or colour type)"),
        // The header is sound; the damage is past it.
        Corrupt(name: "xcsn0g01.png", header: nil, decoder: .badCRC(chunk: "IDAT"),
                wording: "bad CRC in IDAT chunk"),
        Corrupt(name: "xdtn0g01.png", header: nil, decoder: .noImageData,
                wording: "missing image data (no IDAT chunk)"),
    ]

    @Test func everyCorruptFileIsPinned() {
        #expect(Self.corrupt.map(\.name).sorted() == Golden.rejectNames.sorted())
    }

    @Test("Corrupt file's cause, on every route and source", arguments: corrupt)
    func corruptFileCause(file: Corrupt) throws {
        let path = fixtureFolder.path("pngsuite/" + file.name)
        let bytes = try fixtureFolder.bytes("pngsuite/" + file.name)
        var causes: [String: PNGFailure?] = [:]
        for route in [PNGDecodeRoute.automatic, .libpngOnly] {
            causes["\(route) file"] = Self.pngCause { _ = try PNGDecoder.decodeRGBA(contentsOfFile: path, route: route) }
            causes["\(route) memory"] = Self.pngCause { _ = try PNGDecoder.decodeRGBA(bytes: bytes, route: route) }
        }
        for (how, cause) in causes.sorted(by: { $0.key < $1.key }) {
            #expect(cause == file.decoder, "\(file.name) decoded by \(how)")
        }
        let header = Self.pngCause { _ = try PNGHeader(contentsOfFile: path) }
        #expect(header == file.header, "\(file.name) header")
        #expect(ImageError(file.decoder).reason == file.wording)
        #expect(file.decoder.kind == .malformed && file.header?.kind ?? .malformed == .malformed)
    }

    /// The error `body` throws; nil when it succeeds (an error that is not an `ImageError` is
    /// recorded as an `.unsupported` one naming it, so it cannot pass as a cause).
    static func cause(_ body: () throws -> Void) -> ImageError? {
        do {
            try body()
            return nil
        } catch let error as ImageError {
            return error
        } catch {
            return ImageError(.unsupported, "not an ImageError: \(error)")
        }
    }

    /// The PNG cause `body` throws; nil when it succeeds or throws no PNG cause.
    static func pngCause(_ body: () throws -> Void) -> PNGFailure? {
        cause(body)?.pngFailure
    }

    /// libpng's own words (from libpng 1.6's sources) and what they mean.
    static let libpngMessages: [(message: String, status: mpng_status, chunk: String, detail: String)] = [
        ("Not a PNG file", MPNG_NOT_PNG, "", ""),
        ("PNG file corrupted by ASCII conversion", MPNG_TEXT_MODE_TRANSFER, "", ""),
        ("IHDR: CRC error", MPNG_BAD_CRC, "IHDR", ""),
        ("tEXt: CRC error", MPNG_BAD_CRC, "tEXt", ""),
        ("bad adaptive filter value", MPNG_BAD_FILTER, "", ""),
        ("Not enough image data", MPNG_TRUNCATED_IMAGE_DATA, "", ""),
        ("Missing IHDR before IDAT", MPNG_MISSING_IHDR, "", ""),
        ("PLTE: missing IHDR", MPNG_MISSING_IHDR, "PLTE", ""),
        ("Invalid IHDR data", MPNG_INVALID_IHDR, "", ""),
        ("IEND: out of place", MPNG_NO_IMAGE_DATA, "IEND", ""),
        ("Missing PLTE before IDAT", MPNG_MISSING_PALETTE, "", ""),
        ("PLTE: out of place", MPNG_CHUNK_OUT_OF_PLACE, "PLTE", ""),
        ("IHDR: duplicate", MPNG_DUPLICATE_CHUNK, "IHDR", ""),
        ("IDAT: invalid distance too far back", MPNG_CORRUPT_IMAGE_DATA, "", "invalid distance too far back"),
        ("IDAT: incorrect header check", MPNG_CORRUPT_IMAGE_DATA, "", "incorrect header check"),
        ("unknown chunk exceeds memory limits", MPNG_CHUNK_LIMIT, "", "unknown chunk exceeds memory limits"),
        ("chunk data is too large", MPNG_CHUNK_LIMIT, "", "chunk data is too large"),
        ("Out of memory", MPNG_OUT_OF_MEMORY, "", ""),
        ("Out of Memory", MPNG_OUT_OF_MEMORY, "", ""),
        ("insufficient memory to read chunk", MPNG_OUT_OF_MEMORY, "", ""),
        ("Insufficient memory to process text chunk", MPNG_OUT_OF_MEMORY, "", ""),
        ("PNG unsigned integer out of range", MPNG_OTHER_FORMAT_ERROR, "", "PNG unsigned integer out of range"),
    ]

    @Test func libpngMessagesAreReadInOnePlace() {
        for entry in Self.libpngMessages {
            var failure = mpng_failure()
            mpng_classify(entry.message, MPNG_OTHER_FORMAT_ERROR, &failure)
            #expect(failure.status == entry.status, "\(entry.message)")
            #expect(Self.text(failure.chunk) == entry.chunk, "\(entry.message)")
            #expect(Self.text(failure.detail) == entry.detail, "\(entry.message)")
        }
        // What no rule knows takes the caller's status: a format error when reading,
        // libpng refusing a request when writing.
        var failure = mpng_failure()
        mpng_classify("Invalid filter method in IHDR", MPNG_MISUSE, &failure)
        #expect(failure.status == MPNG_MISUSE && Self.text(failure.detail) == "Invalid filter method in IHDR")
    }

    static func text<Field>(_ field: Field) -> String {
        withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// Out of memory from libpng (any of its wordings), from the bridge's own
    /// allocations, from the decoder's interlaced buffer and from the encoder all
    /// have one kind (they were `.io`, `.limitExceeded` and `.unsupported`).
    @Test func outOfMemoryHasOneKindFromEveryPlace() {
        var causes: [ImageError] = [ImageError(.outOfMemory), ImageError(.outOfMemoryForInterlacedImage(width: 3, height: 4))]
        for message in ["Out of memory", "insufficient memory to read chunk", "text chunk: out of memory"] {
            for unclassified in [MPNG_OTHER_FORMAT_ERROR, MPNG_MISUSE] {   // decoder, encoder
                var failure = mpng_failure()
                mpng_classify(message, unclassified, &failure)
                causes.append(ImageError(bridge: failure))
            }
        }
        #expect(causes.allSatisfy { $0.kind == .limitExceeded }, "\(causes.map { "\($0): \($0.kind)" })")
        #expect(causes.dropFirst(2).allSatisfy { $0.failure == .outOfMemory })
        #expect(causes.allSatisfy { $0.reason.hasPrefix("out of memory") })
    }

    /// A real allocation failure: an interlaced 65536×(2^31-1) image, whose whole-image
    /// buffer (2^49 bytes) is more than the address space, in a sparse file large enough
    /// that its header's claim is not refused as truncated first. Same cause on both routes.
    @Test func interlacedImageTooLargeToHoldIsOutOfMemoryOfTheOneKind() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("failure-reasons-oom-\(getpid()).png").path
        let start = PNGBytes.signature + PNGBytes.ihdr(width: 65536, height: 0x7FFF_FFFF, bitDepth: 1, colorType: 0, interlace: 1)
            + PNGBytes.be32(0x7FFF_FFFF) + Array("IDAT".utf8)
        try Data(start).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        try #require(truncate(path, 18_000_000_000) == 0, "sparse file: \(String(cString: strerror(errno)))")
        let limits = DecodeLimits(maxPixels: Int.max)
        for route in [PNGDecodeRoute.automatic, .libpngOnly] {
            let cause = Self.cause {
                let decoder = try PNGDecoder(contentsOfFile: path, limits: limits, route: route)
                try decoder.readRows { _, _ in }
            }
            #expect(cause?.pngFailure == .outOfMemoryForInterlacedImage(width: 65536, height: 0x7FFF_FFFF), "\(route)")
            #expect(cause?.kind == ImageFailure.outOfMemory.kind)
        }
    }

    /// A write that fails has one cause whichever compressor writes the file.
    @Test func unwritableOutputIsTheSameCauseForEitherCompressor() throws {
        let readOnly = open("/dev/null", O_RDONLY | O_CLOEXEC)
        try #require(readOnly >= 0)
        defer { close(readOnly) }
        let pixels = [UInt8](repeating: 90, count: 64 * 64 * 3)
        for settings in [PNGEncodingSettings.default, PNGEncodingSettings(level: 6)] {
            let cause = Self.cause {
                let encoder = try PNGEncoder(fileDescriptor: readOnly, width: 64, height: 64, format: .rgb8, settings: settings)
                try pixels.withUnsafeBufferPointer { all in
                    for y in 0..<64 { try encoder.writeRow(UnsafeBufferPointer(rebasing: all[y * 192 ..< (y + 1) * 192])) }
                }
                try encoder.finish()
            }
            #expect(cause?.failure == .writeFailed(errno: EBADF), "\(settings)")
            #expect(cause?.kind == .io)
            #expect(cause?.reason == "write failed: \(String(cString: strerror(EBADF)))")
        }
    }

    /// A file cut short gives the same cause on both routes (the fast path declines
    /// it and libpng reads it), from a file and from memory.
    @Test func truncationIsTheSameCauseOnBothRoutes() throws {
        let whole = try fixtureFolder.bytes("pngsuite/basn2c08.png")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("failure-reasons-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for cut in [0, 5, 8, 20, 33, 60, whole.count / 2, whole.count - 13] {   // -12: only IEND is missing
            let bytes = Array(whole.prefix(cut))
            let path = folder.appendingPathComponent("cut\(cut).png").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            var causes: [ImageError?] = []
            for route in [PNGDecodeRoute.automatic, .libpngOnly] {
                causes.append(Self.cause { _ = try PNGDecoder.decodeRGBA(bytes: bytes, route: route) })
                causes.append(Self.cause { _ = try PNGDecoder.decodeRGBA(contentsOfFile: path, route: route) })
            }
            #expect(Set(causes).count == 1, "cut at \(cut): \(causes)")
            #expect(causes.first??.kind == .malformed, "cut at \(cut): \(causes)")
        }
    }

    /// An image with one side over the pixel limit is a pixel-limit refusal, with its
    /// size, on both routes and in the header pass's rule (libpng's own side limits
    /// used to make it an "invalid IHDR chunk").
    @Test func aSideOverThePixelLimitIsAPixelLimitRefusal() throws {
        let limits = DecodeLimits(maxPixels: 1000)
        for (width, height) in [(2000, 1), (1, 2000), (40, 40)] {
            let png = PNGBytes.rgba8(width: width, height: height, pixels: [UInt8](repeating: 1, count: width * height * 4))
            let expected = ImageFailure.pixelLimit(width: width, height: height, limit: 1000)
            #expect(limits.refusal(width: width, height: height)?.failure == expected)
            for route in [PNGDecodeRoute.automatic, .libpngOnly] {
                let cause = Self.cause { _ = try PNGDecoder(bytes: png, limits: limits, route: route) }
                #expect(cause?.failure == expected, "\(width)×\(height) by \(route)")
            }
        }
    }
}
