/// An 8-bit straight (non-premultiplied) RGBA colour, such as a sheet background.
///
/// Parses `#RGB`, `#RRGGBB`, `#RRGGBBAA` (hex digits in either case; `#RGB` means
/// `#RRGGBB`, opaque), the 148 named colours of CSS Color 4 (`red`, `rebeccapurple`,
/// `cssNames`) and `transparent` (names in any letter case).
/// Nothing else is accepted, surrounding spaces included.
public struct RGBA8Color: Sendable, Hashable, CustomStringConvertible {
    public var r: UInt8
    public var g: UInt8
    public var b: UInt8
    public var a: UInt8

    public static let white = RGBA8Color(r: 255, g: 255, b: 255, a: 255)
    public static let black = RGBA8Color(r: 0, g: 0, b: 0, a: 255)
    public static let transparent = RGBA8Color(r: 0, g: 0, b: 0, a: 0)

    public init(r: UInt8, g: UInt8, b: UInt8, a: UInt8 = 255) {
        self.r = r
        self.g = g
        self.b = b
        self.a = a
    }

    public init(parsing text: String) throws(ColorParseError) {
        let name = text.lowercased()
        if name == "transparent" { self = .transparent; return }
        if let named = Self.cssNames[name] { self = named; return }
        guard !text.isEmpty else { throw ColorParseError(text: text, reason: .empty) }
        guard text.first == "#" else {
            let looksLikeHex = [3, 6, 8].contains(text.count) && text.allSatisfy { asciiHexValue($0) != nil }
            throw ColorParseError(text: text, reason: looksLikeHex ? .missingHash : .unknownName)
        }
        let digits = text.dropFirst()
        if let bad = digits.first(where: { asciiHexValue($0) == nil }) {
            throw ColorParseError(text: text, reason: .notAHexDigit(bad))
        }
        let values = digits.map { asciiHexValue($0)! }
        switch values.count {
        case 3:
            self.init(r: values[0] * 17, g: values[1] * 17, b: values[2] * 17)
        case 6, 8:
            func byte(_ index: Int) -> UInt8 { values[2 * index] << 4 | values[2 * index + 1] }
            self.init(r: byte(0), g: byte(1), b: byte(2), a: values.count == 8 ? byte(3) : 255)
        default:
            throw ColorParseError(text: text, reason: .wrongDigitCount(values.count))
        }
    }

    /// `#rrggbbaa`, lowercase: the form the manifest records.
    public var hexString: String {
        let hexDigits = Array("0123456789abcdef")
        var text = "#"
        for byte in [r, g, b, a] {
            text.append(hexDigits[Int(byte >> 4)])
            text.append(hexDigits[Int(byte & 15)])
        }
        return text
    }

    public var description: String { hexString }

    public var isOpaque: Bool { a == 255 }
}

/// 0-9, a-f, A-F only (`Character.isHexDigit` would also take fullwidth forms).
private func asciiHexValue(_ character: Character) -> UInt8? {
    guard character.isASCII, let value = character.hexDigitValue else { return nil }
    return UInt8(value)
}

/// Why a colour text was rejected; `description` names the text and the reason.
public struct ColorParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong with the text.
    public enum Reason: Sendable, Hashable {
        case empty
        case unknownName
        case missingHash
        case notAHexDigit(Character)
        case wrongDigitCount(Int)
    }

    public let text: String
    public let reason: Reason

    public var description: String {
        let quoted = String(reflecting: text)  // quoted, control characters escaped
        let accepted = "expected #RGB, #RRGGBB, #RRGGBBAA, a CSS colour name (red, navy, ...) or transparent"
        switch reason {
        case .empty:
            return "invalid colour \(quoted): empty; \(accepted)"
        case .unknownName:
            return "invalid colour \(quoted): unknown colour name; \(accepted)"
        case .missingHash:
            return "invalid colour \(quoted): hex colours start with '#'; \(accepted)"
        case .notAHexDigit(let character):
            return "invalid colour \(quoted): \(String(reflecting: character)) is not a hex digit; \(accepted)"
        case .wrongDigitCount(let count):
            return "invalid colour \(quoted): \(count) hex digit\(count == 1 ? "" : "s") after '#', expected 3, 6 or 8"
        }
    }
}
