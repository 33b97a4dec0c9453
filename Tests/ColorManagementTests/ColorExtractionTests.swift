import ColorManagement
import FuzzHarness
import JPEGCodec
import CodecCore
import PNGCodec
import Testing
import TestSupport

/// Reading colour information out of PNG chunks and JPEG APP2 segments: precedence, damage,
/// bombs. Every bad case leaves the picture untagged with a one-line warning.
@Suite struct ColorExtractionTests {
    static let fixtures = FixtureFolder(in: .module)
    static let p3 = try! fixtures.bytes("display-p3.icc")
    static let grey = try! fixtures.bytes("grey-gamma-1.8.icc")

    static func iCCP(_ profile: [UInt8], name: String = "profile") -> [UInt8] {
        PNGBytes.chunk("iCCP", Array(name.utf8) + [0, 0] + PNGBytes.zlibStored(profile))
    }
    static let sRGB = PNGBytes.chunk("sRGB", [0])
    static let gAMA = PNGBytes.chunk("gAMA", PNGBytes.be32(55556))
    static let cHRM = PNGBytes.chunk("cHRM", [31270, 32900, 64000, 33000, 21000, 71000, 15000, 6000].flatMap { PNGBytes.be32($0) })
    static func cICP(_ primaries: UInt8, _ transfer: UInt8, matrix: UInt8 = 0) -> [UInt8] {
        PNGBytes.chunk("cICP", [primaries, transfer, matrix, 1])
    }

    /// What a 2×1 RGB (or grey) PNG with `chunks` before its IDAT is drawn as.
    static func decision(_ chunks: [UInt8], afterIDAT: [UInt8] = [], grey: Bool = false) -> ColorDecision {
        let colorType: UInt8 = grey ? 0 : 2
        let bytes = PNGBytes.signature + PNGBytes.ihdr(width: 2, height: 1, colorType: colorType) + chunks
            + PNGBytes.chunk("IDAT", PNGBytes.zlibStored([0] + [UInt8](repeating: 9, count: grey ? 2 : 6))) + afterIDAT + PNGBytes.chunk("IEND")
        return bytes.withUnsafeBytes { raw in
            withInputFile(raw) { file in PNGColorChunks.read(file).decision(for: grey ? .grey : .rgb) }
        }!
    }

    @Test func precedenceIsCICPThenICCThenSRGBThenGamma() {
        #expect(Self.decision(Self.gAMA + Self.iCCP(Self.p3) + Self.sRGB + Self.cICP(12, 13)).space == .displayP3)
        #expect(Self.decision(Self.sRGB + Self.iCCP(Self.p3) + Self.gAMA).space.manifestName == "icc:Display P3")
        #expect(Self.decision(Self.gAMA + Self.cHRM + Self.sRGB).space == .sRGB)
        #expect(Self.decision(Self.gAMA + Self.cHRM).space.manifestName == "gAMA 0.55556 + cHRM")
        #expect(Self.decision(Self.gAMA).space.manifestName == "gAMA 0.55556")
        #expect(Self.decision([]).space == .untagged)
        // After the image data, chunks say nothing (libpng and browsers read them before IDAT).
        #expect(Self.decision([], afterIDAT: Self.iCCP(Self.p3)).space == .untagged)
    }

    @Test func sRGBLikeGammaAloneKeepsTheBytes() {
        let decision = Self.decision(PNGBytes.chunk("gAMA", PNGBytes.be32(45455)))
        #expect(decision.space == .sRGB && decision.profile == nil)
        // With cHRM it is converted (other primaries).
        #expect(Self.decision(PNGBytes.chunk("gAMA", PNGBytes.be32(45455)) + Self.cHRM).profile != nil)
    }

    @Test(arguments: [(UInt8(1), UInt8(13), "sRGB"), (12, 13, "Display P3"), (9, 14, "BT.2020"), (2, 2, "untagged")])
    func cicpCodePoints(_ primaries: UInt8, _ transfer: UInt8, _ name: String) {
        let decision = Self.decision(Self.cICP(primaries, transfer))
        #expect(decision.space.manifestName == name)
        #expect(decision.warnings.isEmpty)
        #expect((decision.profile == nil) == (name == "sRGB" || name == "untagged"))
    }

    @Test(arguments: [(UInt8(9), UInt8(16), "PQ"), (9, 18, "HLG"), (22, 13, "primaries 22"), (1, 8, "transfer 8")])
    func unsupportedCICPIsDrawnAsStored(_ primaries: UInt8, _ transfer: UInt8, _ reason: String) {
        let decision = Self.decision(Self.cICP(primaries, transfer) + Self.iCCP(Self.p3))
        #expect(decision.space == .untagged && decision.profile == nil)
        #expect(decision.warnings.count == 1 && decision.warnings[0].reason.contains(reason), "\(decision.warnings)")
    }

    @Test func damagedChunksAreIgnoredWithAWarning() {
        let cases: [(String, [UInt8], String)] = [
            ("bad CRC", PNGBytes.chunk("iCCP", Array("p".utf8) + [0, 0] + PNGBytes.zlibStored(Self.p3), crcXor: 1), "CRC"),
            ("damaged zlib", PNGBytes.chunk("iCCP", Array("p".utf8) + [0, 0, 0x78, 0x01, 0xFF, 0xFF, 0xFF]), "damaged"),
            ("no name", PNGBytes.chunk("iCCP", [0, 0] + PNGBytes.zlibStored(Self.p3)), "malformed"),
            ("truncated profile", Self.iCCP(Array(Self.p3.dropLast(30))), "truncated"),
            ("gAMA of 3 bytes", PNGBytes.chunk("gAMA", [0, 0, 1]), "3 bytes"),
            ("cICP with a YCbCr matrix", Self.cICP(12, 13, matrix: 1), "matrix"),
        ]
        for (name, chunk, reason) in cases {
            let decision = Self.decision(chunk)
            #expect(decision.space == .untagged, "\(name)")
            #expect(decision.warnings.contains { $0.reason.contains(reason) }, "\(name): \(decision.warnings)")
        }
    }

