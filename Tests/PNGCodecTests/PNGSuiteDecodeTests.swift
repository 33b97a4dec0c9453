// PngSuite conformance: every valid image decodes to the RGBA8 pixels an
// independent decoder produced (Fixtures/goldens.txt, see GOLDENS.md); every
// interlaced image equals its non-interlaced twin; every corrupt x* file is
// rejected with a reason.

import Foundation
import CodecCore
import PNGCodec
import Raster
import Testing

@Suite("PngSuite decoding")
struct PNGSuiteDecodeTests {
    static let validNames = Golden.validNames

    /// Interlaced files that have a non-interlaced twin: basi0g01 / basn0g01, s05i3p02 / s05n3p02...
    static let interlacedTwins: [String] = {
        let names = Set(fixtureFolder.pngNames(in: "pngsuite"))
        return names.sorted().filter { name in
            guard let golden = Golden.byName[name], !golden.mustReject, golden.ihdr?.interlaced == true else { return false }
            return names.contains(twin(of: name))
        }
    }()

    static func twin(of name: String) -> String {
        var chars = Array(name)
        chars[3] = "n"
        return String(chars)
    }

    @Test("Valid image matches its golden RGBA8 digest", arguments: validNames)
    func matchesGolden(name: String) throws {
        let golden = try #require(Golden.byName[name])
        let ihdr = try #require(golden.ihdr)
        let image = try PNGDecoder.decodeRGBA(contentsOfFile: fixtureFolder.path("pngsuite/" + name))
        #expect(image.width == ihdr.width)
        #expect(image.height == ihdr.height)
        #expect(image.pixels.count == ihdr.width * ihdr.height * 4)
        let digest = SHA256.hex(image.pixels)
        if digest != golden.digest {
            let where_ = Self.writeActual(name: name, image: image)
            Issue.record("""
                \(name): RGBA8 digest \(digest), expected \(golden.digest ?? "-"). \
                Actual pixels written to \(where_); \
                `python3 Fixtures/make_goldens.py --dump DIR` writes the expected DIR/\(name.dropLast(4)).rgba
                """)
        }
    }

