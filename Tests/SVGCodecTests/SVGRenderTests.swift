// SVGDecoder's rows against rsvg-convert at the same size (exact) and CairoSVG (PSNR), from
// scripts/make-svg-fixtures.py.
import Foundation
import CodecCore
import PNGCodec
import Raster
@testable import SVGCodec
import Testing
import TestSupport

@Suite struct SVGRenderTests {
    struct Reference: CustomStringConvertible, Sendable {
        let stem: String
        let width: Int
        let height: Int
        /// Whether CairoSVG drew this size (tiles of the drawing's own aspect).
        let hasCairoSVG: Bool
        var base: String { "\(stem).\(width)x\(height)" }
        var description: String { base }
    }

    static let references = fixtures.goldenLines("references.txt") { fields -> Reference? in
        guard fields.count == 4, let w = Int(fields[1]), let h = Int(fields[2]), ["cairosvg", "-"].contains(fields[3]) else { return nil }
        return Reference(stem: fields[0], width: w, height: h, hasCairoSVG: fields[3] == "cairosvg")
    }

    static func rows(_ stem: String, width: Int, height: Int) throws -> [UInt8] {
        let decoder = try SVGDecoder(file: InputFile(path: fixtures.path(stem + ".svg")), limits: DecodeLimits(), width: width, height: height)
        #expect((decoder.width, decoder.height) == (width, height))
        #expect(decoder.rowFormat == .rgba8)
        var pixels: [UInt8] = []
        try decoder.readRows { _, row in pixels += row }
        return pixels
    }

    /// Drawn at a tile's size, the rows are rsvg-convert's PNG at that size, byte for byte
    /// (straight alpha; fully transparent pixels are 0, 0, 0, 0 in both).
    @Test(arguments: references)
    func rowsAreRsvgConvertsAtTheSameSize(reference: Reference) throws {
        let pixels = try Self.rows(reference.stem, width: reference.width, height: reference.height)
        let expected = try PNGDecoder.decodeRGBA(contentsOfFile: fixtures.path(reference.base + ".rsvg.png"))
        #expect((expected.width, expected.height) == (reference.width, reference.height))
        let differing = zip(pixels, expected.pixels).filter { $0 != $1 }.count
        #expect(pixels.count == expected.pixels.count && differing == 0, "\(reference): \(differing) bytes differ")
    }

