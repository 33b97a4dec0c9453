import Digest
import Foundation
import CodecCore
import PNGCodec
import Raster
import Testing
import TIFFCodec

/// Pillow's own test TIFFs (Fixtures/conformance, its licence beside them) against Pillow's
/// decode: exact where lossless and read alike, by PSNR where lossy or reduced otherwise, and
/// exactly against the documented mapping where Pillow reads signed samples as their bits (see
/// scripts/make-tiff-fixtures.py). A file Pillow draws and Masonry skips fails here unless
/// `conformance.txt` lists it with Masonry's reason, as SPEC §12 does.
@Suite struct TIFFConformanceTests {
    static let lines: [[String]] = {
        let lines = fixtureFolder.goldenFields("conformance/conformance.txt")
        precondition(lines.count == 35, "Tests/TIFFCodecTests/Fixtures/conformance/conformance.txt is missing or incomplete")
        return lines
    }()

    @Test(arguments: lines.map { $0[0] })
    func matchesPillow(_ name: String) throws {
        let fields = try #require(Self.lines.first { $0[0] == name })
        let path = fixtureFolder.path("conformance/" + name)
        if fields[1] == "skip" {
            let reason = fields.dropFirst(2).joined(separator: " ")
            #expect(throws: ImageError(.unsupported, reason)) { _ = try openDecoder(path) }
            return
        }
        let decoder = try openDecoder(path)
        let format: PixelFormat = fields[1] == "grey8" ? .grey8 : fields[1] == "rgba8" ? .rgba8 : .rgb8
        #expect(decoder.rowFormat == format, "\(name)")
        let pixels = try allRows(decoder)
        if fields[2] == "exact" || fields[2] == "formula" {
            #expect(SHA256.hex(pixels) == fields[3], "\(name): differs from \(fields[2] == "exact" ? "Pillow's decode" : "the mapping")")
            return
        }
        let reference = try PNGDecoder.decodeRGBA(contentsOfFile: path + ".ref.png")
        #expect((reference.width, reference.height) == (decoder.width, decoder.height))
        let channels = format == .rgba8 ? 4 : 3
        let expected = channels == 4 ? reference.pixels : stride(from: 0, to: reference.pixels.count, by: 4).flatMap { reference.pixels[$0 ..< $0 + 3] }
        let ours = format == .grey8 ? pixels.flatMap { [$0, $0, $0] } : pixels
        // With alpha, the colours as they are drawn (premultiplied): a colour under alpha 1 is noise.
        let decibels = channels == 4 ? psnr(premultiplied(ours), premultiplied(expected)) : psnr(ours, expected)
        TestLog.verbose("\(name): \(String(format: "%.2f", decibels)) dB against Pillow")
        #expect(decibels >= 38, "\(name): \(decibels) dB against Pillow's decode")
    }
}

/// RGBA with the colours multiplied by their alpha (rounded), alpha kept.
func premultiplied(_ rgba: [UInt8]) -> [UInt8] {
    var out = rgba
    for at in stride(from: 0, to: out.count, by: 4) {
        let alpha = Int(out[at + 3])
        for channel in 0..<3 { out[at + channel] = UInt8((Int(out[at + channel]) * alpha + 127) / 255) }
    }
    return out
}