    /// An iCCP that inflates to a gigabyte (about 1 MB of deflate at its best ratio) is stopped
    /// once it passes 4 MiB: a warning, the picture untagged.
    @Test func iccpBombStopsAtFourMiB() {
        let gigabyteOfZeros = PNGBytes.zlibZeroBomb(matchGroups: (1 << 30) / (258 * 4))
        let bomb = PNGBytes.chunk("iCCP", Array("bomb".utf8) + [0, 0] + gigabyteOfZeros)
        let decision = Self.decision(bomb)
        #expect(decision.space == .untagged)
        #expect(decision.warnings.map(\.reason) == ["PNG iCCP profile inflates past 4 MiB: ignored"])
    }

    @Test func mismatchedProfilesAreIgnored() {
        let greyOnRGB = Self.decision(Self.iCCP(Self.grey))
        #expect(greyOnRGB.space == .untagged && greyOnRGB.warnings.count == 1)
        let rgbOnGrey = Self.decision(Self.iCCP(Self.p3), grey: true)
        #expect(rgbOnGrey.space == .untagged && rgbOnGrey.warnings[0].reason.contains("on a grey picture"))
        let greyOnGrey = Self.decision(Self.iCCP(Self.grey), grey: true)
        #expect(greyOnGrey.space.manifestName == "icc:Grey gamma 1.8" && greyOnGrey.profile != nil)
        // A grey picture with gAMA gets a grey profile (cHRM does not apply to grey).
        #expect(Self.decision(Self.gAMA + Self.cHRM, grey: true).profile?.colorModel == .grey)
    }

    // MARK: JPEG APP2 ICC_PROFILE segments

    /// A JPEG fixture with its own APP2 segments replaced by `segments` (payloads after the length).
    static func jpeg(segments: [[UInt8]]) throws -> [UInt8] {
        let original = try fixtures.bytes("flowers-display-p3.jpg")
        var kept: [UInt8] = [0xFF, 0xD8]
        for payload in segments {
            kept += [0xFF, 0xE2, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        }
        var at = 2
        while original[at + 1] != 0xDA {
            let length = Int(original[at + 2]) << 8 | Int(original[at + 3])
            if original[at + 1] != 0xE2 { kept += original[at ..< at + 2 + length] }
            at += 2 + length
        }
        return kept + original[at...]
    }

    static func piece(_ sequence: UInt8, of count: UInt8, _ bytes: ArraySlice<UInt8>) -> [UInt8] {
        Array("ICC_PROFILE".utf8) + [0, sequence, count] + bytes
    }

    static func jpegDecision(_ segments: [[UInt8]]) throws -> ColorDecision {
        try JPEGHeader(bytes: jpeg(segments: segments)).color.decision(for: .rgb)
    }

    @Test func segmentsAreJoinedBySequenceNumber() throws {
        let thirds = [Self.p3[..<200], Self.p3[200..<400], Self.p3[400...]]
        let shuffled = try Self.jpegDecision([Self.piece(3, of: 3, thirds[2]), Self.piece(1, of: 3, thirds[0]),
                                              Self.piece(2, of: 3, thirds[1])])
        #expect(shuffled.space.manifestName == "icc:Display P3" && shuffled.warnings.isEmpty)
        // Other APP2 data (an MPF index, say) does not get in the way.
        let withOther = try Self.jpegDecision([Array("MPF".utf8) + [0, 1, 2, 3], Self.piece(1, of: 1, Self.p3[...])])
        #expect(withOther.space.manifestName == "icc:Display P3")
    }

    @Test func badSegmentsAreIgnoredWithAWarning() throws {
        let halves = [Self.p3[..<300], Self.p3[300...]]
        let cases: [(String, [[UInt8]], String)] = [
            ("missing", [Self.piece(1, of: 2, halves[0])], "1 of 2"),
            ("duplicate", [Self.piece(1, of: 2, halves[0]), Self.piece(1, of: 2, halves[0]), Self.piece(2, of: 2, halves[1])], "repeated"),
            ("sequence 0", [Self.piece(0, of: 2, halves[0]), Self.piece(2, of: 2, halves[1])], "out of range"),
            ("past the count", [Self.piece(1, of: 2, halves[0]), Self.piece(3, of: 2, halves[1])], "out of range"),
            ("counts disagree", [Self.piece(1, of: 2, halves[0]), Self.piece(2, of: 3, halves[1])], "out of range"),
            ("profile longer than its segment", [Self.piece(1, of: 1, halves[0])], "truncated"),
        ]
        for (name, segments, reason) in cases {
            let decision = try Self.jpegDecision(segments)
            #expect(decision.space == .untagged, "\(name)")
            #expect(decision.warnings.count == 1 && decision.warnings[0].reason.contains(reason), "\(name): \(decision.warnings)")
        }
    }

    @Test func profilesOverFourMiBAreIgnored() throws {
        let chunk = [UInt8](repeating: 0, count: 65000)
        let segments = (1...65).map { Self.piece(UInt8($0), of: 65, chunk[...]) }
        let decision = try Self.jpegDecision(segments)
        #expect(decision.space == .untagged)
        #expect(decision.warnings.map(\.reason) == ["ICC profile over 4 MiB"])
    }
}