    @Test("isOpaque is only claimed when every decoded alpha is 255", arguments: validNames)
    func opacityClaimIsSound(name: String) throws {
        let decoder = try PNGDecoder(contentsOfFile: fixtureFolder.path("pngsuite/" + name))
        var allOpaque = true
        try decoder.readRows { _, row in
            for index in stride(from: 3, to: row.count, by: 4) where row[index] != 255 { allOpaque = false }
        }
        if decoder.isOpaque { #expect(allOpaque, "\(name) claims to be opaque but has transparent pixels") }
    }

    @Test("Compact rows are the RGBA8 pixels without the constant alpha (grey: one channel)", arguments: validNames)
    func compactRowsMatchRGBA(name: String) throws {
        let path = fixtureFolder.path("pngsuite/" + name)
        let rgba = try PNGDecoder.decodeRGBA(contentsOfFile: path)
        let decoder = try PNGDecoder(file: InputFile(path: path), compactOpaqueRows: true)
        var compact = [UInt8]()
        try decoder.readRows { _, row in compact += row }
        let expected: [UInt8] = switch decoder.rowFormat {
        case .rgba8, .opaqueRGBA8: rgba.pixels
        case .rgb8: rgba.pixels.enumerated().filter { $0.offset % 4 != 3 }.map(\.element)
        case .grey8: stride(from: 0, to: rgba.pixels.count, by: 4).map { rgba.pixels[$0] }
        }
        #expect(compact == expected, "\(name) as \(decoder.rowFormat)")
        let header = decoder.header
        let expectedFormat: PixelFormat = !decoder.isOpaque ? .rgba8 : header.colorType == .grey ? .grey8 : .rgb8
        #expect(decoder.rowFormat == expectedFormat, "\(name): \(header.colorType), opaque \(decoder.isOpaque)")
    }

    @Test func opacityFollowsTheAlphaChannelAndTRNS() throws {
        let expected = ["basn2c08.png": true, "basn3p08.png": true, "basn0g04.png": true, "basn6a08.png": false,
                        "basn4a08.png": false, "tbbn3p08.png": false, "tbrn2c08.png": false, "tbbn0g04.png": false]
        for (name, opaque) in expected {
            #expect(try PNGDecoder(contentsOfFile: fixtureFolder.path("pngsuite/" + name)).isOpaque == opaque, "\(name)")
        }
    }

    @Test("Row streaming and in-memory bytes give the same pixels as a whole-file decode", arguments: validNames)
    func rowsEqualWholeImage(name: String) throws {
        let path = fixtureFolder.path("pngsuite/" + name)
        let whole = try PNGDecoder.decodeRGBA(contentsOfFile: path)
        let fromBytes = try PNGDecoder.decodeRGBA(bytes: try fixtureFolder.bytes("pngsuite/" + name))
        #expect(fromBytes == whole)

        let decoder = try PNGDecoder(contentsOfFile: path)
        let golden = try #require(Golden.byName[name]?.ihdr)
        #expect(decoder.header.width == golden.width && decoder.header.height == golden.height)
        var rows: [UInt8] = []
        var expectedY = 0
        try decoder.readRows { y, row in
            #expect(y == expectedY, "rows must come top to bottom")
            #expect(row.count == whole.width * 4)
            expectedY += 1
            rows.append(contentsOf: row)
        }
        #expect(expectedY == whole.height)
        #expect(rows == whole.pixels)
    }

    @Test("Interlaced image equals its non-interlaced twin", arguments: interlacedTwins)
    func interlacedEqualsTwin(name: String) throws {
        let interlaced = try PNGDecoder.decodeRGBA(contentsOfFile: fixtureFolder.path("pngsuite/" + name))
        let plain = try PNGDecoder.decodeRGBA(contentsOfFile: fixtureFolder.path("pngsuite/" + Self.twin(of: name)))
        #expect(interlaced.width == plain.width && interlaced.height == plain.height)
        if interlaced.pixels != plain.pixels {
            let index = zip(interlaced.pixels, plain.pixels).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? 0
            let pixel = index / 4
            Issue.record("\(name) differs from \(Self.twin(of: name)) first at x=\(pixel % max(plain.width, 1)) y=\(pixel / max(plain.width, 1))")
        }
    }

    @Test func everyInterlacedBasicFileHasATwin() {
        let basi = fixtureFolder.pngNames(in: "pngsuite").filter { $0.hasPrefix("basi") }
        #expect(basi.count == 15)
        #expect(Set(basi).isSubset(of: Set(Self.interlacedTwins)))
    }

    struct Stop: Error, Equatable {}

    @Test func readRowsPassesWhatTheBodyThrowsThroughAndReadsOnce() throws {
        let path = fixtureFolder.path("pngsuite/basn2c08.png")
        let decoder = try PNGDecoder(contentsOfFile: path)
        var seen = 0
        #expect(throws: Stop.self) {
            try decoder.readRows { y, _ in
                seen += 1
                if y == 3 { throw Stop() }
            }
        }
        #expect(seen == 4, "rows after the body's error must not be delivered")
        let again = #expect(throws: ImageError.self) { try decoder.readRows { _, _ in } }
        #expect(again?.reason.isEmpty == false)
        // A fresh decoder of an interlaced file also stops at the body's error.
        let interlaced = try PNGDecoder(contentsOfFile: fixtureFolder.path("pngsuite/basi2c08.png"))
        #expect(throws: Stop.self) { try interlaced.readRows { _, _ in throw Stop() } }
    }

    /// Writes the actual pixels (raw RGBA8, and a PNG when the encoder can)
    /// to a temporary folder; returns the raw file's path.
    static func writeActual(name: String, image: DecodedImage) -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pngcodec-test-failures")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let base = folder.appendingPathComponent(String(name.dropLast(4)))
        let raw = base.appendingPathExtension("actual.rgba")
        try? Data(image.pixels).write(to: raw)
        if let png = try? PNGEncoder.encode(pixels: image.pixels, width: image.width, height: image.height, format: .rgba8) {
            try? Data(png).write(to: base.appendingPathExtension("actual.png"))
        }
        TestLog.verbose("wrote \(raw.path) (\(image.width)×\(image.height) RGBA8)")
        return raw.path
    }
}
