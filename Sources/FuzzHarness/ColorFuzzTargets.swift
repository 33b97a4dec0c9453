import ColorManagement
import JPEGCodec
import CodecCore
import PNGCodec

extension FuzzTarget {
    /// The ICC profile reader, then lcms on whatever passes it: a transform built and run on a row.
    static let iccProfile = FuzzTarget(name: "icc-profile") { bytes in
        guard let profile = try? ICCProfile(bytes: Array(bytes)) else { return }
        _ = profile.description
        for model in [ICCProfile.ColorModel.rgb, .grey, .cmyk] {
            let decision = EmbeddedColor.withProfile(profile).decision(for: model)
            guard let chosen = decision.profile else { continue }
            let layout: ColorLayout = chosen.colorModel == .cmyk ? .invertedCMYK8 : .premultipliedRGBA8
            guard let transform = try? ColorTransform(profile: chosen, layout: layout) else { continue }
            var row: [UInt8] = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37) }
            var rgb = [UInt8](repeating: 0, count: 48)
            if layout == .invertedCMYK8 {
                row.withUnsafeBufferPointer { input in
                    rgb.withUnsafeMutableBufferPointer { transform.apply(cmyk: input.baseAddress!, into: $0.baseAddress!, count: 16) }
                }
            } else {
                row.withUnsafeMutableBufferPointer { transform.apply($0) }
            }
        }
    }

    /// A PNG's colour chunks up to the first IDAT (cICP, iCCP with its bounded inflate, sRGB,
    /// cHRM, gAMA) and the decision for an RGB and a grey picture (which builds gAMA profiles).
    static let pngColorChunks = FuzzTarget(name: "png-color-chunks") { bytes in
        _ = withInputFile(bytes) { file in
            let color = PNGColorChunks.read(file)
            return (color.decision(for: .rgb), color.decision(for: .grey))
        }
    }

    /// A JPEG's APP2 ICC_PROFILE segments, joined by sequence number, through the header reader.
    static let jpegICC = FuzzTarget(name: "jpeg-icc") { bytes in
        _ = withInputFile(bytes) { file in try JPEGHeader(file: file).color.decision(for: .rgb) }
    }
}

extension EmbeddedColor {
    /// Colour information that is only `profile`.
    static func withProfile(_ profile: ICCProfile) -> EmbeddedColor {
        var color = EmbeddedColor()
        color.profile = profile
        return color
    }
}
