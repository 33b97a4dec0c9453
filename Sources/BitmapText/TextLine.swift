/// One line of text as it is drawn: bytes decoded as UTF-8, with every byte that is not
/// UTF-8 and every control character shown escaped, exactly as messages show file names
/// (`RawPath.displayName`): `\n`, `\t`, `\r`, `\\` for a backslash, `\xNN` for an invalid
/// byte or a C0/C1 control or DEL, `\u{2028}` and `\u{2029}` for the line and paragraph
/// separators. So one line is one line, and any file name can be drawn.
public struct TextLine: Sendable, Hashable {
    /// The scalars drawn, in logical order, escapes already applied (see `layout` for how
    /// they are set).
    public var scalars: [Unicode.Scalar]

    /// Decodes `bytes` as UTF-8, escaping as described above.
    public init(bytes: [UInt8]) {
        var scalars = [Unicode.Scalar]()
        scalars.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if let (scalar, length) = decodeScalar(bytes, at: index) {
                switch scalar.value {
                case 0x0A: scalars += #"\n"#.unicodeScalars
                case 0x09: scalars += #"\t"#.unicodeScalars
                case 0x0D: scalars += #"\r"#.unicodeScalars
                case 0x5C: scalars += #"\\"#.unicodeScalars
                case 0..<0x20, 0x7F, 0x80..<0xA0, 0x2028, 0x2029: scalars += hexEscape(scalar.value)
                default: scalars.append(scalar)
                }
                index += length
            } else {
                scalars += hexEscape(UInt32(bytes[index]))
                index += 1
            }
        }
        self.scalars = scalars
    }

    /// The same as `init(bytes:)` of the string's UTF-8 (control characters and backslashes
    /// are escaped).
    public init(_ string: String) { self.init(bytes: Array(string.utf8)) }

    init(scalars: [Unicode.Scalar]) { self.scalars = scalars }

    /// The text as drawn (for the manifest).
    public var string: String {
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars)
        return text
    }

    /// The drawn width in pixels.
    public func width(in font: BitmapFont) -> Int {
        layout(in: font).width
    }

    /// Shortened in the middle with "…" so it fits `maxWidth` pixels: itself when it fits;
    /// otherwise the longest prefix and suffix that fit beside the "…", taken alternately
    /// (prefix first), never splitting an escape such as `\xff` or a grapheme cluster (UAX #29:
    /// a letter and its combining marks, an emoji ZWJ sequence, a flag); "…" alone when
    /// nothing more fits, and the empty line when even "…" does not.
    public func fitted(toWidth maxWidth: Int, in font: BitmapFont) -> TextLine {
        fitted(toWidth: maxWidth, in: font, keepingEnd: false)
    }

    /// Shortened as `fitted(toWidth:in:)`, or, with `keepingEnd`, favouring the end: the
    /// suffix takes units until it fills two thirds of the room, the prefix then takes what is
    /// left, and the suffix any rest. For captions of a series (`IMG_20240611_0001.jpg`,
    /// `IMG_20240611_0002.jpg`): names that share a prefix differ at the end of the stem, where
    /// numbers and variants live, and that end (with the extension) stays readable.
    public func fitted(toWidth maxWidth: Int, in font: BitmapFont, keepingEnd: Bool) -> TextLine {
        if width(in: font) <= maxWidth { return self }
        let ellipsis: Unicode.Scalar = "\u{2026}"
        guard font.advance(of: ellipsis) <= maxWidth else { return TextLine(scalars: []) }
        let units = drawnUnits
        // A unit's width on its own is at least what it adds to any line (a leading mark that
        // finds a base there adds nothing), so the sum bounds the shortened line's width.
        let unitWidths = units.map { place(scalars[$0], in: font).width }
        var budget = maxWidth - font.advance(of: ellipsis)
        var front = 0, back = units.count, takeFront = true
        func unitWidth(_ index: Int) -> Int { unitWidths[index] }
        if keepingEnd {
            let suffixShare = budget * 2 / 3
            var used = 0
            while front < back, used + unitWidth(back - 1) <= suffixShare { used += unitWidth(back - 1); back -= 1 }
            budget -= used
            while front < back, unitWidth(front) <= budget { budget -= unitWidth(front); front += 1 }
            while front < back, unitWidth(back - 1) <= budget { budget -= unitWidth(back - 1); back -= 1 }
        }
        while !keepingEnd && front < back {
            let width = unitWidth(takeFront ? front : back - 1)
            guard width <= budget else { break }
            budget -= width
            if takeFront { front += 1 } else { back -= 1 }
            takeFront.toggle()
        }
        func shortened() -> TextLine {
            let prefixEnd = front == 0 ? 0 : units[front - 1].upperBound
            let suffixStart = back == units.count ? scalars.count : units[back].lowerBound
            return TextLine(scalars: Array(scalars[..<prefixEnd]) + [ellipsis] + scalars[suffixStart...])
        }
        var line = shortened()
        // Reordering and shaping can only narrow a line (a lam-alef ligature is one cell), but
        // a mark moved away from its base by an embedding could widen it: give up units until
        // the drawn line fits.
        while line.width(in: font) > maxWidth, front > 0 || back < units.count {
            if front > units.count - back { front -= 1 } else { back += 1 }
            line = shortened()
        }
        return line
    }

    /// The scalars grouped so that shortening never splits them: an escape (`\\`, `\n`,
    /// `\t`, `\r`, `\xNN`, `\u{…}`) is one unit, and so is each extended grapheme cluster
    /// (UAX #29, as Swift's `Character`); where the two overlap (an escape's last digit and a
    /// combining mark after it), they make one unit together.
    private var drawnUnits: [Range<Int>] {
        var escapeUnits = [Range<Int>]()
        var start = 0
        while start < scalars.count {
            let length = scalars[start] == "\\" ? escapeLength(at: start) : 1
            escapeUnits.append(start..<(start + length))
            start += length
        }
        // ASCII has no cluster of more than one scalar but CR LF, which is always escaped.
        if scalars.allSatisfy(\.isASCII) { return escapeUnits }
        let escapeEnds = Set(escapeUnits.map(\.upperBound))
        var units = [Range<Int>]()
        var unitStart = 0, end = 0
        for character in string {
            end += character.unicodeScalars.count
            if escapeEnds.contains(end) {
                units.append(unitStart..<end)
                unitStart = end
            }
        }
        return units
    }

    /// The length of the escape starting at `start` (a backslash), or 1 if none does.
    private func escapeLength(at start: Int) -> Int {
        func isHexDigit(_ index: Int) -> Bool {
            index < scalars.count && ("0"..."9" ~= scalars[index] || "a"..."f" ~= scalars[index])
        }
        guard start + 1 < scalars.count else { return 1 }
        switch scalars[start + 1] {
        case "\\", "n", "t", "r": return 2
        case "x": return isHexDigit(start + 2) && isHexDigit(start + 3) ? 4 : 1
        case "u":
            guard start + 2 < scalars.count, scalars[start + 2] == "{" else { return 1 }
            var end = start + 3
            while isHexDigit(end) { end += 1 }
            return end > start + 3 && end < scalars.count && scalars[end] == "}" ? end + 1 - start : 1
        default: return 1
        }
    }
}

