// Canon's CR3 through Masonry's own box walk (CR3Layout): canon-eos-r-previews.cr3 is ExifTool's
// EOS R sample with real JPEGs put where the camera puts them (scripts/make-raw-fixtures.py), its
// references LibRaw's own reading (rawpy: its flip, its sensor, its thumbnail, which is the JPEG
// track) and Pillow's decodes of the JPEGs.
import Foundation
import CodecCore
@testable import RAWCodec
import Raster
import Testing

/// canon-eos-r-previews.txt: LibRaw's flip and sensor, and each JPEG's range and size.
struct CR3Reference {
    let flip: Int32
    let sensor: (width: Int, height: Int)
    /// thumb, prvw, full: offset, length, width, height.
    let jpegs: [String: [Int]]

    static let file: CR3Reference = {
        let lines = fixtureFolder.goldenFields("canon-eos-r-previews.txt")
        let fields = Dictionary(uniqueKeysWithValues: lines.map { ($0[0], Array($0.dropFirst())) })
        let sensor = fields["sensor"]![0].split(separator: "x").map { Int($0)! }
        return CR3Reference(flip: Int32(fields["flip"]![0])!, sensor: (sensor[0], sensor[1]),
                            jpegs: fields.filter { $0.value.count == 4 }.mapValues { $0.map { Int($0)! } })
    }()

    func preview(_ name: String) -> RAWPreview {
        let j = jpegs[name]!
        return RAWPreview(offset: j[0], length: j[1], width: j[2], height: j[3])
    }
}

@Suite struct CR3Tests {
    let path = fixtureFolder.path("canon-eos-r-previews.cr3")
    let reference = CR3Reference.file

    @Test func theHeaderIsReadFromTheBoxesAndAgreesWithLibRaw() throws {
        let header = try RAWHeader(file: InputFile(path: path))
        #expect(header.container == .cr3)
        // The picture is the camera's full-size JPEG; LibRaw's thumbnail is that JPEG's bytes.
        #expect(header.width == 720 && header.height == 480)
        #expect(header.orientation == RAWLibrary.orientation(flip: reference.flip) && header.orientation == .left)
        #expect(header.sensorPixels == reference.sensor.width * reference.sensor.height)
        // The 160×120 thumbnail letterboxes the 3:2 picture: left out.
        #expect(Set(header.previews) == [reference.preview("full"), reference.preview("prvw")])
        let layout = try CR3Layout(WindowedReader(file: InputFile(path: path)))
        let found: Set<[Int]> = Set(layout.jpegs.map { [Int($0.offset), Int($0.length)] })
        let expected: Set<[Int]> = Set(["thumb", "prvw", "full"].map { (name: String) -> [Int] in Array(reference.jpegs[name]![0 ..< 2]) })
        #expect(found == expected)
        // The in-memory reader (the fuzz target's) agrees.
        #expect(try RAWHeader(bytes: fixtureFolder.bytes("canon-eos-r-previews.cr3")) == header)
    }

    @Test(arguments: [(1, "prvw"), (120, "prvw"), (121, "full"), (360, "full")])
    func theSmallestPreviewAtLeastTwiceTheTileIsDrawn(minimumWidth: Int, name: String) throws {
        let file = try InputFile(path: path)
        let decoder = try RAWDecoder(file: file, limits: DecodeLimits(), minimumWidth: minimumWidth, minimumHeight: 1)
        guard case .preview(let index) = decoder.source else { Issue.record("drew \(decoder.source)"); return }
        #expect(decoder.header.previews[index] == reference.preview(name))
        let golden = try goldenRGB(fixtureFolder.path("canon-eos-r-previews.\(name).png"))
        // At its full DCT scale: the preview decoded whole, as Pillow decodes it.
        if decoder.width == golden.width {
            let score = psnr(try rgbRows(decoder), golden.rgb)
            #expect(score >= 40, "PSNR \(score) dB against Pillow")
        }
    }

