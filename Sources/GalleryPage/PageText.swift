import BitmapText

/// Escaping for the two places text lands in the page: HTML and a JSON block inside `<script>`.
public enum PageText {
    /// A raw path as readable text (bytes that are not UTF-8 shown as `\xff`, as in messages).
    static func display(_ path: [UInt8]) -> String {
        TextLine(bytes: path).string
    }

    /// Text safe in element content and in quoted attribute values (of HTML and of XML: the
    /// compare's JUnit file uses it too).
    public static func html(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A JSON string literal that cannot end the `<script>` element it sits in.
    static func json(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "<": out += "\\u003c"
            case ">": out += "\\u003e"
            case "&": out += "\\u0026"
            case "\n": out += "\\n"
            case "\u{2028}": out += "\\u2028"
            case "\u{2029}": out += "\\u2029"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A JSON number (Swift's shortest exact form, deterministic); 0 for values JSON cannot hold.
    static func number(_ value: Double) -> String {
        value.isFinite ? value.description : "0"
    }
}