/// `\xNN` for values up to 0xFF, `\u{N…}` above: lowercase hex, as messages write it.
private func hexEscape(_ value: UInt32) -> [Unicode.Scalar] {
    let hex = String(value, radix: 16)
    let text = value <= 0xFF ? "\\x" + (hex.count == 1 ? "0" + hex : hex) : "\\u{" + hex + "}"
    return Array(text.unicodeScalars)
}

/// Decodes one well-formed UTF-8 scalar (shortest form, no surrogates) and its length.
private func decodeScalar(_ bytes: [UInt8], at start: Int) -> (Unicode.Scalar, Int)? {
    let lead = bytes[start]
    let (length, initial): (Int, UInt32) = switch lead {
    case 0..<0x80: (1, UInt32(lead))
    case 0xC2..<0xE0: (2, UInt32(lead & 0x1F))
    case 0xE0..<0xF0: (3, UInt32(lead & 0x0F))
    case 0xF0..<0xF5: (4, UInt32(lead & 0x07))
    default: (0, 0)
    }
    guard length > 0, start + length <= bytes.count else { return nil }
    var value = initial
    for offset in 1..<length {
        let byte = bytes[start + offset]
        guard byte & 0xC0 == 0x80 else { return nil }
        value = value << 6 | UInt32(byte & 0x3F)
    }
    let minimum: UInt32 = [0, 0, 0x80, 0x800, 0x10000][length]
    guard value >= minimum, let scalar = Unicode.Scalar(value) else { return nil }
    return (scalar, length)
}
