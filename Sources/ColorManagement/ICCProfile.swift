#if canImport(Glibc)
import Digest
import Glibc
#endif

/// An ICC profile whose structure was checked before any lcms code reads it: the header's size
/// field against the bytes, the `acsp` signature, the tag count against the size, every tag's
/// offset and size inside the profile, and the colour space and connection space signatures.
/// Carries what the sheet needs: the description (the `desc` tag's text, `desc` or `mluc` type),
/// the colour space, and a digest of the bytes that keys the transform cache.
public struct ICCProfile: Sendable, Hashable {
    /// The colour spaces a picture can have and a profile can describe.
    public enum ColorModel: String, Sendable, Hashable {
        case rgb = "RGB", grey = "grey", cmyk = "CMYK"
    }

    /// The profile's bytes (trimmed to the header's size field).
    public let bytes: [UInt8]
    /// The `desc` tag's text (printable, at most 100 characters), or "" when there is none.
    public let description: String
    public let colorModel: ColorModel
    /// SHA-256 of `bytes`.
    public let digest: [UInt8]
    /// True for an RGB matrix/shaper profile whose colorants and curves are sRGB's (within half
    /// an 8-bit step): converting through it would only add rounding, so it is not applied.
    public let isSRGB: Bool
    /// True for an RGB profile whose primaries span much more than sRGB's (ProPhoto, BT.2020,
    /// wide-gamut RGB: over 1.6 times sRGB's xy triangle), or whose gamut cannot be told from
    /// colorants (LUT profiles). Resampling such samples before converting them misses the
    /// quality bar (ProPhoto: p99 ΔE2000 4.8), so they are converted at the decoded size.
    public let isWideGamut: Bool

    /// The largest profile read (a larger one is ignored with a warning): a real one is tens of
    /// KB, a printer profile with big tables a few MB.
    public static let maxByteCount = 4 << 20

    /// Checks `bytes` as an ICC profile. Throws a one-line reason for anything lcms should not see.
    public init(bytes input: [UInt8]) throws(ColorProblem) {
        guard input.count <= Self.maxByteCount else { throw ColorProblem("ICC profile over 4 MiB") }
        guard input.count >= 132 else { throw ColorProblem("ICC profile truncated (\(input.count) bytes)") }
        func u32(_ at: Int) -> Int {
            Int(input[at]) << 24 | Int(input[at + 1]) << 16 | Int(input[at + 2]) << 8 | Int(input[at + 3])
        }
        func signature(_ at: Int) -> String { String(decoding: input[at ..< at + 4], as: UTF8.self) }
        let declared = u32(0)
        guard declared <= input.count else {
            throw ColorProblem("ICC profile truncated (\(input.count) of \(declared) bytes)")
        }
        guard declared >= 132 else { throw ColorProblem("ICC profile size field too small (\(declared))") }
        guard signature(36) == "acsp" else { throw ColorProblem("not an ICC profile (no acsp signature)") }
        let bytes = Array(input[..<declared])
        let model: ColorModel
        switch signature(16) {
        case "RGB ": model = .rgb
        case "GRAY": model = .grey
        case "CMYK": model = .cmyk
        default: throw ColorProblem("ICC profile for an unsupported colour space")
        }
        guard ["XYZ ", "Lab "].contains(signature(20)) else {
            throw ColorProblem("ICC profile with an unknown connection space")
        }
        let tagCount = u32(128)
        // Each entry takes 12 bytes: a count the profile cannot hold (up to 2^32 - 1) stops here.
        guard tagCount <= (declared - 132) / 12 else {
            throw ColorProblem("ICC profile tag table runs past the end (\(tagCount) tags)")
        }
        var description = ""
        var tags: [String: ArraySlice<UInt8>] = [:]
        for entry in 0..<tagCount {
            let at = 132 + 12 * entry
            let offset = u32(at + 4), size = u32(at + 8)
            guard offset >= 128, offset <= declared, size <= declared - offset else {
                throw ColorProblem("ICC profile tag \(entry) lies outside the profile")
            }
            if tags[signature(at)] == nil { tags[signature(at)] = bytes[offset ..< offset + size] }
        }
        if let tag = tags["desc"] { description = Self.text(ofTag: tag) }
        self.bytes = bytes
        self.colorModel = model
        self.description = description
        self.digest = SHA256.digest(bytes)
        self.isSRGB = model == .rgb && SRGBCheck.matches(tags)
        self.isWideGamut = model == .rgb && (SRGBCheck.gamutArea(tags).map { $0 > 1.6 * SRGBCheck.sRGBGamutArea } ?? true)
    }

    /// The text of a `desc` tag: `textDescriptionType` (ICC v2: ASCII) or
    /// `multiLocalizedUnicodeType` (v4: UTF-16BE records, en-US preferred), made printable.
    static func text(ofTag tag: ArraySlice<UInt8>) -> String {
        let tag = Array(tag)
        guard tag.count >= 12 else { return "" }
        func u32(_ at: Int) -> Int? {
            guard at >= 0, at + 4 <= tag.count else { return nil }
            return Int(tag[at]) << 24 | Int(tag[at + 1]) << 16 | Int(tag[at + 2]) << 8 | Int(tag[at + 3])
        }
        let type = String(decoding: tag[0..<4], as: UTF8.self)
        var text = ""
        if type == "desc", let count = u32(8) {
            let end = min(tag.count, 12 + count)
            text = String(decoding: tag[12 ..< end].prefix { $0 != 0 }, as: UTF8.self)
        } else if type == "mluc", let records = u32(8), let recordSize = u32(12), recordSize >= 12 {
            var chosen: (length: Int, offset: Int)?
            for record in 0 ..< min(records, 64) {
                let at = 16 + record * recordSize
                guard let length = u32(at + 4), let offset = u32(at + 8) else { break }
                let isEnglish = tag[at] == 0x65 && tag[at + 1] == 0x6E
                if chosen == nil || isEnglish { chosen = (length, offset) }
                if isEnglish { break }
            }
            if let chosen, chosen.offset <= tag.count {
                let end = min(tag.count, chosen.offset + min(chosen.length, 400))
                let units = stride(from: chosen.offset, to: end - 1, by: 2).map { UInt16(tag[$0]) << 8 | UInt16(tag[$0 + 1]) }
                text = String(decoding: units.prefix { $0 != 0 }, as: UTF16.self)
            }
        }
        let printable = text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F && $0 != "\u{FFFD}" }
        return String(String.UnicodeScalarView(printable.prefix(100))).trimmingSpaces
    }
}

