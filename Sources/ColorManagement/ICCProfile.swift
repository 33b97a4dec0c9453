import ImageDiff

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
        for entry in 0..<tagCount {
            let at = 132 + 12 * entry
            let offset = u32(at + 4), size = u32(at + 8)
            guard offset >= 128, offset <= declared, size <= declared - offset else {
                throw ColorProblem("ICC profile tag \(entry) lies outside the profile")
            }
            if signature(at) == "desc" {
                description = Self.text(ofTag: bytes[offset ..< offset + size])
            }
        }
        self.bytes = bytes
        self.colorModel = model
        self.description = description
        self.digest = SHA256.digest(bytes)
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
