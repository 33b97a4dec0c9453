// JPEG XL fixtures (made by scripts/make-jxl-fixtures.py with cjxl) against their outside
// references: djxl's decode (checked there against pillow-jxl-plugin), its frame count, and the
// orientation djxl applies.
import Foundation
import CodecCore
import ColorManagement
import JXLCodec
import PNGCodec
import Raster
@_exported import TestSupport
import Testing

let fixtureFolder = FixtureFolder(in: .module)

/// One line of `references.txt`.
struct JXLFixture: Sendable, CustomTestStringConvertible {
    let name: String
    let width: Int, height: Int
    let orientation: Int
    let frames: Int
    /// 1 grey, 3 RGB, 4 RGBA.
    let channels: Int

    var path: String { fixtureFolder.path(name + ".jxl") }
    var testDescription: String { name }
    /// XYB pictures are compared by PSNR; every other one exactly.
    var isLossy: Bool { name == "lossy-xyb" }

    static let everyLine: [JXLFixture] = {
        let lines = fixtureFolder.goldenFields("references.txt")
        precondition(lines.count == 20, "Tests/JXLCodecTests/Fixtures/references.txt should list 20 fixtures")
        return lines.map { fields in
            JXLFixture(name: fields[0], width: Int(fields[1])!, height: Int(fields[2])!, orientation: Int(fields[3])!,
                       frames: Int(fields[4])!, channels: Int(fields[5])!)
        }
    }()
}

/// Every row of `decoder` as RGBA8 (grey repeated, opaque without alpha).
func rgbaRows(_ decoder: JXLDecoder) throws -> [UInt8] {
    var rgba: [UInt8] = []
    try decoder.readRows { _, row in
        switch decoder.rowFormat {
        case .grey8: for v in row { rgba += [v, v, v, 255] }
        case .rgb8: for p in stride(from: 0, to: row.count, by: 3) { rgba += [row[p], row[p + 1], row[p + 2], 255] }
        default: rgba += row
        }
    }
    return rgba
}

/// The one-line reason a JPEG XL file is refused with, from its header or its decode; nil when it decodes.
func refusal(_ path: String, limits: DecodeLimits = DecodeLimits()) -> String? {
    do {
        let file = try InputFile(path: path)
        _ = try JXLHeader(file: file)
        let decoder = try JXLDecoder(file: file, limits: limits)
        _ = try rgbaRows(decoder)
        return nil
    } catch {
        return (error as? ImageError)?.reason ?? "\(error)"
    }
}

@Suite struct JXLDecodeTests {
    @Test(arguments: JXLFixture.everyLine)
    func theHeaderReadsWhatDjxlReports(_ fixture: JXLFixture) throws {
        let file = try InputFile(path: fixture.path)
        let header = try JXLHeader(file: file)
        #expect(header.width == fixture.width && header.height == fixture.height)
        #expect(header.orientation.rawValue == fixture.orientation)
        #expect(header.isAnimated == (fixture.frames > 1))
        #expect(header.colorChannels == (fixture.channels == 1 ? 1 : 3))
        #expect(header.hasAlpha == (fixture.channels == 4))
        #expect(header.isXYB == fixture.isLossy)
        #expect(try JXLDecoder.frameCount(of: file, header: header) == fixture.frames)
        // The in-memory reader (the fuzz target's) agrees.
        #expect(try JXLHeader(bytes: fixtureFolder.bytes(fixture.name + ".jxl")) == header)
    }

    @Test(arguments: JXLFixture.everyLine)
    func theFirstFrameMatchesDjxl(_ fixture: JXLFixture) throws {
        let decoder = try JXLDecoder(file: InputFile(path: fixture.path), limits: DecodeLimits())
        #expect(decoder.width == fixture.width && decoder.height == fixture.height)
        #expect(decoder.rowFormat.bytesPerPixel == fixture.channels)
        let reference = try PNGDecoder.decodeRGBA(contentsOfFile: fixtureFolder.path(fixture.name + ".png"))
        let rows = try rgbaRows(decoder)
        if fixture.isLossy {
            let score = psnr(rows, reference.pixels)
            #expect(score >= 45, "PSNR \(score) dB against djxl")
        } else {
            #expect(rows == reference.pixels)
        }
    }