/// Recognises sRGB profiles by content (any vendor's: HP's 3144-byte profile that many PNGs
/// carry, lcms's, Apple's), as libvips and browsers skip them.
enum SRGBCheck {
    /// sRGB's colorants adapted to D50 (Bradford), as ICC profiles store them.
    static let colorants: [String: [Double]] = [
        "rXYZ": [0.4360747, 0.2225045, 0.0139322],
        "gXYZ": [0.3850649, 0.7168786, 0.0971045],
        "bXYZ": [0.1430804, 0.0606169, 0.7141733],
    ]

    static func matches(_ tags: [String: ArraySlice<UInt8>]) -> Bool {
        for (name, expected) in colorants {
            guard let tag = tags[name].map(Array.init), tag.count >= 20, tag.starts(with: Array("XYZ ".utf8)) else { return false }
            for axis in 0..<3 where abs(s15Fixed16(tag, 8 + 4 * axis) - expected[axis]) > 0.003 { return false }
        }
        for name in ["rTRC", "gTRC", "bTRC"] {
            guard let tag = tags[name].map(Array.init) else { return false }
            for x in [0.02, 0.2, 0.5, 0.8, 1.0] {
                let expected = x <= 0.04045 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4)
                guard let value = curve(tag, at: x), abs(value - expected) < 0.5 / 255 else { return false }
            }
        }
        return true
    }

    /// sRGB's triangle in CIE xy (D50-adapted colorants).
    static let sRGBGamutArea = gamutArea(colorants.mapValues { $0 })

    /// The area of the triangle the profile's colorants span in CIE xy, or nil without them.
    static func gamutArea(_ tags: [String: ArraySlice<UInt8>]) -> Double? {
        var xyz: [String: [Double]] = [:]
        for name in ["rXYZ", "gXYZ", "bXYZ"] {
            guard let tag = tags[name].map(Array.init), tag.count >= 20, tag.starts(with: Array("XYZ ".utf8)) else { return nil }
            xyz[name] = (0..<3).map { s15Fixed16(tag, 8 + 4 * $0) }
        }
        return gamutArea(xyz)
    }

    static func gamutArea(_ xyz: [String: [Double]]) -> Double {
        let points = ["rXYZ", "gXYZ", "bXYZ"].map { name -> (x: Double, y: Double) in
            let v = xyz[name]!, sum = max(v[0] + v[1] + v[2], 1e-9)
            return (v[0] / sum, v[1] / sum)
        }
        return abs((points[1].x - points[0].x) * (points[2].y - points[0].y) - (points[2].x - points[0].x) * (points[1].y - points[0].y)) / 2
    }

    static func s15Fixed16(_ tag: [UInt8], _ at: Int) -> Double {
        Double(Int32(bitPattern: UInt32(tag[at]) << 24 | UInt32(tag[at + 1]) << 16 | UInt32(tag[at + 2]) << 8 | UInt32(tag[at + 3]))) / 65536
    }

    /// A `curv` (table, interpolated) or `para` (types 0-4) curve at `x`; nil for anything else.
    static func curve(_ tag: [UInt8], at x: Double) -> Double? {
        guard tag.count >= 12 else { return nil }
        let type = String(decoding: tag[0..<4], as: UTF8.self)
        if type == "curv" {
            let count = Int(tag[8]) << 24 | Int(tag[9]) << 16 | Int(tag[10]) << 8 | Int(tag[11])
            guard count >= 2, tag.count >= 12 + 2 * count else { return nil }
            func entry(_ i: Int) -> Double { Double(Int(tag[12 + 2 * i]) << 8 | Int(tag[13 + 2 * i])) / 65535 }
            let position = x * Double(count - 1), low = min(Int(position), count - 2)
            return entry(low) + (entry(low + 1) - entry(low)) * (position - Double(low))
        }
        guard type == "para" else { return nil }
        let function = Int(tag[8]) << 8 | Int(tag[9])
        let needed = [1, 3, 4, 5, 7]
        guard function < needed.count, tag.count >= 12 + 4 * needed[function] else { return nil }
        let p = (0 ..< needed[function]).map { s15Fixed16(tag, 12 + 4 * $0) }
        switch function {
        case 0: return pow(x, p[0])
        case 1: return x >= -p[2] / p[1] ? pow(p[1] * x + p[2], p[0]) : 0
        case 2: return x >= -p[2] / p[1] ? pow(p[1] * x + p[2], p[0]) + p[3] : p[3]
        case 3: return x >= p[4] ? pow(p[1] * x + p[2], p[0]) : p[3] * x
        default: return x >= p[4] ? pow(p[1] * x + p[2], p[0]) + p[5] : p[3] * x + p[6]
        }
    }
}

extension String {
    var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}

/// Why colour information was ignored: one line, lower case, no file name (the caller adds it).
public struct ColorProblem: Error, Sendable, Hashable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
