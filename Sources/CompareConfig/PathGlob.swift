/// A pattern over a pair's relative path (SPEC §9, `--paths` and config rules), matched byte by
/// byte against the whole path: `*` is any run of characters within one segment (no `/`),
/// `**` as a whole segment is any number of segments (none included), `?` is one character
/// (one UTF-8 sequence, or one byte that is not UTF-8). Everything else is literal, except
/// `[`, `]`, `{`, `}` and `\`, which are refused (so nobody expects brace or class syntax).
public struct PathGlob: Sendable, Hashable, CustomStringConvertible {
    enum Token: Sendable, Hashable {
        case literal(UInt8)
        case anyRun
        case anyCharacter
    }

    enum Segment: Sendable, Hashable {
        case anySegments
        case pattern([Token])
    }

    /// The pattern as written.
    public let pattern: String
    private let segments: [Segment]

    public var description: String { pattern }

    /// Parses `pattern`; a bad one throws a one-line reason.
    public init(_ pattern: String) throws(PathGlobError) {
        self.pattern = pattern
        let bytes = Array(pattern.utf8)
        guard !bytes.isEmpty else { throw PathGlobError("an empty pattern") }
        guard bytes.first != UInt8(ascii: "/") else { throw PathGlobError("a pattern is relative to the folders: no leading '/'") }
        guard bytes.last != UInt8(ascii: "/") else { throw PathGlobError("a pattern names files: no trailing '/'") }
        var segments: [Segment] = []
        for part in bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            guard !part.isEmpty else { throw PathGlobError("an empty segment ('//')") }
            if part.elementsEqual("**".utf8) {
                if segments.last != .anySegments { segments.append(.anySegments) }
                continue
            }
            var tokens: [Token] = []
            var previousStar = false
            for byte in part {
                switch byte {
                case UInt8(ascii: "*"):
                    guard !previousStar else { throw PathGlobError("'**' must be a whole segment (as in 'a/**/b')") }
                    tokens.append(.anyRun)
                    previousStar = true
                    continue
                case UInt8(ascii: "?"): tokens.append(.anyCharacter)
                case UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "\\"):
                    throw PathGlobError("'\(Character(Unicode.Scalar(byte)))' is not supported (only *, ** and ? are special)")
                case 0: throw PathGlobError("a NUL byte")
                default: tokens.append(.literal(byte))
                }
                previousStar = false
            }
            segments.append(.pattern(tokens))
        }
        self.segments = segments
    }

    /// Whether the whole relative path matches.
    public func matches(_ path: [UInt8]) -> Bool {
        let parts = path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map(Array.init)
        // reachable[j]: the pattern's segments so far can consume exactly the first j path segments.
        var reachable = [Bool](repeating: false, count: parts.count + 1)
        reachable[0] = true
        for segment in segments {
            switch segment {
            case .anySegments:
                reachable = Self.reachableAfterAnyRun(reachable)
            case .pattern(let tokens):
                var next = [Bool](repeating: false, count: parts.count + 1)
                for j in 0..<parts.count where reachable[j] && Self.matches(tokens, parts[j]) { next[j + 1] = true }
                reachable = next
            }
        }
        return reachable[parts.count]
    }

    /// One segment against one name: `*` and `?` never cross `/` (there is none in `name`).
    static func matches(_ tokens: [Token], _ name: [UInt8]) -> Bool {
        // reachable[i]: the tokens so far can consume exactly the first i bytes.
        var reachable = [Bool](repeating: false, count: name.count + 1)
        reachable[0] = true
        for token in tokens {
            if token == .anyRun {
                reachable = reachableAfterAnyRun(reachable)
                continue
            }
            var next = [Bool](repeating: false, count: name.count + 1)
            switch token {
            case .anyRun: break
            case .anyCharacter:
                for i in 0..<name.count where reachable[i] { next[i + characterLength(name, at: i)] = true }
            case .literal(let byte):
                for i in 0..<name.count where reachable[i] && name[i] == byte { next[i + 1] = true }
            }
            reachable = next
        }
        return reachable[name.count]
    }

    /// After a token that takes any run (`*` of bytes, `**` of segments): every position at or
    /// after a reachable one is reachable.
    static func reachableAfterAnyRun(_ reachable: [Bool]) -> [Bool] {
        var seen = false
        return reachable.map { seen = seen || $0; return seen }
    }

    /// The length of the UTF-8 sequence at `i` when it is a whole, valid one; else 1.
    static func characterLength(_ bytes: [UInt8], at i: Int) -> Int {
        let lead = bytes[i]
        let length = lead < 0xC2 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : lead < 0xF5 ? 4 : 1
        guard length > 1, i + length <= bytes.count else { return 1 }
        let sequence = Array(bytes[i ..< i + length])
        return String(validating: sequence, as: UTF8.self) == nil ? 1 : length
    }
}

/// Why a pattern is refused.
public struct PathGlobError: Error, Sendable, Hashable {
    public let reason: String
    init(_ reason: String) { self.reason = reason }
}
