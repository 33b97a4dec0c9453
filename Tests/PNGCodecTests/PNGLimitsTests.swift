// Limits (SPEC §5): the pixel limit is enforced from IHDR before anything is
// allocated, a lying IHDR can't make the decoder allocate the image it claims,
// and a chunk length of 2^31-1 costs nothing. Every file here is built in the
// test, with correct CRCs.

import Foundation
import CodecCore
import PNGCodec
import Testing

@Suite("Decoder limits", .serialized)
struct DecodeLimitsTests {
    /// signature + IHDR(width×height, RGBA8) + IDAT(zlib stream of `zeros` zero bytes) + IEND.
    static func lyingImage(width: UInt32, height: UInt32, zeros: Int = 64) -> [UInt8] {
        PNGBytes.signature + PNGBytes.ihdr(width: width, height: height, bitDepth: 8, colorType: 6)
            + PNGBytes.chunk("IDAT", PNGBytes.zlibStored([UInt8](repeating: 0, count: zeros)))
            + PNGBytes.chunk("IEND")
    }

    static func mentionsNumber(_ reason: String, _ number: Int) -> Bool {
        let plain = String(number)
        var grouped = ""
        for (i, ch) in plain.reversed().enumerated() {
            if i > 0, i % 3 == 0 { grouped.append(",") }
            grouped.append(ch)
        }
        grouped = String(grouped.reversed())
        let variants = [plain, grouped, grouped.replacingOccurrences(of: ",", with: "_"),
                        grouped.replacingOccurrences(of: ",", with: " "), grouped.replacingOccurrences(of: ",", with: "\u{202F}")]
        return variants.contains { reason.contains($0) }
    }

    @Test func builtFilesAreWellFormed() throws {
        // The builder itself, checked by the header reader and a real decode.
        let pixels: [UInt8] = [255, 0, 0, 255, 0, 255, 0, 128, 0, 0, 255, 0, 9, 8, 7, 6]
        let png = PNGBytes.rgba8(width: 2, height: 2, pixels: pixels)
        let decoded = try PNGDecoder.decodeRGBA(bytes: png)
        #expect(decoded.width == 2 && decoded.height == 2 && decoded.pixels == pixels)
        let header = try PNGHeader(parsing: Self.lyingImage(width: 50000, height: 50000))
        #expect(header.width == 50000 && header.height == 50000 && header.colorType == .rgba)
    }

    @Test func hugeImageIsRejectedBeforeDecoding() throws {
        let bytes = Self.lyingImage(width: 50000, height: 50000)
        #expect(bytes.count < 200)
        let (error, growth) = ProcessMemory.measuring(retryAbove: 16 * MiB) { () -> ImageError? in
            do {
                _ = try PNGDecoder(bytes: bytes)  // the limit must fire here, before any row is read
                return nil
            } catch let error as ImageError {
                return error
            } catch {
                return ImageError(.unsupported, "NOT A ImageError: \(error)")
            }
        }
        let thrown = try #require(error, "a 50000×50000 image passed the default limit")
        TestLog.verbose("50000×50000: \(thrown.kind): \(thrown.reason); \(growth)")
        #expect(thrown.kind == .limitExceeded)
        #expect(Self.mentionsNumber(thrown.reason, 50000), "reason must name the size: \(thrown.reason)")
        #expect(Self.mentionsNumber(thrown.reason, 178_956_970), "reason must name the limit: \(thrown.reason)")
        #expect(growth.residentPeak < 16 * MiB, "\(growth)")

        // The whole-image helpers and the file path report the same.
        let viaHelper = #expect(throws: ImageError.self) { try PNGDecoder.decodeRGBA(bytes: bytes) }
        #expect(viaHelper?.kind == .limitExceeded)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pngcodec-50000.png").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let viaFile = #expect(throws: ImageError.self) { try PNGDecoder(contentsOfFile: path) }
        #expect(viaFile?.kind == .limitExceeded)
    }

