import CBridgeSupport

extension ImageError {
    /// The error for a bridge's failure, in the one mapping of `mb_status` every bridge shares:
    /// `MB_MALFORMED` and `MB_TRUNCATED` are the file's fault, `MB_LIMIT` a limit's, `MB_IO`
    /// the system's, `MB_UNSUPPORTED` a valid file this build does not read, `MB_USAGE` a bug.
    /// `message` is the bridge's captured words; `fallback` stands in when it is empty.
    public init(bridge status: mb_status, message: mb_message, fallback: String) {
        let words = Self.text(message)
        if status == MB_IO, message.error_number != 0 {
            self.init(.readFailed(errno: message.error_number))
        } else {
            self.init(bridge: status, reason: words.isEmpty ? fallback : words)
        }
    }

    /// The error for a bridge's failure whose words the codec has already put in its users'
    /// terms (libjpeg's, giflib's).
    public init(bridge status: mb_status, reason: String) {
        switch status {
        case MB_LIMIT: self.init(.limitExceeded, reason)
        case MB_IO: self.init(.io, reason)
        case MB_UNSUPPORTED: self.init(.unsupported, reason)
        case MB_USAGE: self.init(.misuse(reason))
        default: self.init(.malformed, reason)   // MB_MALFORMED, MB_TRUNCATED
        }
    }

    /// A bridge message's text, each control character shown as its code in brackets (`[1C]`):
    /// libraries quote the file's own bytes in their messages (libjxl an extra channel's name),
    /// and a reason is printed on one line after the file's name.
    public static func text(_ message: mb_message) -> String {
        let words = withUnsafeBytes(of: message.text) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
        return oneLine(words)
    }

    /// `text` with each control character (C0, DEL, C1) shown as `[XX]`, its code in hex.
    static func oneLine(_ text: String) -> String {
        func isControl(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.generalCategory == .control }
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var shown = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                shown.append(contentsOf: ("[" + (hex.count < 2 ? "0" : "") + hex + "]").unicodeScalars)
            } else {
                shown.append(scalar)
            }
        }
        return String(shown)
    }
}
