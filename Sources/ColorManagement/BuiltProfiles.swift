import CColorBridge
#if canImport(Glibc)
import Glibc
#endif

/// Matrix/shaper profiles made by lcms from parameters: the CICP colour spaces and PNG
/// `gAMA`/`cHRM` pictures go through the same checked-profile path as embedded profiles.
enum BuiltProfiles {
    static let displayP3 = rgb(chromaticities: .displayP3, curve: MCMS_CURVE_SRGB, gamma: 0, description: "Display P3")!
    static let bt2020 = rgb(chromaticities: .bt2020, curve: MCMS_CURVE_SRGB, gamma: 0, description: "BT.2020")!

    /// RGB with `chromaticities` and the curve value^`decodingGamma`; nil for values lcms
    /// cannot make a profile of.
    static func rgb(chromaticities: Chromaticities, decodingGamma: Double, description: String) -> ICCProfile? {
        guard chromaticities.isPlausible, decodingGamma.isFinite, decodingGamma > 0.1, decodingGamma < 10 else { return nil }
        return rgb(chromaticities: chromaticities, curve: MCMS_CURVE_GAMMA, gamma: decodingGamma, description: description)
    }

    /// Grey (D50 white) with the curve value^`decodingGamma`.
    static func grey(decodingGamma: Double) -> ICCProfile? {
        guard decodingGamma.isFinite, decodingGamma > 0.1, decodingGamma < 10 else { return nil }
        var size = 0
        return adopt(mcms_build_grey_profile(decodingGamma, "grey gamma \(decodingGamma)", &size), size)
    }

    private static func rgb(chromaticities: Chromaticities, curve: mcms_curve, gamma: Double, description: String) -> ICCProfile? {
        var size = 0
        let bytes = chromaticities.fractions.withUnsafeBufferPointer { values in
            mcms_build_rgb_profile(values.baseAddress, curve, gamma, description, &size)
        }
        return adopt(bytes, size)
    }

    private static func adopt(_ bytes: UnsafeMutablePointer<UInt8>?, _ size: Int) -> ICCProfile? {
        guard let bytes else { return nil }
        defer { free(bytes) }
        return try? ICCProfile(bytes: Array(UnsafeBufferPointer(start: bytes, count: size)))
    }
}
