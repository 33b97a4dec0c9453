import ColorManagement

extension JXLHeader {
    /// The colour the decoded samples are in, for the colour stage: sRGB for an XYB picture
    /// (the bridge asks libjxl for sRGB), the ICC profile libjxl read (`profile`) for one whose
    /// encoding is a profile, else the enumerated encoding as H.273 code points (JPEG XL's
    /// numbers are H.273's, but for P3 primaries: 11, with the D65 white point Display P3's
    /// 12), or a pure gamma with sRGB primaries as PNG's `gAMA` is read.
    public func embeddedColor(profile: [UInt8]?) -> EmbeddedColor {
        var color = EmbeddedColor()
        if isXYB {
            color.cicp = CICP(primaries: 1, transfer: 13, matrix: 0, fullRange: true)
            return color
        }
        switch colorEncoding {
        case .icc:
            if let profile { color.adoptProfile(profile) }
        case .enumerated(let colorSpace, let whitePoint, let primaries, let transfer, let gamma):
            guard colorSpace <= 1 else { return color }   // XYB or unknown as the encoding: untagged
            guard whitePoint == 1 else {
                color.problems.append(ColorProblem("JPEG XL white point \(whitePoint) not supported: drawn as stored"))
                return color
            }
            let codePoint = switch primaries {
            case nil: 1                 // grey: only the transfer matters
            case 11?: 12                // P3 primaries, D65 white: Display P3
            case let value?: value
            }
            if let transfer {
                color.cicp = CICP(primaries: UInt8(clamping: codePoint), transfer: UInt8(clamping: transfer), matrix: 0, fullRange: true)
            } else if let gamma, codePoint == 1 {
                color.gamma = UInt32(gamma / 100)   // JPEG XL stores the encoding exponent × 10^7, PNG × 10^5
            } else {
                color.problems.append(ColorProblem("JPEG XL gamma transfer with primaries \(codePoint) not supported: drawn as stored"))
            }
        }
        return color
    }
}
