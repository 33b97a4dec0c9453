import CColorBridge
import WorkerThreads

/// How the rows handed to a transform are laid out (8 bits a sample).
public enum ColorLayout: Sendable, Hashable {
    /// Premultiplied RGBA8, as the resampler hands out a tile's rows (alpha is kept).
    case premultipliedRGBA8
    /// Decoded rows: RGB8, RGBA8 with straight alpha (kept), grey8 (grey profiles: grey stays grey).
    case rgb8, rgba8, grey8
    /// C, M, Y, K with 0 = full ink (Adobe's convention, which JPEG readers assume), read into RGB8.
    case invertedCMYK8
}

/// A transform from one source profile to sRGB, built once and applied from any thread.
///
/// The rendering intent is perceptual, ImageCms's default (so Pillow-made references match);
/// matrix/shaper profiles (most RGB and grey profiles: Adobe RGB, Display P3, ProPhoto as
/// cameras write them) have no perceptual table, and lcms then uses their colorimetric matrix,
/// which is what a browser shows. LUT profiles (CMYK, some RGB) use their perceptual table, which
/// maps a wider gamut into sRGB smoothly instead of clipping it. No black point compensation.
public final class ColorTransform: Sendable {
    /// ICC rendering intent 0.
    public static let intent: Int32 = 0
    /// The Little CMS version that runs (2140 for 2.14): part of the thumbnail cache key.
    public static let libraryVersion = Int(mcms_library_version())

    public let layout: ColorLayout
    private let handle: Handle
    /// For grey profiles on RGBA rows: the sRGB value of each grey level (lcms's answer).
    private let greyLevels: [UInt8]?

    /// Builds the transform from `profile` for rows in `layout`; a one-line reason when lcms
    /// refuses the profile.
    public init(profile: ICCProfile, layout: ColorLayout) throws(ColorProblem) {
        self.layout = layout
        let input: mcms_layout, output: mcms_layout
        switch (layout, profile.colorModel) {
        case (.premultipliedRGBA8, .rgb): (input, output) = (MCMS_RGBA8_PREMULTIPLIED, MCMS_RGBA8_PREMULTIPLIED)
        case (.premultipliedRGBA8, .grey): (input, output) = (MCMS_GREY8, MCMS_RGB8)
        case (.rgb8, .rgb): (input, output) = (MCMS_RGB8, MCMS_RGB8)
        case (.rgba8, .rgb): (input, output) = (MCMS_RGBA8, MCMS_RGBA8)
        case (.grey8, .grey): (input, output) = (MCMS_GREY8, MCMS_RGB8)
        case (.invertedCMYK8, .cmyk): (input, output) = (MCMS_CMYK8_INVERTED, MCMS_RGB8)
        default: throw ColorProblem("ICC profile for \(profile.colorModel.rawValue) does not match the picture")
        }
        var message = [CChar](repeating: 0, count: 256)
        let built = profile.bytes.withUnsafeBufferPointer { bytes in
            mcms_transform_create(bytes.baseAddress, bytes.count, Self.intent, input, output, &message, message.count)
        }
        guard let built else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw ColorProblem("ICC profile refused by lcms: " + (text.isEmpty ? "unknown reason" : text.lowercasedFirst))
        }
        handle = Handle(built)
        if profile.colorModel == .grey {
            // Each level converted in floating point (lcms's 8-bit grey path is coarse where
            // the curve is steep); lcms's 8-bit answer only if that transform cannot be built.
            var levels = [UInt8](repeating: 0, count: 256)
            if mcms_transform_grey_levels(built, &levels) == 0 {
                let ramp = (0...255).map { UInt8($0) }
                var rgb = [UInt8](repeating: 0, count: 256 * 3)
                mcms_transform_apply(built, ramp, &rgb, 256)
                levels = (0..<256).map { rgb[3 * $0 + 1] }
            }
            greyLevels = levels
        } else {
            greyLevels = nil
        }
    }

    /// Converts a row of the transform's layout in place (every layout but `.invertedCMYK8`).
    public func apply(_ row: UnsafeMutableBufferPointer<UInt8>) {
        precondition(layout != .invertedCMYK8)
        guard let greyLevels else {
            mcms_transform_apply(handle.pointer, row.baseAddress, row.baseAddress, row.count / (layout == .rgb8 ? 3 : 4))
            return
        }
        if layout == .grey8 {
            for at in row.indices { row[at] = greyLevels[Int(row[at])] }
            return
        }
        greyLevels.withUnsafeBufferPointer { levels in
            var at = 0
            while at + 3 < row.count {
                let alpha = Int(row[at + 3])
                if alpha == 255 {
                    let value = levels[Int(row[at + 1])]
                    (row[at], row[at + 1], row[at + 2]) = (value, value, value)
                } else if alpha > 0 {
                    // Straight value, converted, premultiplied again (rounded both ways).
                    let straight = min(255, (Int(row[at + 1]) * 255 + alpha / 2) / alpha)
                    let value = UInt8((Int(levels[straight]) * alpha + 127) / 255)
                    (row[at], row[at + 1], row[at + 2]) = (value, value, value)
                }
                at += 4
            }
        }
    }

    /// Converts `count` inverted CMYK8 pixels into RGB8 (`.invertedCMYK8`).
    public func apply(cmyk: UnsafePointer<UInt8>, into rgb: UnsafeMutablePointer<UInt8>, count: Int) {
        precondition(layout == .invertedCMYK8)
        mcms_transform_apply(handle.pointer, cmyk, rgb, count)
    }

    /// The lcms transform: applied concurrently (built without lcms's pixel cache), never changed.
    private final class Handle: @unchecked Sendable {
        let pointer: OpaquePointer
        init(_ pointer: OpaquePointer) { self.pointer = pointer }
        deinit { mcms_transform_destroy(pointer) }
    }
}

/// Every transform of a run, one per distinct profile and layout, built on first use and shared
/// by all workers (`Lock`: a `Mutex` ThreadSanitizer sees). A profile lcms refuses is remembered
/// too, so it is tried once.
public final class ColorTransformCache: Sendable {
    private struct Key: Hashable {
        let digest: [UInt8]
        let layout: ColorLayout
    }
    private let transforms = Lock<[Key: Result<ColorTransform, ColorProblem>]>([:])

    public init() {}

    /// The transform for `profile` and `layout`, built under the lock the first time (other
    /// workers needing it wait rather than build it again).
    public func transform(for profile: ICCProfile, layout: ColorLayout) -> Result<ColorTransform, ColorProblem> {
        let key = Key(digest: profile.digest, layout: layout)
        return transforms.withLock { known in
            if let found = known[key] { return found }
            let built = Result { () throws(ColorProblem) in try ColorTransform(profile: profile, layout: layout) }
            known[key] = built
            return built
        }
    }

    /// How many transforms (and refusals) are held.
    public var count: Int { transforms.withLock { $0.count } }
}

extension String {
    var lowercasedFirst: String { prefix(1).lowercased() + dropFirst() }
}
