import ColorManagement
import Foundation
import HEIFCodec
import JPEGCodec
import CodecCore
import PNGCodec
import Raster
import Testing
import WebPCodec
import TestSupport

/// A fixture as Masonry reads it: decoded at full size, its colour decided from the header
/// pass's `EmbeddedColor`, converted to sRGB by the shared transform on RGBA8 rows.
struct ConvertedPicture {
    let width: Int
    let height: Int
    /// RGB8 after conversion.
    let rgb: [UInt8]
    /// RGB8 as stored (CMYK: today's naive inversion).
    let stored: [UInt8]
    let decision: ColorDecision

    static let fixtures = FixtureFolder(in: .module)

    init(_ name: String, cache: ColorTransformCache = ColorTransformCache()) throws {
        let file = try InputFile(path: Self.fixtures.path(name))
        let source: any RowSource
        var storedSource: (any RowSource)?
        if name.hasSuffix(".jpg") {
            let header = try JPEGHeader(file: file)
            let model: ICCProfile.ColorModel = header.componentCount == 1 ? .grey : header.componentCount == 4 ? .cmyk : .rgb
            decision = header.color.decision(for: model)
            var cmyk: ColorTransform?
            if model == .cmyk, let profile = decision.profile {
                cmyk = try cache.transform(for: profile, layout: .invertedCMYK8).get()
            }
            source = try JPEGDecoder(file: file, limits: DecodeLimits(), minimumWidth: header.width, minimumHeight: header.height,
                                     cmykTransform: cmyk)
            storedSource = try JPEGDecoder(file: InputFile(path: Self.fixtures.path(name)), limits: DecodeLimits(),
                                           minimumWidth: header.width, minimumHeight: header.height)
        } else if name.hasSuffix(".webp") {
            let header = try WebPHeader(file: file)
            decision = Self.rgbDecision(profile: header.iccProfile)
            source = try WebPDecoder(file: file, limits: DecodeLimits(), minimumWidth: header.width, minimumHeight: header.height)
        } else if name.hasSuffix(".heic") {
            let header = try HEIFHeader(file: file)
            decision = Self.rgbDecision(profile: header.iccProfile, cicp: header.colourCodePoints.map {
                CICP(primaries: UInt8($0.primaries), transfer: UInt8($0.transfer), matrix: UInt8($0.matrix), fullRange: $0.fullRange)
            })
            source = try HEIFDecoder(file: file, limits: DecodeLimits(), minimumWidth: header.width, minimumHeight: header.height)
        } else {
            let header = try PNGHeader(file: file)
            let model: ICCProfile.ColorModel = [.grey, .greyAlpha].contains(header.colorType) ? .grey : .rgb
            decision = PNGColorChunks.read(file).decision(for: model)
            source = try PNGDecoder(file: file, compactOpaqueRows: true)
        }
        width = source.width
        height = source.height
        let rgbaTransform = decision.profile.flatMap { $0.colorModel == .cmyk ? nil : try? cache.transform(for: $0, layout: .premultipliedRGBA8).get() }
        var rgb: [UInt8] = [], stored: [UInt8] = []
        var rgba = [UInt8](repeating: 255, count: source.width * 4)
        try source.readRows { _, row in
            Self.widen(row, format: source.rowFormat, into: &rgba)
            stored += Self.narrow(rgba)
            rgba.withUnsafeMutableBufferPointer { rgbaTransform?.apply($0) }
            rgb += Self.narrow(rgba)
        }
        if let storedSource {
            stored = []
            try storedSource.readRows { _, row in
                Self.widen(row, format: storedSource.rowFormat, into: &rgba)
                stored += Self.narrow(rgba)
            }
        }
        self.rgb = rgb
        self.stored = stored
    }

    /// What an RGB picture with this embedded profile (or none) is drawn as.
    static func rgbDecision(profile: [UInt8]?, cicp: CICP? = nil) -> ColorDecision {
        var color = EmbeddedColor()
        if let profile { color.adoptProfile(profile) } else { color.cicp = cicp }
        return color.decision(for: .rgb)
    }

