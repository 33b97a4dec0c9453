/// A JSON value as read from a file, with where it starts, so a message can point at it.
public struct JSONNode: Sendable, Hashable {
    public enum Value: Sendable, Hashable {
        case null
        case bool(Bool)
        /// The number's text as written (RFC 8259 grammar), converted by the reader of the key.
        case number(String)
        case string(String)
        case array([JSONNode])
        /// Members in file order (duplicate keys are refused by the reader).
        case object([Member])
    }

    /// One member of an object: its key and where the key starts.
    public struct Member: Sendable, Hashable {
        public let key: String
        public let keyLine: Int, keyColumn: Int
        public let value: JSONNode
    }

    public let value: Value
    /// 1-based line and column (in bytes) where the value starts.
    public let line: Int
    public let column: Int

    /// The value's kind as a message names it ("a number", "an object", ...).
    public var kindName: String {
        switch value {
        case .null: "null"
        case .bool: "true or false"
        case .number: "a number"
        case .string: "a string"
        case .array: "a list"
        case .object: "an object"
        }
    }
}

/// A JSON text that is not well-formed: the reason and where (1-based line and byte column).
public struct JSONReadError: Error, Sendable, Hashable {
    public let reason: String
    public let line: Int
    public let column: Int
}

/// A strict RFC 8259 reader of small files (configuration): UTF-8 only, no comments, no
/// trailing commas, no duplicate keys, at most `maxDepth` nested lists and objects, and every
/// value keeps its line and column. Foundation's `JSONSerialization` gives no positions.
public struct JSONReader {
    public static let maxDepth = 64

    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var lineStart = 0

    /// Reads one JSON value filling the whole text (whitespace around it allowed).
    public static func read(_ bytes: [UInt8]) throws(JSONReadError) -> JSONNode {
        var reader = JSONReader(bytes: bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { reader.index = 3; reader.lineStart = 3 }
        reader.skipWhitespace()
        let node = try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.index == bytes.count else { throw reader.failure("unexpected text after the value") }
        return node
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private var column: Int { index - lineStart + 1 }

    private func failure(_ reason: String) -> JSONReadError {
        JSONReadError(reason: reason, line: line, column: column)
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current {
            switch byte {
            case 0x20, 0x09, 0x0D: index += 1
            case 0x0A: index += 1; line += 1; lineStart = index
            default: return
            }
        }
    }

    private mutating func value(depth: Int) throws(JSONReadError) -> JSONNode {
        let (startLine, startColumn) = (line, column)
        func node(_ value: JSONNode.Value) -> JSONNode { JSONNode(value: value, line: startLine, column: startColumn) }
        guard let byte = current else { throw failure("expected a value, found the end of the file") }
        switch byte {
        case UInt8(ascii: "{"):
            guard depth < Self.maxDepth else { throw failure("nested deeper than \(Self.maxDepth) levels") }
            return node(.object(try members(depth: depth + 1)))
        case UInt8(ascii: "["):
            guard depth < Self.maxDepth else { throw failure("nested deeper than \(Self.maxDepth) levels") }
            return node(.array(try elements(depth: depth + 1)))
        case UInt8(ascii: "\""): return node(.string(try string()))
        case UInt8(ascii: "t"): try literal("true"); return node(.bool(true))
        case UInt8(ascii: "f"): try literal("false"); return node(.bool(false))
        case UInt8(ascii: "n"): try literal("null"); return node(.null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return node(.number(try number()))
        default: throw failure("unexpected character \(Self.describe(byte))")
        }
    }

    private static func describe(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x" + String(byte, radix: 16)
    }

    private mutating func literal(_ word: String) throws(JSONReadError) {
        let expected = Array(word.utf8)
        guard bytes.count - index >= expected.count, Array(bytes[index ..< index + expected.count]) == expected else {
            throw failure("unexpected text (expected \(word))")
        }
        index += expected.count
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws(JSONReadError) {
        guard current == byte else {
            throw failure(current.map { "expected \(what), found \(Self.describe($0))" } ?? "expected \(what), found the end of the file")
        }
        index += 1
    }

    private mutating func members(depth: Int) throws(JSONReadError) -> [JSONNode.Member] {
        index += 1
        skipWhitespace()
        var members: [JSONNode.Member] = []
        if current == UInt8(ascii: "}") { index += 1; return members }
        var keys = Set<String>()
        while true {
            skipWhitespace()
            let (keyLine, keyColumn) = (line, column)
            guard current == UInt8(ascii: "\"") else { throw failure("expected a key in double quotes") }
            let key = try string()
            guard keys.insert(key).inserted else {
                throw JSONReadError(reason: "the key \"\(key)\" appears twice", line: keyLine, column: keyColumn)
            }
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "':'")
            skipWhitespace()
            members.append(JSONNode.Member(key: key, keyLine: keyLine, keyColumn: keyColumn, value: try value(depth: depth)))
            skipWhitespace()
            if current == UInt8(ascii: ",") { index += 1; continue }
            try expect(UInt8(ascii: "}"), "',' or '}'")
            return members
        }
    }

    private mutating func elements(depth: Int) throws(JSONReadError) -> [JSONNode] {
        index += 1
        skipWhitespace()
        var elements: [JSONNode] = []
        if current == UInt8(ascii: "]") { index += 1; return elements }
        while true {
            skipWhitespace()
            elements.append(try value(depth: depth))
            skipWhitespace()
            if current == UInt8(ascii: ",") { index += 1; continue }
            try expect(UInt8(ascii: "]"), "',' or ']'")
            return elements
        }
    }

    private mutating func number() throws(JSONReadError) -> String {
        let start = index
        func digits() -> Int {
            let first = index
            while let byte = current, (0x30...0x39).contains(byte) { index += 1 }
            return index - first
        }
        if current == UInt8(ascii: "-") { index += 1 }
        if current == UInt8(ascii: "0") {
            index += 1
        } else if digits() == 0 {
            throw failure("expected a digit")
        }
        if current == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw failure("expected a digit after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw failure("expected a digit in the exponent") }
        }
        return String(decoding: bytes[start ..< index], as: UTF8.self)
    }

    private mutating func string() throws(JSONReadError) -> String {
        index += 1
        var out: [UInt8] = []
        while true {
            guard let byte = current else { throw failure("a string is not closed") }
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: out, as: UTF8.self) else {
                    throw failure("a string is not valid UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                index += 1
                guard let escape = current else { throw failure("a string is not closed") }
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                            throw failure("a lone UTF-16 surrogate in \\u escapes")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw failure("a lone UTF-16 surrogate in \\u escapes") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        throw failure("a lone UTF-16 surrogate in \\u escapes")
                    }
                    out.append(contentsOf: Array(String(Unicode.Scalar(scalar)!).utf8))
                default: throw failure("unknown escape '\\\(Character(Unicode.Scalar(escape)))'")
                }
            case 0x00..<0x20:
                throw failure("a control character inside a string (escape it)")
            default:
                out.append(byte)
                index += 1
            }
        }
    }

    private mutating func hex4() throws(JSONReadError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current, let digit = Self.hexDigit(byte) else { throw failure("expected four hex digits after \\u") }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private static func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case 0x30...0x39: UInt32(byte - 0x30)
        case 0x41...0x46: UInt32(byte - 0x41 + 10)
        case 0x61...0x66: UInt32(byte - 0x61 + 10)
        default: nil
        }
    }
}
