/// The colour information a file carries, as its header reader found it (nothing resolved
/// yet): code points, an embedded profile, PNG's colour chunks, and what was wrong with any.
public struct EmbeddedColor: Sendable, Hashable {
    /// PNG `cICP` or HEIF `nclx`.
    public var cicp: CICP?
    /// The embedded ICC profile, checked (`ICCProfile(bytes:)`); nil when none was found or it
    /// was refused (the reason is in `problems`).
    public var profile: ICCProfile?
    /// A PNG `sRGB` chunk.
    public var isSRGB = false
    /// A PNG `cHRM` chunk.
    public var chromaticities: Chromaticities?
    /// A PNG `gAMA` chunk (the file's exponent × 100000).
    public var gamma: UInt32?
    /// Why something found was not kept (an oversized, truncated or inconsistent profile).
    public var problems: [ColorProblem] = []

    public init() {}

    /// Nothing to say: an untagged picture.
    public static let none = EmbeddedColor()

    /// Keeps `bytes` as the profile if they pass the checks, else notes why not.
    public mutating func adoptProfile(_ bytes: [UInt8]) {
        do throws(ColorProblem) {
            profile = try ICCProfile(bytes: bytes)
        } catch {
            problems.append(error)
        }
    }

    /// What a picture of `model` is drawn as. The precedence libpng and browsers use: CICP, then
    /// the ICC profile, then `sRGB`, then `cHRM`/`gAMA` (`gAMA` alone keeps sRGB primaries; a
    /// gamma of 1/2.2 is taken as sRGB, as libpng does, so such files keep their bytes).
    /// A profile for another colour model than the picture's is ignored with a warning.
    public func decision(for model: ICCProfile.ColorModel) -> ColorDecision {
        var warnings = problems
        if let cicp {
            switch cicp.colorSpace() {
            case .success(let space) where space == .sRGB || space == .untagged || model == .rgb:
                return ColorDecision(space: space, model: model, warnings: warnings)
            case .success:
                warnings.append(ColorProblem("CICP colour space on a \(model.rawValue) picture: ignored"))
            case .failure(let problem):
                return ColorDecision(space: .untagged, model: model, warnings: warnings + [problem])
            }
        }
        if let profile {
            if profile.colorModel == model {
                return ColorDecision(space: .icc(profile), model: model, warnings: warnings)
            }
            warnings.append(ColorProblem("ICC profile for \(profile.colorModel.rawValue) on a \(model.rawValue) picture: ignored"))
        }
        if isSRGB { return ColorDecision(space: .sRGB, model: model, warnings: warnings) }
        if let gamma, gamma > 0, model != .cmyk {
            let nearSRGB = (45000...46000).contains(gamma)
            if chromaticities == nil && nearSRGB { return ColorDecision(space: .sRGB, model: model, warnings: warnings) }
            let primaries = model == .grey ? nil : chromaticities
            let space = SourceColorSpace.pngGamma(gamma: gamma, chromaticities: primaries)
            if space.profile(for: model) != nil {
                return ColorDecision(space: space, model: model, warnings: warnings)
            }
            warnings.append(ColorProblem("gAMA/cHRM values out of range: ignored"))
        }
        return ColorDecision(space: .untagged, model: model, warnings: warnings)
    }
}

/// What a picture is drawn as: its colour space, the profile its samples go through (nil: used
/// as stored), and the warnings to print with its name.
public struct ColorDecision: Sendable, Hashable {
    public let space: SourceColorSpace
    public let profile: ICCProfile?
    public let warnings: [ColorProblem]

    init(space: SourceColorSpace, model: ICCProfile.ColorModel, warnings: [ColorProblem]) {
        self.space = space
        self.profile = space.profile(for: model)
        self.warnings = warnings
    }

    /// Untagged, nothing to warn about.
    public static let untagged = ColorDecision(space: .untagged, model: .rgb, warnings: [])

    /// A number that changes with the conversion (0 when the samples are used as stored): part
    /// of the thumbnail cache key.
    public var fingerprint: UInt64 {
        guard let profile else { return 0 }
        return profile.digest.prefix(8).reduce(0) { $0 << 8 | UInt64($1) } | 1
    }
}