    /// A copy cut inside `mdat`, after the full-size JPEG (a card read short), is drawn from its
    /// JPEGs; cut inside that JPEG, it is refused by the JPEG's length.
    @Test func aCutCopyIsDrawnFromTheJPEGsItStillHolds() throws {
        let bytes = try fixtureFolder.bytes("canon-eos-r-previews.cr3"), full = reference.preview("full")
        let cut = try RAWHeader(bytes: Array(bytes.prefix(full.offset + full.length + 100)))
        #expect(cut.width == 720 && cut.height == 480 && Set(cut.previews) == [full, reference.preview("prvw")])
        let inside = full.offset + full.length / 2
        #expect(throws: ImageError(.malformed, "RAW preview at offset \(full.offset) claims \(full.length) bytes, past the end of the file (\(inside) bytes)")) {
            try RAWHeader(bytes: Array(bytes.prefix(inside)))
        }
    }

    @Test func aTileLargerThanHalfTheFullSizeJPEGIsTheDemosaic() throws {
        let header = try RAWHeader(file: InputFile(path: path))
        #expect(header.source(for: DecodeTarget(minimumWidth: 361, minimumHeight: 1)) == .demosaic)
    }

    /// A CR3 Masonry cannot find a JPEG in (ExifTool's sample, its JPEGs stripped) takes its size
    /// from LibRaw, as before the walk; the bytes alone (no LibRaw) are refused with the reason.
    @Test func withoutAReadableJPEGLibRawSizesTheFile() throws {
        let header = try RAWHeader(file: InputFile(path: fixtureFolder.path("exiftool/CanonRaw.cr3")))
        #expect(header.width == 6024 && header.height == 4020 && header.previews.isEmpty)
        #expect(throws: ImageError(.unsupported, "CR3 file has no JPEG preview Masonry can read")) {
            try RAWHeader(bytes: fixtureFolder.bytes("exiftool/CanonRaw.cr3"))
        }
    }

    /// The fixture's bytes with a big-endian 32-bit field changed.
    func patched(_ at: Int, _ value: UInt32) throws -> [UInt8] {
        var bytes = try fixtureFolder.bytes("canon-eos-r-previews.cr3")
        bytes.replaceSubrange(at ..< at + 4, with: [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
        return bytes
    }

    func offset(of type: String, in bytes: [UInt8]) -> Int {
        let pattern = Array(type.utf8)
        return (0 ..< bytes.count - 4).first { Array(bytes[$0 ..< $0 + 4]) == pattern }! - 4
    }

    @Test func hostileBoxesAreRefusedWithTheirReasons() throws {
        let bytes = try fixtureFolder.bytes("canon-eos-r-previews.cr3")
        let prvw = offset(of: "PRVW", in: bytes)
        // PRVW's JPEG length (payload byte 12) past the end of the file.
        #expect(throws: ImageError(.malformed, "RAW preview at offset \(prvw + 24) claims \(0x7FFF_0000) bytes, past the end of the file (\(bytes.count) bytes)")) {
            try RAWHeader(bytes: try patched(prvw + 20, 0x7FFF_0000))
        }
        // A track claiming more than its movie holds.
        let trak = offset(of: "trak", in: bytes)
        #expect(throws: ImageError(.malformed, "malformed CR3 file: box 'trak' at byte \(trak) runs past the end of its 'moov' box at byte 24")) {
            try RAWHeader(bytes: try patched(trak, 0x0100_0000))
        }
        // A size smaller than the box's header.
        #expect(throws: ImageError(.malformed, "malformed CR3 file: box 'trak' at byte \(trak) claims 4 bytes, less than its header")) {
            try RAWHeader(bytes: try patched(trak, 4))
        }
        // A movie box over the limit, and more boxes in one parent than the walk reads.
        let huge = [0, 0, 0, 16] + Array("ftypcrx ".utf8) + [0, 0, 0, 0] + [0x00, 0x50, 0x00, 0x08] + Array("moov".utf8)
            + [UInt8](repeating: 0, count: 0x50_0000)
        #expect(throws: ImageError(.malformed, "malformed CR3 file: its 'moov' box of \(0x50_0000) bytes is over the \(CR3Layout.maxMovieBytes)-byte limit")) {
            try RAWHeader(bytes: huge)
        }
        let crowded = [0, 0, 0, 16] + Array("ftypcrx ".utf8) + [0, 0, 0, 0] + [0, 0, 0x08, 0x10] + Array("moov".utf8)
            + (0 ..< 257).flatMap { _ in [0, 0, 0, 8] + Array("free".utf8) }
        #expect(throws: ImageError(.malformed, "malformed CR3 file: more than 256 boxes in its 'moov' box at byte 16")) {
            try RAWHeader(bytes: crowded)
        }
    }
}
