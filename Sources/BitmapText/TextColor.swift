#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Raster

/// Black on light backgrounds, white on dark ones: whichever contrasts more with the
/// background's relative luminance (WCAG 2: black when L >= 0.1791, where both contrast
/// ratios are equal). A translucent background is judged as seen over white, as most
/// viewers show transparency.
public func defaultTextColor(on background: RGBA8Color) -> RGBA8Color {
    func linear(_ channel: UInt8) -> Double {
        // Composited over white, then sRGB-decoded.
        let seen = (Double(channel) * Double(background.a) + 255 * Double(255 - background.a)) / (255 * 255)
        return seen <= 0.04045 ? seen / 12.92 : pow((seen + 0.055) / 1.055, 2.4)
    }
    let luminance = 0.2126 * linear(background.r) + 0.7152 * linear(background.g) + 0.0722 * linear(background.b)
    // (L + 0.05) / 0.05 >= 1.05 / (L + 0.05)  <=>  (L + 0.05)^2 >= 0.0525
    return (luminance + 0.05) * (luminance + 0.05) >= 0.0525 ? .black : .white
}