    @Test func pixelLimitBoundaryIsExact() throws {
        let pixels = [UInt8](repeating: 7, count: 32 * 32 * 4)
        let png = PNGBytes.rgba8(width: 32, height: 32, pixels: pixels)
        #expect(try PNGDecoder.decodeRGBA(bytes: png, limits: DecodeLimits(maxPixels: 1024)).pixels == pixels)
        let error = #expect(throws: ImageError.self) { try PNGDecoder(bytes: png, limits: DecodeLimits(maxPixels: 1023)) }
        TestLog.verbose("32×32 with maxPixels 1023: \(error.map { "\($0.kind): \($0.reason)" } ?? "-")")
        #expect(error?.kind == .limitExceeded)
        #expect(error.map { Self.mentionsNumber($0.reason, 1023) } == true, "reason must name the limit")
        // The same limit applies to a real PngSuite file.
        let suite = #expect(throws: ImageError.self) {
            try PNGDecoder.decodeRGBA(contentsOfFile: fixtureFolder.path("pngsuite/basn6a08.png"), limits: DecodeLimits(maxPixels: 1000))
        }
        #expect(suite?.kind == .limitExceeded)
    }

    @Test func widthLimitBoundaryIsExactAndCheckedByTheHeaderRule() throws {
        let pixels = [UInt8](repeating: 9, count: 64 * 2 * 4)
        let png = PNGBytes.rgba8(width: 64, height: 2, pixels: pixels)
        #expect(try PNGDecoder.decodeRGBA(bytes: png, limits: DecodeLimits(maxWidth: 64)).pixels == pixels)
        let error = #expect(throws: ImageError.self) { try PNGDecoder(bytes: png, limits: DecodeLimits(maxWidth: 63)) }
        #expect(error?.kind == .limitExceeded)
        #expect(error?.reason == "image is 64 px wide, over the 63-pixel width limit")
        // The header pass uses the same rule, with the same words.
        #expect(DecodeLimits(maxWidth: 63).refusal(width: 64, height: 2) == error)
        #expect(DecodeLimits(maxWidth: 64).refusal(width: 64, height: 2) == nil)
        #expect(DecodeLimits(maxPixels: 127).refusal(width: 64, height: 2)?.reason == "image is 64×2, over the 127-pixel limit")
        #expect(DecodeLimits().refusal(width: Int(Int32.max), height: Int(Int32.max))?.kind == .limitExceeded)
        // 4 × 2^62 wraps to 0 pixels: still over the limit.
        #expect(DecodeLimits().refusal(width: 4, height: 1 << 62)?.kind == .limitExceeded)
    }

    @Test func raisedLimitWithTinyIDATIsRefusedAsTruncated() throws {
        let bytes = Self.lyingImage(width: 50000, height: 50000, zeros: 1000)
        let limits = DecodeLimits(maxPixels: 3_000_000_000)
        let ((outcome, stderrText), growth) = ProcessMemory.measuring {
            capturingStderr { () -> Result<Int, ImageError> in
                do {
                    let decoder = try PNGDecoder(bytes: bytes, limits: limits)
                    var rows = 0
                    try decoder.readRows { _, _ in rows += 1 }
                    return .success(rows)
                } catch let error as ImageError {
                    return .failure(error)
                } catch {
                    return .failure(ImageError(.unsupported, "NOT A ImageError: \(error)"))
                }
            }
        }
        TestLog.verbose("50000×50000 with raised limit, 1000 zero bytes of IDAT: \(outcome); \(growth)")
        guard case .failure(let error) = outcome else {
            Issue.record("decoded \(outcome) rows from 1000 bytes of image data")
            return
        }
        #expect(error.kind == .malformed, "\(error.kind): \(error.reason)")
        #expect(!error.reason.isEmpty)
        #expect(stderrText.isEmpty, "stderr: \(stderrText)")
        #expect(growth.residentPeak < 64 * MiB, "\(growth)")
        #expect(growth.virtualPeak < 1024 * MiB, "\(growth)")
    }

    @Test func truncatedImageUnderDefaultLimitIsCheapEvenWhole() throws {
        // 13000×13000 = 169,000,000 pixels is under the default limit; the file
        // is 80 bytes. Decoding it whole must fail fast without touching
        // 676 MB (the address space may be reserved, the memory must not be used).
        let bytes = Self.lyingImage(width: 13000, height: 13000, zeros: 100)
        let (error, growth) = ProcessMemory.measuring { () -> Error? in
            do { _ = try PNGDecoder.decodeRGBA(bytes: bytes); return nil } catch { return error }
        }
        TestLog.verbose("13000×13000 truncated, whole decode: \(error.map { "\($0)" } ?? "decoded"); \(growth)")
        let thrown = try #require(error as? ImageError)
        #expect(thrown.kind == .malformed)
        #expect(growth.residentPeak < 64 * MiB, "\(growth)")
    }

    @Test func raisedLimitWholeDecodeDoesNotReserveTheClaimedImage() throws {
        // decodeRGBA on the same 1 kB lie with a raised limit: it must fail as
        // truncated without reserving (let alone touching) the 10 GB the
        // header claims. A reservation that large can fail and trap.
        let bytes = Self.lyingImage(width: 50000, height: 50000, zeros: 1000)
        let (error, growth) = ProcessMemory.measuring { () -> Error? in
            do {
                _ = try PNGDecoder.decodeRGBA(bytes: bytes, limits: DecodeLimits(maxPixels: 3_000_000_000))
                return nil
            } catch { return error }
        }
        TestLog.verbose("50000×50000 with raised limit, whole decode: \(error.map { "\($0)" } ?? "decoded"); \(growth)")
        let thrown = try #require(error as? ImageError)
        #expect(thrown.kind == .malformed)
        #expect(growth.residentPeak < 64 * MiB, "\(growth)")
        #expect(growth.virtualPeak < 1024 * MiB, "\(growth)")
    }

    enum HugeChunkPlace: String, CaseIterable, Sendable { case beforeIDAT, afterIDAT }

    @Test("A tEXt chunk claiming 2^31-1 bytes costs nothing", arguments: HugeChunkPlace.allCases)
    func hugeTextChunk(place: HugeChunkPlace) throws {
        let pixels: [UInt8] = [10, 20, 30, 255, 40, 50, 60, 128]
        // length 0x7FFFFFFF, type tEXt, then only a few bytes before the file ends.
        let liar = PNGBytes.be32(0x7FFF_FFFF) + Array("tEXt".utf8) + Array("Comment\0hello".utf8)
        let bytes = place == .beforeIDAT
            ? Array(PNGBytes.rgba8(width: 2, height: 1, pixels: pixels, beforeIDAT: liar))
            : Array(PNGBytes.rgba8(width: 2, height: 1, pixels: pixels).dropLast(12)) + liar
        let ((outcome, stderrText), growth) = ProcessMemory.measuring {
            capturingStderr { () -> String in
                do {
                    let image = try PNGDecoder.decodeRGBA(bytes: bytes)
                    return image.pixels == pixels ? "decoded" : "decoded WRONG PIXELS \(image.pixels)"
                } catch let error as ImageError {
                    return error.reason.isEmpty ? "EMPTY REASON" : "failed (\(error.kind)): \(error.reason)"
                } catch {
                    return "NOT A ImageError: \(error)"
                }
            }
        }
        TestLog.verbose("tEXt of 2^31-1 bytes \(place): \(outcome); \(growth)")
        #expect(outcome == "decoded" || outcome.hasPrefix("failed"), "\(outcome)")
        #expect(stderrText.isEmpty, "stderr: \(stderrText)")
        #expect(growth.residentPeak < 64 * MiB, "\(growth)")
        #expect(growth.virtualPeak < 1024 * MiB, "\(growth)")
    }
}
