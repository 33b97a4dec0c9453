import ImageDiff

/// A `masonry compare --config FILE.json` (SPEC §9): the top level holds defaults for any
/// compare option, `rules` a list of `{"paths": [globs], <pair options>}`.
///
/// Keys (the report's names): `threshold` (0 to 1), `includeAA`, `maxDiffPixels` (whole number),
/// `maxDiffRatio` (0 to 1), `allowResize`, `failOnMissing`, `ignore` (a list of `[x, y, w, h]`),
/// in rules and at the top; only at the top: `maskDir` (a path, relative to the working
/// folder), `showUnchanged`, `pageHeight`, `maxPixels`, `rules`. Anything else, a wrong type or
/// a bad glob is refused with the key's place (`rules[2].maxDiffPixels`) and its line and column.
public struct CompareConfigFile: Sendable, Hashable {
    /// The top level's pair options (below the command line's).
    public var defaults = OptionOverrides()
    public var maskDir: String?
    public var showUnchanged: Bool?
    public var pageHeight: Int?
    public var maxPixels: Int?
    public var rules: [PathRule] = []

    /// The pair options' keys, in the report's order.
    public static let pairKeys = ["threshold", "includeAA", "maxDiffPixels", "maxDiffRatio", "allowResize", "failOnMissing", "ignore"]
    /// Keys only the top level takes.
    public static let topKeys = ["maskDir", "showUnchanged", "pageHeight", "maxPixels", "rules"]

    public init() {}

    /// Reads a configuration file's bytes.
    public init(bytes: [UInt8]) throws(CompareConfigError) {
        let root: JSONNode
        do {
            root = try JSONReader.read(bytes)
        } catch {
            throw CompareConfigError(place: nil, reason: error.reason, line: error.line, column: error.column)
        }
        guard case .object(let members) = root.value else {
            throw CompareConfigError(place: nil, reason: "expected an object at the top, found \(root.kindName)", line: root.line, column: root.column)
        }
        for member in members {
            let node = member.value, key = member.key
            if Self.pairKeys.contains(key) {
                try Self.read(member, place: key, into: &defaults)
                continue
            }
            switch key {
            case "maskDir": maskDir = try Self.string(node, place: key)
            case "showUnchanged": showUnchanged = try Self.bool(node, place: key)
            case "pageHeight": pageHeight = try Self.integer(node, place: key, in: 0...Int(Int32.max))
            case "maxPixels": maxPixels = try Self.integer(node, place: key, in: 1...(Int(Int32.max) * Int(Int32.max)))
            case "rules":
                guard case .array(let entries) = node.value else { throw Self.wrongType(node, place: key, expected: "a list of rules") }
                for (number, entry) in entries.enumerated() { rules.append(try Self.rule(entry, place: "rules[\(number)]")) }
            default:
                throw Self.unknownKey(member, place: key, known: Self.pairKeys + Self.topKeys)
            }
        }
    }

    private static func rule(_ node: JSONNode, place: String) throws(CompareConfigError) -> PathRule {
        guard case .object(let members) = node.value else { throw wrongType(node, place: place, expected: "an object") }
        var overrides = OptionOverrides()
        var globs: [PathGlob]?
        for member in members {
            let inner = "\(place).\(member.key)"
            if member.key == "paths" {
                guard case .array(let patterns) = member.value.value, !patterns.isEmpty else {
                    throw wrongType(member.value, place: inner, expected: "a non-empty list of patterns")
                }
                var parsed: [PathGlob] = []
                for (number, pattern) in patterns.enumerated() {
                    let text = try string(pattern, place: "\(inner)[\(number)]")
                    do {
                        parsed.append(try PathGlob(text))
                    } catch {
                        throw CompareConfigError(place: "\(inner)[\(number)]", reason: "bad pattern \"\(text)\": \(error.reason)",
                                                 line: pattern.line, column: pattern.column)
                    }
                }
                globs = parsed
            } else if pairKeys.contains(member.key) {
                try read(member, place: inner, into: &overrides)
            } else {
                throw unknownKey(member, place: inner, known: ["paths"] + pairKeys)
            }
        }
        guard let globs else {
            throw CompareConfigError(place: place, reason: "a rule needs \"paths\"", line: node.line, column: node.column)
        }
        return PathRule(paths: globs, overrides: overrides)
    }

