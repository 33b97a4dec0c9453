import Foundation

/// CIE L*a*b* (D65 white), and the CIEDE2000 colour difference (Sharma, Wu and Dalal 2005), for
/// the colour-management references: ΔE2000 of 1 is about the smallest difference seen side by side.
public struct LabColor: Sendable, Hashable {
    public let l, a, b: Double

    public init(l: Double, a: Double, b: Double) { (self.l, self.a, self.b) = (l, a, b) }

    /// An 8-bit sRGB colour (IEC 61966-2.1 curve and matrix).
    public init(sRGB red: UInt8, _ green: UInt8, _ blue: UInt8) {
        let (r, g, b) = (Self.linear[Int(red)], Self.linear[Int(green)], Self.linear[Int(blue)])
        let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.9505
        let y = 0.2126 * r + 0.7152 * g + 0.0722 * b
        let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.089
        func f(_ t: Double) -> Double { t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116 }
        self.init(l: 116 * f(y) - 16, a: 500 * (f(x) - f(y)), b: 200 * (f(y) - f(z)))
    }

    private static let linear: [Double] = (0...255).map { value in
        let v = Double(value) / 255
        return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    /// CIEDE2000 with kL = kC = kH = 1.
    public func deltaE2000(_ other: LabColor) -> Double {
        func degrees(_ radians: Double) -> Double { radians * 180 / .pi }
        func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }
        let c1 = (a * a + b * b).squareRoot(), c2 = (other.a * other.a + other.b * other.b).squareRoot()
        let meanC = (c1 + c2) / 2
        let g = 0.5 * (1 - (pow(meanC, 7) / (pow(meanC, 7) + pow(25, 7))).squareRoot())
        let a1 = (1 + g) * a, a2 = (1 + g) * other.a
        let cp1 = (a1 * a1 + b * b).squareRoot(), cp2 = (a2 * a2 + other.b * other.b).squareRoot()
        func hue(_ b: Double, _ a: Double) -> Double {
            if a == 0 && b == 0 { return 0 }
            let h = degrees(atan2(b, a))
            return h < 0 ? h + 360 : h
        }
        let h1 = hue(b, a1), h2 = hue(other.b, a2)
        let deltaL = other.l - l, deltaC = cp2 - cp1
        var deltaH = 0.0
        if cp1 * cp2 != 0 {
            deltaH = h2 - h1
            if deltaH > 180 { deltaH -= 360 } else if deltaH < -180 { deltaH += 360 }
        }
        let deltaBigH = 2 * (cp1 * cp2).squareRoot() * sin(radians(deltaH / 2))
        let meanL = (l + other.l) / 2, meanCp = (cp1 + cp2) / 2
        var meanH = h1 + h2
        if cp1 * cp2 != 0 {
            if abs(h1 - h2) <= 180 { meanH = (h1 + h2) / 2 } else if h1 + h2 < 360 { meanH = (h1 + h2 + 360) / 2 } else { meanH = (h1 + h2 - 360) / 2 }
        }
        let t = 1 - 0.17 * cos(radians(meanH - 30)) + 0.24 * cos(radians(2 * meanH))
            + 0.32 * cos(radians(3 * meanH + 6)) - 0.20 * cos(radians(4 * meanH - 63))
        let deltaTheta = 30 * exp(-pow((meanH - 275) / 25, 2))
        let rc = 2 * (pow(meanCp, 7) / (pow(meanCp, 7) + pow(25, 7))).squareRoot()
        let sl = 1 + 0.015 * pow(meanL - 50, 2) / (20 + pow(meanL - 50, 2)).squareRoot()
        let sc = 1 + 0.045 * meanCp, sh = 1 + 0.015 * meanCp * t
        let rt = -sin(radians(2 * deltaTheta)) * rc
        let lTerm = deltaL / sl, cTerm = deltaC / sc, hTerm = deltaBigH / sh
        return (lTerm * lTerm + cTerm * cTerm + hTerm * hTerm + rt * cTerm * hTerm).squareRoot()
    }
}

/// The ΔE2000 of two pictures of the same size, pixel by pixel (RGB8 samples, sRGB).
public struct ColorErrorSummary: Sendable, CustomStringConvertible {
    public let mean: Double
    public let percentile99: Double
    public let maximum: Double

    public init(rgb first: [UInt8], _ second: [UInt8]) {
        precondition(first.count == second.count && first.count % 3 == 0 && !first.isEmpty)
        var errors: [Double] = []
        errors.reserveCapacity(first.count / 3)
        var cache: [UInt32: LabColor] = [:]
        func lab(_ pixels: [UInt8], _ at: Int) -> LabColor {
            let key = UInt32(pixels[at]) << 16 | UInt32(pixels[at + 1]) << 8 | UInt32(pixels[at + 2])
            if let known = cache[key] { return known }
            let color = LabColor(sRGB: pixels[at], pixels[at + 1], pixels[at + 2])
            cache[key] = color
            return color
        }
        for at in stride(from: 0, to: first.count, by: 3) {
            errors.append(lab(first, at).deltaE2000(lab(second, at)))
        }
        errors.sort()
        mean = errors.reduce(0, +) / Double(errors.count)
        percentile99 = errors[Int(Double(errors.count - 1) * 0.99)]
        maximum = errors.last!
    }

    public var description: String {
        String(format: "mean ΔE2000 %.3f, p99 %.3f, max %.3f", mean, percentile99, maximum)
    }
}