    static func widen(_ row: UnsafeBufferPointer<UInt8>, format: PixelFormat, into rgba: inout [UInt8]) {
        for x in 0 ..< rgba.count / 4 {
            switch format {
            case .grey8: (rgba[4 * x], rgba[4 * x + 1], rgba[4 * x + 2]) = (row[x], row[x], row[x])
            case .rgb8: (rgba[4 * x], rgba[4 * x + 1], rgba[4 * x + 2]) = (row[3 * x], row[3 * x + 1], row[3 * x + 2])
            case .rgba8, .opaqueRGBA8: for c in 0..<4 { rgba[4 * x + c] = row[4 * x + c] }
            }
        }
    }

    static func narrow(_ rgba: [UInt8]) -> [UInt8] {
        (0 ..< rgba.count / 4).flatMap { rgba[4 * $0 ..< 4 * $0 + 3] }
    }

    /// A golden PNG's samples as RGB8.
    static func golden(_ name: String) throws -> (width: Int, height: Int, rgb: [UInt8]) {
        let decoder = try PNGDecoder(file: InputFile(path: fixtures.path(name)), compactOpaqueRows: true)
        var rgba = [UInt8](repeating: 255, count: decoder.width * 4), rgb: [UInt8] = []
        try decoder.readRows { _, row in
            widen(row, format: decoder.rowFormat, into: &rgba)
            rgb += narrow(rgba)
        }
        return (decoder.width, decoder.height, rgb)
    }
}

/// Every colour fixture converted by Masonry's code at full size against Pillow ImageCms's
/// conversion of the same stored picture (scripts/make-color-fixtures.py): mean ΔE2000 ≤ 1.0,
/// 99th percentile ≤ 3.0. The stored samples must fail that bar (so it means something).
@Suite struct ReferenceConversionTests {
    static let cases = ConvertedPicture.fixtures.goldenFields("cases.txt")

    /// Every tagged picture of the fixture folder has its case (and its golden), so none can
    /// drop out of the parameterized tests unnoticed.
    @Test func theCasesCoverEveryFixture() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: ConvertedPicture.fixtures.root.path)
        let pictures = names.filter { name in
            !name.contains(".golden.") && [".png", ".jpg", ".webp", ".heic", ".avif"].contains { name.hasSuffix($0) }
        }
        #expect(Self.cases.map { $0[0] }.sorted() == pictures.sorted())
        for fields in Self.cases { #expect(names.contains(fields[1]), "\(fields[1])") }
    }

    @Test(arguments: cases.map { $0[0] })
    func matchesImageCms(_ fixture: String) throws {
        let fields = try #require(Self.cases.first { $0[0] == fixture })
        let picture = try ConvertedPicture(fixture)
        let golden = try ConvertedPicture.golden(fields[1])
        #expect(picture.decision.space.manifestName == fields[2...].joined(separator: " "))
        #expect(picture.decision.warnings.isEmpty, "\(picture.decision.warnings)")
        try #require(golden.width == picture.width && golden.height == picture.height)
        let converted = ColorErrorSummary(rgb: picture.rgb, golden.rgb)
        let stored = ColorErrorSummary(rgb: picture.stored, golden.rgb)
        TestLog.verbose("\(fixture): converted \(converted); as stored \(stored)")
        #expect(converted.mean <= 1.0, "\(fixture): \(converted)")
        #expect(converted.percentile99 <= 3.0, "\(fixture): \(converted)")
        #expect(stored.mean > 1.0 || stored.percentile99 > 3.0,
                "\(fixture): the stored samples already meet the bar (\(stored))")
    }

    /// The sRGB profile most PNGs carry (HP's, 3144 bytes, in four SampleImages) is recognised,
    /// named, and not applied: those pictures keep their bytes.
    @Test func sRGBProfileIsNotApplied() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let file = try InputFile(path: root.appendingPathComponent("SampleImages/01-astronaut.png").path)
        let decision = PNGColorChunks.read(file).decision(for: .rgb)
        #expect(decision.space.manifestName == "icc:sRGB IEC61966-2.1")
        #expect(decision.profile == nil)
        #expect(decision.fingerprint == 0)
    }
}