    /// One pair option into `overrides`.
    private static func read(_ member: JSONNode.Member, place: String, into overrides: inout OptionOverrides) throws(CompareConfigError) {
        let node = member.value
        switch member.key {
        case "threshold": overrides.threshold = try fraction(node, place: place)
        case "includeAA": overrides.includeAA = try bool(node, place: place)
        case "maxDiffPixels": overrides.maxDiffPixels = try integer(node, place: place, in: 0...Int.max)
        case "maxDiffRatio": overrides.maxDiffRatio = try fraction(node, place: place)
        case "allowResize": overrides.allowResize = try bool(node, place: place)
        case "failOnMissing": overrides.failOnMissing = try bool(node, place: place)
        case "ignore":
            guard case .array(let rectangles) = node.value else {
                throw wrongType(node, place: place, expected: "a list of [x, y, width, height]")
            }
            var rects: [PixelRect] = []
            for (number, rectangle) in rectangles.enumerated() {
                let inner = "\(place)[\(number)]"
                guard case .array(let values) = rectangle.value, values.count == 4 else {
                    throw wrongType(rectangle, place: inner, expected: "[x, y, width, height]")
                }
                var numbers: [Int] = []
                for (k, value) in values.enumerated() {
                    numbers.append(try integer(value, place: "\(inner)[\(k)]", in: (k < 2 ? 0 : 1)...Int(Int32.max)))
                }
                rects.append(PixelRect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3]))
            }
            overrides.ignore = rects
        default: preconditionFailure("a pair key")
        }
    }

    private static func wrongType(_ node: JSONNode, place: String, expected: String) -> CompareConfigError {
        CompareConfigError(place: place, reason: "expected \(expected), found \(node.kindName)", line: node.line, column: node.column)
    }

    private static func unknownKey(_ member: JSONNode.Member, place: String, known: [String]) -> CompareConfigError {
        CompareConfigError(place: place, reason: "unknown key (known: \(known.joined(separator: ", ")))",
                           line: member.keyLine, column: member.keyColumn)
    }

    private static func bool(_ node: JSONNode, place: String) throws(CompareConfigError) -> Bool {
        guard case .bool(let value) = node.value else { throw wrongType(node, place: place, expected: "true or false") }
        return value
    }

    private static func string(_ node: JSONNode, place: String) throws(CompareConfigError) -> String {
        guard case .string(let value) = node.value else { throw wrongType(node, place: place, expected: "a string") }
        return value
    }

    private static func integer(_ node: JSONNode, place: String, in range: ClosedRange<Int>) throws(CompareConfigError) -> Int {
        let expected = range.upperBound == Int.max || range.upperBound > Int(Int32.max)
            ? "a whole number from \(range.lowerBound)" : "a whole number from \(range.lowerBound) to \(range.upperBound)"
        guard case .number(let text) = node.value, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              let value = Int(text), range.contains(value) else {
            throw wrongType(node, place: place, expected: expected)
        }
        return value
    }

    private static func fraction(_ node: JSONNode, place: String) throws(CompareConfigError) -> Double {
        guard case .number(let text) = node.value, let value = Double(text), (0...1).contains(value) else {
            throw wrongType(node, place: place, expected: "a number from 0 to 1")
        }
        return value
    }
}

/// Why a configuration file is refused: where (`rules[2].maxDiffPixels`, nil for the file's
/// syntax), what is wrong, and the 1-based line and column.
public struct CompareConfigError: Error, Sendable, Hashable, CustomStringConvertible {
    public let place: String?
    public let reason: String
    public let line: Int
    public let column: Int

    /// `rules[2].maxDiffPixels (line 9, column 24): expected ...`
    public var description: String {
        (place.map { "\($0) " } ?? "") + "(line \(line), column \(column)): \(reason)"
    }
}
