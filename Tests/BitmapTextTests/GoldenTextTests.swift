import BitmapText
import Foundation
import CodecCore
import PNGCodec
import Raster
import Testing

/// Text drawn by Masonry against images Pillow rendered from Debian's original PCF fonts
/// (Fixtures/make_goldens.py; the cases are the rows of Fixtures/goldens.tsv).
@Suite struct GoldenTextTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let size: FontSize
        let channels: Int
        let background: RGBA8Color
        let color: RGBA8Color
        let bytes: [UInt8]
        let fitWidth: Int?
        let drawn: String
        let x: Int, y: Int
        let clip: PixelRect
        var testDescription: String { name }
    }

    static let cases: [Case] = {
        let table = try! String(contentsOfFile: fixturePath("goldens.tsv"), encoding: .utf8)
        return table.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false)
            let fit = Int(f[6])!
            return Case(name: String(f[0]), size: FontSize(rawValue: String(f[1]))!, channels: Int(f[2])!,
                        background: RGBA8Color(hex8: f[3]), color: RGBA8Color(hex8: f[4]), bytes: bytes(hex: f[5]),
                        fitWidth: fit < 0 ? nil : fit, drawn: String(decoding: bytes(hex: f[7]), as: UTF8.self),
                        x: Int(f[8])!, y: Int(f[9])!, clip: (Int(f[10])!, Int(f[11])!, Int(f[12])!, Int(f[13])!))
        }
    }()

    @Test func everySizeAndKindHasGoldens() {
        #expect(Set(Self.cases.map(\.size)) == Set(FontSize.allCases))
        #expect(Set(Self.cases.map(\.channels)) == [3, 4])
        #expect(Self.cases.count >= 15)
    }

    @Test(arguments: cases)
    func matchesPillowRendering(_ golden: Case) throws {
        let reference = try PNGDecoder.decodeRGBA(contentsOfFile: fixturePath(golden.name + ".png"))
        let font = BitmapFont.builtIn(golden.size)
        var line = TextLine(bytes: golden.bytes)
        if let fitWidth = golden.fitWidth {
            line = line.fitted(toWidth: fitWidth, in: font)
            #expect(line.width(in: font) <= fitWidth)
        }
        #expect(line.string == golden.drawn)
        var canvas = Canvas(width: reference.width, height: reference.height, channels: golden.channels,
                            background: golden.background)
        canvas.draw(line, font: font, color: golden.color, x: golden.x, y: golden.y, clip: golden.clip)
        let actual = canvas.rgba
        let differing = (0..<(reference.width * reference.height)).filter {
            actual[($0 * 4)..<($0 * 4 + 4)] != reference.pixels[($0 * 4)..<($0 * 4 + 4)]
        }
        #expect(differing.count == 0, "\(golden.name): \(differing.count) pixels differ, first at \(differing.first.map { ($0 % reference.width, $0 / reference.width) }.debugDescription)")
    }
}