    /// Drawn by a drawing process (a child of the `masonry` command, as the command draws every
    /// SVG), the rows are the same: rsvg-convert's PNG byte for byte, and librsvg's reading of
    /// the root, sent back with them, is the header's size.
    @Test(arguments: references)
    func aDrawingProcessDrawsRsvgConvertsRows(reference: Reference) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixtures.path(reference.stem + ".svg"))))
        let header = try SVGHeader(bytes: bytes[...])
        let drawing = try MasonryExecutable.url.path.withCString { executable in
            try SVGDrawingProcess.draw(bytes, executable: executable, naturalWidth: header.naturalWidth, naturalHeight: header.naturalHeight,
                                       width: reference.width, height: reference.height)
        }
        #expect(drawing.intrinsic.naturalSize == header.naturalSize)
        let expected = try PNGDecoder.decodeRGBA(contentsOfFile: fixtures.path(reference.base + ".rsvg.png"))
        #expect(drawing.pixels == expected.pixels, "\(reference): the drawing process's rows differ from rsvg-convert's")
    }

    /// The tile as the sheet makes it (rows through the resampler at the tile's own size, over
    /// white) against an independent renderer, CairoSVG, over white: at least 30 dB.
    @Test(arguments: references.filter(\.hasCairoSVG))
    func tilesMatchCairoSVG(reference: Reference) throws {
        let decoder = try SVGDecoder(file: InputFile(path: fixtures.path(reference.stem + ".svg")), limits: DecodeLimits(),
                                     width: reference.width, height: reference.height)
        let tile = try tileOverWhite(decoder, orientation: .up, tileWidth: reference.width, tileHeight: reference.height)
        let cairo = try PNGDecoder.decodeRGBA(contentsOfFile: fixtures.path(reference.base + ".cairosvg.png"))
        var overWhite: [UInt8] = []
        for at in stride(from: 0, to: cairo.pixels.count, by: 4) {
            let alpha = Int(cairo.pixels[at + 3])
            for channel in 0..<3 { overWhite.append(UInt8((Int(cairo.pixels[at + channel]) * alpha + 255 * (255 - alpha) + 127) / 255)) }
        }
        let quality = psnr(tile, overWhite)
        #expect(quality >= 30, "\(reference): \(quality) dB")
    }

    /// The resampler passes rows already at the tile's size through: the tile is rsvg-convert's
    /// PNG composited over white, exactly (no raster resampling of a vector).
    @Test(arguments: references)
    func theTileIsTheRenderingItselfNotAResampledOne(reference: Reference) throws {
        let decoder = try SVGDecoder(file: InputFile(path: fixtures.path(reference.stem + ".svg")), limits: DecodeLimits(),
                                     width: reference.width, height: reference.height)
        let tile = try tileOverWhite(decoder, orientation: .up, tileWidth: reference.width, tileHeight: reference.height)
        let rsvg = try PNGDecoder.decodeRGBA(contentsOfFile: fixtures.path(reference.base + ".rsvg.png"))
        var worst = 0
        for (index, at) in stride(from: 0, to: rsvg.pixels.count, by: 4).enumerated() {
            let alpha = Int(rsvg.pixels[at + 3])
            for channel in 0..<3 {
                let expected = (Int(rsvg.pixels[at + channel]) * alpha + 255 * (255 - alpha) + 127) / 255
                worst = max(worst, abs(expected - Int(tile[index * 3 + channel])))
            }
        }
        #expect(worst <= 1, "\(reference): off by \(worst)")
    }

    /// A document without dimensions is laid out at 300 × 150 and scaled to the tile: the same
    /// as rsvg-convert drawing it with width="300" height="150" added.
    @Test func aDocumentWithoutSizeIsLaidOutAt300By150() throws {
        let header = try SVGHeader(file: InputFile(path: fixtures.path("no-size.svg")))
        #expect(!header.hasIntrinsicSize && header.width == 300 && header.height == 150)
        let pixels = try Self.rows("no-size", width: 60, height: 30)
        // The drawing's circle (centre 30,25 r 22 in a 300×150 viewport) at a fifth: opaque-ish
        // at (6, 5), nothing right of x = 20 (the drawing ends at x = 97 of 300).
        #expect(pixels[(5 * 60 + 6) * 4 + 3] > 0)
        #expect((0..<30).allSatisfy { y in (21..<60).allSatisfy { x in pixels[(y * 60 + x) * 4 + 3] == 0 } })
    }

    /// cairo's premultiplied ARGB32 turned straight RGBA: opaque areas keep their colour in RGBA
    /// order, empty ones are 0, 0, 0, 0, and a half-transparent one its colour within cairo's
    /// rounding (widths 37 and 40: areas on and off the bridge's four-pixel steps).
    @Test(arguments: [37, 40])
    func opaqueAndEmptyAreasComeOutExactly(width: Int) throws {
        let folder = TemporaryFolder("svg-areas")
        try """
            <svg xmlns='http://www.w3.org/2000/svg' width='\(width)' height='3'>
            <rect x='0' y='0' width='\(width)' height='1' fill='#123456'/>
            <rect x='0' y='2' width='\(width)' height='1' fill='#d08040' fill-opacity='0.5'/></svg>
            """.write(toFile: folder.file("areas.svg"), atomically: true, encoding: .utf8)
        let decoder = try SVGDecoder(file: InputFile(path: folder.file("areas.svg")), limits: DecodeLimits(), width: width, height: 3)
        var rows: [[UInt8]] = []
        try decoder.readRows { _, row in rows.append(Array(row)) }
        #expect(rows[0] == Array([[UInt8]](repeating: [0x12, 0x34, 0x56, 255], count: width).joined()))
        #expect(rows[1] == [UInt8](repeating: 0, count: 4 * width))
        for x in 0..<width {
            let pixel = rows[2][4 * x..<4 * x + 4].map(Int.init)
            #expect(abs(pixel[3] - 128) <= 1 && abs(pixel[0] - 0xd0) <= 2 && abs(pixel[1] - 0x80) <= 2 && abs(pixel[2] - 0x40) <= 2,
                    "pixel \(x) of the half-transparent row: \(pixel)")
        }
    }

    @Test func theLibraryIsNamedWithItsVersion() {
        #expect(SVGDecoder.libraryVersion.hasPrefix("librsvg 2."))
    }
}
