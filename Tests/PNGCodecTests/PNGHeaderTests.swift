// PNGHeader: the signature + IHDR reader, checked against the IHDR fields the
// independent decoders reported (goldens.txt) and against hand-made bad headers.

import Foundation
import CodecCore
import PNGCodec
import Testing

@Suite("PNG header reader")
struct PNGHeaderTests {
    static let allNames = Golden.all.map(\.name)

    @Test("Header matches the IHDR listed in goldens.txt", arguments: allNames)
    func headerMatchesGolden(name: String) throws {
        let golden = try #require(Golden.byName[name])
        let bytes = try fixtureFolder.bytes("pngsuite/" + name)
        let prefix = Array(bytes.prefix(33))
        if let ihdr = golden.ihdr {
            let header = try PNGHeader(parsing: prefix)
            #expect(header.width == ihdr.width)
            #expect(header.height == ihdr.height)
            #expect(header.bitDepth == ihdr.bitDepth)
            #expect(header.colorType.rawValue == ihdr.colorType)
            #expect(header.isInterlaced == ihdr.interlaced)
            #expect(try PNGHeader(parsing: bytes) == header, "bytes after the 33rd must be ignored")
            #expect(try PNGHeader(contentsOfFile: fixtureFolder.path("pngsuite/" + name)) == header)
            if !golden.mustReject {
                #expect(try PNGDecoder(contentsOfFile: fixtureFolder.path("pngsuite/" + name)).header == header)
            }
        } else {
            let error = #expect(throws: ImageError.self) { try PNGHeader(parsing: prefix) }
            TestLog.verbose("\(name): header rejected: \(error?.reason ?? "-")")
            #expect(error?.reason.isEmpty == false)
            #expect(error?.kind == .malformed)
            #expect(throws: ImageError.self) { try PNGHeader(contentsOfFile: fixtureFolder.path("pngsuite/" + name)) }
        }
    }

    // MARK: hand-made headers

    static let good: [UInt8] = PNGBytes.signature + PNGBytes.ihdr(width: 640, height: 480, bitDepth: 8, colorType: 2)

    static func expectRejected(_ bytes: [UInt8], _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let error = #expect(throws: ImageError.self, "\(what)", sourceLocation: sourceLocation) { try PNGHeader(parsing: bytes) }
        if let error {
            TestLog.verbose("\(what): \(error.kind): \(error.reason)")
            #expect(!error.reason.isEmpty, "\(what): empty reason", sourceLocation: sourceLocation)
            #expect(error.kind == .malformed, "\(what): kind \(error.kind)", sourceLocation: sourceLocation)
        }
    }

    @Test func handMadeGoodHeader() throws {
        #expect(Self.good.count == 33)
        let header = try PNGHeader(parsing: Self.good)
        #expect(header.width == 640 && header.height == 480 && header.bitDepth == 8)
        #expect(header.colorType == .rgb && !header.isInterlaced)
        let interlacedPalette = try PNGHeader(parsing: PNGBytes.signature
            + PNGBytes.ihdr(width: 1, height: 0x7FFF_FFFF, bitDepth: 4, colorType: 3, interlace: 1))
        #expect(interlacedPalette.height == 0x7FFF_FFFF && interlacedPalette.colorType == .palette)
        #expect(interlacedPalette.isInterlaced)
    }

    @Test func wrongSignature() {
        for index in 0..<8 {
            var bytes = Self.good
            bytes[index] ^= 0x20
            Self.expectRejected(bytes, "signature byte \(index) changed")
        }
        Self.expectRejected(Array("GIF89a".utf8) + [UInt8](repeating: 0, count: 27), "a GIF")
        Self.expectRejected([UInt8](repeating: 0, count: 33), "33 zero bytes")
    }

    @Test func truncatedHeader() {
        for length in 0..<33 {
            Self.expectRejected(Array(Self.good.prefix(length)), "truncated to \(length) bytes")
        }
    }

    @Test func badIHDRCRC() {
        var bytes = Self.good
        bytes[32] ^= 0x01
        Self.expectRejected(bytes, "IHDR CRC off by one bit")
        var body = Self.good
        body[19] ^= 0x01  // width changed, CRC left as it was
        Self.expectRejected(body, "IHDR data changed under its CRC")
    }

    @Test func zeroOrOversizedDimensions() {
        Self.expectRejected(PNGBytes.signature + PNGBytes.ihdr(width: 0, height: 480), "zero width")
        Self.expectRejected(PNGBytes.signature + PNGBytes.ihdr(width: 640, height: 0), "zero height")
        Self.expectRejected(PNGBytes.signature + PNGBytes.ihdr(width: 0, height: 0), "zero width and height")
        Self.expectRejected(PNGBytes.signature + PNGBytes.ihdr(width: 0x8000_0000, height: 1), "width 2^31")
        Self.expectRejected(PNGBytes.signature + PNGBytes.ihdr(width: 1, height: 0xFFFF_FFFF), "height 2^32-1")
    }

    @Test func ihdrNotFirst() {
        // A 13-byte tEXt chunk, correct CRC, where IHDR belongs.
        let text = PNGBytes.chunk("tEXt", Array("Title\0Masonry".utf8))
        Self.expectRejected(PNGBytes.signature + text, "tEXt before IHDR")
        Self.expectRejected(PNGBytes.signature + PNGBytes.chunk("IDAT", [UInt8](repeating: 0, count: 13)), "IDAT first")
        // IHDR with a wrong length field (14), CRC correct for what it covers.
        let data = PNGBytes.ihdrData(width: 640, height: 480, colorType: 2)
        let long = PNGBytes.signature + PNGBytes.chunk("IHDR", data + [0])
        Self.expectRejected(Array(long.prefix(33)), "IHDR length 14")
        Self.expectRejected(PNGBytes.signature + PNGBytes.chunk("ihdr", data), "lower-case ihdr")
    }

    @Test func invalidFormatFields() {
        for (depth, colour) in [(8, 1), (8, 5), (8, 7), (16, 3), (4, 2), (1, 4), (2, 6), (0, 0), (3, 0), (32, 6)] as [(UInt8, UInt8)] {
            Self.expectRejected(PNGBytes.signature + PNGBytes.ihdr(width: 4, height: 4, bitDepth: depth, colorType: colour),
                                "bit depth \(depth) with colour type \(colour)")
        }
        var compression = PNGBytes.ihdrData(width: 4, height: 4)
        compression[10] = 1
        Self.expectRejected(PNGBytes.signature + PNGBytes.chunk("IHDR", compression), "compression method 1")
        var filter = PNGBytes.ihdrData(width: 4, height: 4)
        filter[11] = 1
        Self.expectRejected(PNGBytes.signature + PNGBytes.chunk("IHDR", filter), "filter method 1")
        Self.expectRejected(PNGBytes.signature + PNGBytes.ihdr(width: 4, height: 4, interlace: 2), "interlace method 2")
    }

    @Test func headerFromMissingOrSpecialFiles() {
        for path in ["/nonexistent/masonry.png", "/dev/null", "/tmp"] {
            let error = #expect(throws: ImageError.self, "\(path)") { try PNGHeader(contentsOfFile: path) }
            TestLog.verbose("\(path): \(error.map { "\($0.kind): \($0.reason)" } ?? "-")")
            #expect(error?.reason.isEmpty == false)
        }
    }
}
