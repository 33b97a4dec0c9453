// Gzip-compressed SVG (.svgz): drawn as rsvg-convert draws the .svgz itself, and every hostile
// gzip layer refused with its reason before librsvg or the document scan sees a byte
// (fixtures from scripts/make-svg-fixtures.py).
import CodecCore
import Foundation
import PNGCodec
@testable import SVGCodec
import Testing
import TestSupport

@Suite struct CompressedSVGTests {
    typealias Reference = SVGRenderTests.Reference

    static let references = fixtures.goldenLines("compressed/references.txt") { fields -> Reference? in
        guard fields.count == 3, let w = Int(fields[1]), let h = Int(fields[2]) else { return nil }
        return Reference(stem: fields[0], width: w, height: h, hasCairoSVG: false)
    }

    /// Each .svgz, at its natural size: the header reads the same size as from the plain file,
    /// the document is the plain file's bytes, and the rows are rsvg-convert's reading of the
    /// .svgz byte for byte.
    @Test(arguments: references)
    func aCompressedDocumentIsDrawnAsRsvgConvertDrawsIt(reference: Reference) throws {
        let path = fixtures.path("compressed/\(reference.stem).svgz")
        let plain = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixtures.path(reference.stem + ".svg"))))
        let file = try InputFile(path: path)
        let document = try SVGFile(file)
        #expect(document.isCompressed)
        #expect(file.size < plain.count, "the fixture is compressed")
        #expect(try document.document() == plain)
        let header = try SVGHeader(file: file)
        #expect(header == (try SVGHeader(bytes: plain[...])))
        #expect(header.documentBytes == plain.count)
        let decoder = try SVGDecoder(file: file, limits: DecodeLimits(), width: reference.width, height: reference.height)
        var pixels: [UInt8] = []
        try decoder.readRows { _, row in pixels += row }
        let expected = try PNGDecoder.decodeRGBA(contentsOfFile: fixtures.path("compressed/\(reference.base).rsvg.png"))
        #expect((expected.width, expected.height) == (reference.width, reference.height))
        #expect(pixels == expected.pixels, "\(reference.stem): the rows differ from rsvg-convert's")
    }

    /// Detection looks inside the gzip stream: a compressed SVG is an SVG from its first bytes
    /// alone (a prefix of the stream), a gzip of anything else is not.
    @Test func detectionReadsTheInflatedProlog() throws {
        let compressed = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixtures.path("compressed/illustrator-entities.svgz"))))
        #expect(SVGHeader.hasSignature(compressed))
        #expect(SVGHeader.hasSignature(Array(compressed.prefix(compressed.count / 2))), "a prefix of the stream is enough")
        let text = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixtures.path("hostile/svgz-not-svg.svgz"))))
        #expect(!SVGHeader.hasSignature(text))
        #expect(!SVGHeader.hasSignature([0x1f, 0x8b, 0x08]))
    }

    /// Each hostile gzip layer and its reason, within a bound: the over-limit and lying files
    /// inflate to 9 MiB and 1 MiB, neither is inflated past what the trailer states (1000 bytes)
    /// or at all (over the limit).
    @Test(arguments: [
        ("svgz-over-limit", "SVGZ document of 9437184 bytes (its gzip trailer's size) is over the 8388608-byte limit"),
        ("svgz-lying-trailer", "SVGZ document inflates past the 1000 bytes its gzip trailer states"),
        ("svgz-truncated", "truncated SVGZ file: its gzip stream ends early"),
        ("svgz-bad-crc", "corrupt gzip stream in the SVGZ file (zlib: incorrect data check)"),
        ("svgz-two-members", "SVGZ file has 316 bytes after its gzip stream (a second gzip member is not read)"),
        ("svgz-not-svg", "not an SVG file (its root element is not <svg>)"),
    ])
    func hostileGzipLayersAreRefusedWithTheirReason(stem: String, reason: String) {
        let start = ContinuousClock.now
        #expect(decodeError(fixtures.path("hostile/\(stem).svgz")) == reason)
        #expect(ContinuousClock.now - start < .seconds(10), "\(stem)")
    }

    /// The header pass refuses what it can see without inflating the whole stream: the stated
    /// size over the limit, and a document longer than its trailer says within the prolog read.
    @Test func theHeaderRefusesFromTheTrailer() {
        func headerError(_ stem: String) -> String? {
            do {
                _ = try SVGHeader(file: InputFile(path: fixtures.path("hostile/\(stem).svgz")))
                return nil
            } catch {
                return error.reason
            }
        }
        #expect(headerError("svgz-over-limit")?.hasSuffix("is over the 8388608-byte limit") == true)
        #expect(headerError("svgz-lying-trailer") == "SVGZ document inflates past the 1000 bytes its gzip trailer states")
        #expect(headerError("svgz-truncated") == "truncated SVGZ file: its gzip stream ends early")
    }
}