    @Test func theLayoutsAreTold() throws {
        #expect(try JXLHeader(file: InputFile(path: fixtureFolder.path("rgb8-lossless.jxl"))).layout == .codestream)
        #expect(try JXLHeader(file: InputFile(path: fixtureFolder.path("rgb8-lossless-container.jxl"))).layout
                == .container(hasJPEGReconstruction: false))
        // The codestream in three jxlp parts, its header cut across them: read as the bare one.
        let parts = try JXLHeader(file: InputFile(path: fixtureFolder.path("rgb8-lossless-parts.jxl")))
        #expect(parts.layout == .container(hasJPEGReconstruction: false))
        let bare = try JXLHeader(file: InputFile(path: fixtureFolder.path("rgb8-lossless.jxl")))
        #expect(parts.width == 64 && parts.height == 48 && parts.colorEncoding == bare.colorEncoding)
        #expect(try JXLHeader(file: InputFile(path: fixtureFolder.path("jpeg-recompressed.jxl"))).layout
                == .container(hasJPEGReconstruction: true))
    }

    @Test func theColourComesFromTheCodestream() throws {
        func decision(_ name: String) throws -> ColorDecision {
            let file = try InputFile(path: fixtureFolder.path(name + ".jxl"))
            let header = try JXLHeader(file: file)
            let profile = try JXLDecoder.embeddedProfile(of: file, header: header)
            return header.embeddedColor(profile: profile).decision(for: header.colorChannels == 1 ? .grey : .rgb)
        }
        #expect(try decision("lossy-xyb").space == .sRGB)
        #expect(try decision("display-p3-lossless").space == .displayP3)
        #expect(try decision("orientation-1").space == .sRGB)
        #expect(try decision("grey8-lossless").space == .sRGB)
        let adobe = try decision("adobe-rgb-lossless")
        #expect(adobe.space.manifestName.hasPrefix("icc:") && adobe.profile != nil)
        #expect(adobe.warnings.isEmpty)
        // A grey picture's grey profile (the colour space is read before "ICC follows").
        let grey = try decision("grey-gamma18-lossless")
        #expect(grey.space.manifestName.hasPrefix("icc:") && grey.profile?.colorModel == .grey && grey.warnings.isEmpty)
        // cjxl keeps a PNG's (synthesised) sRGB profile: drawn as stored.
        let png = try decision("rgb8-lossless")
        #expect(png.profile == nil && png.warnings.isEmpty)
    }

    @Test func hostileFilesAreRefusedWithTheirReasons() {
        let expected = [
            "huge-size": "image is 1073741824×1073741824, over the \(DecodeLimits.defaultMaxPixels)-pixel limit",
            "box-past-end": "JPEG XL box 'jxlc' runs past the end of the file",
            "no-codestream": "JPEG XL container without a codestream",
            "truncated-header": "truncated JPEG XL header",
            "truncated-data": "truncated JPEG XL file",
            "garbage-codestream": "corrupt JPEG XL codestream (libjxl: Tree is too large: 1601 nodes vs 1600 max nodes)",
            // Found by the source-header fuzz target: libjxl quotes the channel's name, byte 0x1C,
            // which a reason shows as its code so that it stays one printable line.
            "extra-channel-name-with-control-bytes": "corrupt JPEG XL codestream (libjxl: Unknown extra channel (bits 24, shift 1, name '[1C]'))",
        ]
        for (name, reason) in expected {
            #expect(refusal(fixtureFolder.path("hostile/\(name).jxl")) == reason, "\(name)")
        }
    }

    @Test func aDamagedBoxTypeIsNamedInHex() throws {
        var bytes = try fixtureFolder.bytes("rgb8-lossless-container.jxl")
        let jxlc = try #require((0 ..< bytes.count - 4).first { Array(bytes[$0 ..< $0 + 4]) == Array("jxlc".utf8) })
        bytes.replaceSubrange(jxlc ..< jxlc + 4, with: [0x00, 0xFF, 0x1B, 0x41])
        let size = bytes[jxlc - 4 ..< jxlc].reduce(0) { $0 << 8 | Int($1) }
        bytes.replaceSubrange(jxlc - 4 ..< jxlc, with: withUnsafeBytes(of: UInt32(size + 100).bigEndian, Array.init))
        #expect(throws: ImageError(.malformed, "JPEG XL box '0x00ff1b41' runs past the end of the file")) { try JXLHeader(bytes: bytes) }
    }

    @Test func aFileCutAnywhereIsRefusedWithOneOfTwoReasons() throws {
        let whole = try fixtureFolder.bytes("lossy-xyb.jxl")
        let folder = TemporaryFolder()
        for length in stride(from: 2, to: whole.count, by: 37) {
            let path = folder.file("cut-\(length).jxl")
            try #require(FileManager.default.createFile(atPath: path, contents: Data(whole.prefix(length))))
            let reason = refusal(path)
            #expect(reason == "truncated JPEG XL header" || reason == "truncated JPEG XL file", "cut at \(length): \(reason ?? "decoded")")
        }
    }

    @Test func theMaxPixelsLimitIsCheckedFromTheHeader() {
        #expect(refusal(fixtureFolder.path("rgb8-lossless.jxl"), limits: DecodeLimits(maxPixels: 1000))
                == "image is 64×48, over the 1000-pixel limit")
    }
}
