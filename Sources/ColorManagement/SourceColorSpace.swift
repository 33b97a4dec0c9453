/// Where a picture's colours are defined: what the file says, as the manifest names it
/// (`"color"`), and the profile its samples are converted through to sRGB (none for untagged
/// and sRGB pictures: their samples are used as stored).
public enum SourceColorSpace: Sendable, Hashable {
    /// No colour information (or information that was ignored): samples are taken as sRGB.
    case untagged
    /// Said to be sRGB (a PNG `sRGB` chunk, CICP BT.709 primaries with an SDR transfer).
    case sRGB
    /// CICP/nclx primaries 12 (P3-D65) with the sRGB transfer, as Apple writes them.
    case displayP3
    /// CICP/nclx primaries 9 (BT.2020) with an SDR transfer.
    case bt2020
    /// An embedded ICC profile.
    case icc(ICCProfile)
    /// A PNG's `gAMA` (the file's exponent × 100000) with its `cHRM` primaries if any.
    case pngGamma(gamma: UInt32, chromaticities: Chromaticities?)

    /// The manifest's name: `"untagged"`, `"sRGB"`, `"Display P3"`, `"BT.2020"`,
    /// `"icc:<description>"`, `"gAMA 0.55556"` or `"gAMA 0.45455 + cHRM"`.
    public var manifestName: String {
        switch self {
        case .untagged: "untagged"
        case .sRGB: "sRGB"
        case .displayP3: "Display P3"
        case .bt2020: "BT.2020"
        case .icc(let profile): "icc:" + profile.description
        case .pngGamma(let gamma, let chromaticities):
            "gAMA " + Self.decimal(gamma) + (chromaticities == nil ? "" : " + cHRM")
        }
    }

    /// The profile the samples are converted through, for a picture of `model`: nil when the
    /// samples are sRGB already (untagged, sRGB). Built profiles (Display P3, BT.2020, gAMA) are
    /// matrix/shaper profiles made by lcms. An embedded profile that is sRGB's is not applied.
    public func profile(for model: ICCProfile.ColorModel) -> ICCProfile? {
        switch self {
        case .untagged, .sRGB: nil
        case .displayP3: BuiltProfiles.displayP3
        case .bt2020: BuiltProfiles.bt2020
        case .icc(let profile): profile.isSRGB ? nil : profile
        case .pngGamma(let gamma, let chromaticities):
            model == .grey ? BuiltProfiles.grey(decodingGamma: 100000 / Double(gamma))
                : BuiltProfiles.rgb(chromaticities: chromaticities ?? .sRGB, decodingGamma: 100000 / Double(gamma),
                                    description: manifestName)
        }
    }

    static func decimal(_ value: UInt32) -> String {
        let fraction = String(value % 100000)
        return "\(value / 100000)." + String(repeating: "0", count: 5 - fraction.count) + fraction
    }
}

/// CIE xy chromaticities of a white point and three primaries, in PNG `cHRM` units (× 100000).
public struct Chromaticities: Sendable, Hashable {
    public let whiteX, whiteY, redX, redY, greenX, greenY, blueX, blueY: UInt32

    public init(whiteX: UInt32, whiteY: UInt32, redX: UInt32, redY: UInt32,
                greenX: UInt32, greenY: UInt32, blueX: UInt32, blueY: UInt32) {
        (self.whiteX, self.whiteY, self.redX, self.redY) = (whiteX, whiteY, redX, redY)
        (self.greenX, self.greenY, self.blueX, self.blueY) = (greenX, greenY, blueX, blueY)
    }

    /// BT.709 / sRGB primaries, D65 white.
    public static let sRGB = Chromaticities(whiteX: 31270, whiteY: 32900, redX: 64000, redY: 33000,
                                            greenX: 30000, greenY: 60000, blueX: 15000, blueY: 6000)
    /// P3-D65 (SMPTE EG 432-1).
    public static let displayP3 = Chromaticities(whiteX: 31270, whiteY: 32900, redX: 68000, redY: 32000,
                                                 greenX: 26500, greenY: 69000, blueX: 15000, blueY: 6000)
    /// BT.2020.
    public static let bt2020 = Chromaticities(whiteX: 31270, whiteY: 32900, redX: 70800, redY: 29200,
                                              greenX: 17000, greenY: 79700, blueX: 13100, blueY: 4600)

    /// True when every value is one lcms can build a profile from (each y above 0, x + y at most 1).
    var isPlausible: Bool {
        let pairs: [(x: UInt32, y: UInt32)] = [(whiteX, whiteY), (redX, redY), (greenX, greenY), (blueX, blueY)]
        return pairs.allSatisfy { pair in pair.y > 0 && pair.x <= 100000 && pair.y <= 100000 && pair.x + pair.y <= 100000 }
    }

    /// wx, wy, rx, ry, gx, gy, bx, by as fractions.
    var fractions: [Double] {
        [whiteX, whiteY, redX, redY, greenX, greenY, blueX, blueY].map { Double($0) / 100000 }
    }
}

/// CICP code points (ITU-T H.273) as PNG `cICP` and HEIF `nclx` carry them.
public struct CICP: Sendable, Hashable {
    /// Colour primaries, transfer characteristics and matrix coefficients (H.273's tables).
    public let primaries, transfer, matrix: UInt8
    public let fullRange: Bool

    public init(primaries: UInt8, transfer: UInt8, matrix: UInt8, fullRange: Bool) {
        (self.primaries, self.transfer, self.matrix, self.fullRange) = (primaries, transfer, matrix, fullRange)
    }

    /// The colour space the code points name: BT.709 (1) is sRGB, P3-D65 (12) Display P3,
    /// BT.2020 (9) BT.2020, each with an SDR transfer (1, 6, 13, 14, 15), all read with the sRGB
    /// curve. PQ (16) and HLG (18) are not tone-mapped: the samples are drawn as stored, with a
    /// problem to report. Unspecified (2) primaries say nothing: untagged.
    public func colorSpace() -> Result<SourceColorSpace, ColorProblem> {
        switch transfer {
        case 16: return .failure(ColorProblem("HDR transfer (PQ) not tone-mapped: drawn as stored"))
        case 18: return .failure(ColorProblem("HDR transfer (HLG) not tone-mapped: drawn as stored"))
        case 1, 2, 6, 13, 14, 15: break
        default: return .failure(ColorProblem("CICP transfer \(transfer) not supported: drawn as stored"))
        }
        switch primaries {
        case 1: return .success(.sRGB)
        case 2: return .success(.untagged)
        case 9: return .success(.bt2020)
        case 12: return .success(.displayP3)
        default: return .failure(ColorProblem("CICP primaries \(primaries) not supported: drawn as stored"))
        }
    }
}
