import WaterfallLayout
import MasonrySheet
import CodecCore
import PNGCodec
import Raster

/// A usage problem: printed as `masonry: error: …` with the usage line and a hint to `--help`,
/// exit status 64 (`ExitStatus.usage`).
struct UsageError: Error, Equatable, CustomStringConvertible {
    /// A value an option does not accept, kept apart so the message can name the option as typed.
    struct BadValue: Equatable {
        let option: OptionSpec.Key
        let text: String
        let why: String
    }

    let message: String
    let badValue: BadValue?

    init(_ message: String) {
        self.message = message
        badValue = nil
    }

    /// "invalid value 'x' for '-c <n>': why", with `spelling` the option as typed.
    init(_ badValue: BadValue, spelling: String) {
        let spec = OptionSpec.declaration(of: badValue.option)
        let placeholder = spec.value.map { " <\($0)>" } ?? ""
        message = "invalid value '\(RawPath(badValue.text).displayName)' for '\(spelling)\(placeholder)': \(badValue.why)"
        self.badValue = badValue
    }

    var description: String { message }
}

/// What the command line asked for.
enum CommandAction: Equatable {
    case help
    case version
    case render(ParsedArguments)
}

/// The parsed options, before they are turned into `SheetOptions`.
struct ParsedArguments: Equatable {
    var inputs: [RawPath] = []
    var values: [OptionSpec.Key: String] = [:]
    /// Every value of a repeatable option, in order (`values` holds the last).
    var lists: [OptionSpec.Key: [String]] = [:]
    var flags: Set<OptionSpec.Key> = []
    /// Output and manifest paths as raw bytes (they may not be UTF-8).
    var paths: [OptionSpec.Key: RawPath] = [:]
    /// How each option with a value was typed (`-c` or `--columns`), for messages about its value.
    var spellings: [OptionSpec.Key: String] = [:]
}

/// Splits raw argument bytes into options and inputs, by an option table (`optionTable` for a
/// render, `compareOptionTable` for `masonry compare`).
/// Accepts `--name value`, `--name=value`, `-x value`, `-xvalue`, and `--`
/// before inputs that begin with a dash. Option names are ASCII; input paths
/// stay raw bytes.
enum ArgumentParser {
    static func parse(_ arguments: [[UInt8]], table: [OptionSpec] = optionTable,
                      inputs inputNames: String = "<input> ...") throws(UsageError) -> CommandAction {
        var parsed = ParsedArguments()
        var index = 0
        var onlyInputs = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyInputs || argument.first != UInt8(ascii: "-") || argument == [UInt8(ascii: "-")] {
                parsed.inputs.append(RawPath(bytes: argument))
                continue
            }
            if argument == [0x2D, 0x2D] { onlyInputs = true; continue }
            let (spec, inlineValue) = try lookUp(argument, in: table)
            let spelling = argument.starts(with: [0x2D, 0x2D]) ? "--\(spec.long)" : "-\(spec.short!)"
            if spec.key == .help { return .help }
            if spec.key == .version { return .version }
            guard spec.value != nil else {
                if inlineValue != nil { throw UsageError("the option '--\(spec.long)' does not take a value") }
                parsed.flags.insert(spec.key)
                continue
            }
            let value: [UInt8]
            if let inlineValue {
                value = inlineValue
            } else if let bare = spec.bareValue {
                value = Array(bare.utf8)
            } else if index < arguments.count {
                value = arguments[index]
                index += 1
                // `--title --sections`: the value was forgotten and the next option would be eaten.
                if isOption(value, in: table) {
                    let typed = RawPath(bytes: value).displayName
                    throw UsageError("'\(spelling)' needs a value (to give '\(typed)' as its value, write "
                                     + "'--\(spec.long)=\(typed)')")
                }
            } else {
                throw UsageError("missing value for '\(spelling) <\(spec.value!)>'")
            }
            parsed.values[spec.key] = String(decoding: value, as: UTF8.self)
            if spec.repeatable { parsed.lists[spec.key, default: []].append(String(decoding: value, as: UTF8.self)) }
            parsed.spellings[spec.key] = spelling
            parsed.paths[spec.key] = RawPath(bytes: value)
        }
        if parsed.flags.isSuperset(of: [.progress, .noProgress]) {
            throw UsageError("'--progress' and '--no-progress' cannot be used together")
        }
        // A run from a plan file takes its inputs from the plan.
        guard !parsed.inputs.isEmpty || parsed.values[.fromPlan] != nil else {
            throw UsageError("missing expected argument '\(inputNames)'")
        }
        return .render(parsed)
    }

    /// Whether `argument` is one of `table`'s options as it would be parsed (`--name`,
    /// `--name=value`, `-x`, `-xvalue`); `--` and `-` are not.
    static func isOption(_ argument: [UInt8], in table: [OptionSpec]) -> Bool {
        guard argument.count >= 2, argument.first == 0x2D, argument != [0x2D, 0x2D] else { return false }
        if argument[1] == 0x2D {
            let body = argument.dropFirst(2)
            let name = body.prefix { $0 != UInt8(ascii: "=") }
            return table.contains { Array($0.long.utf8) == Array(name) }
        }
        return table.contains { $0.short.map { Array($0.utf8) } == [argument[1]] }
    }

    /// The option an argument names, and the value written into the same argument.
    private static func lookUp(_ argument: [UInt8], in table: [OptionSpec]) throws(UsageError) -> (OptionSpec, [UInt8]?) {
        let text = RawPath(bytes: argument).displayName
        if argument.starts(with: [0x2D, 0x2D]) {
            let body = argument.dropFirst(2)
            let equals = body.firstIndex(of: UInt8(ascii: "="))
            let name = String(decoding: body[..<(equals ?? body.endIndex)], as: UTF8.self)
            guard let spec = table.first(where: { $0.long == name }) else {
                let typed = RawPath(bytes: Array(argument[..<(equals ?? argument.endIndex)])).displayName
                if let hint = montageHint(name, in: table) { throw UsageError("unknown option '\(typed)'; \(hint)") }
                throw UsageError("unknown option '\(typed)'"
                                 + (nearestOption(to: name, in: table).map { "; did you mean '--\($0.long)'?" } ?? ""))
            }
            return (spec, equals.map { Array(body[($0 + 1)...]) })
        }
        let word = String(decoding: argument.dropFirst(), as: UTF8.self)
        if let hint = montageHint(word, in: table) { throw UsageError("unknown option '\(text)'; \(hint)") }
        guard let spec = table.first(where: { $0.short.map { Array($0.utf8) } == [argument[1]] }) else {
            throw UsageError("unknown option '\(text)'")
        }
        let rest = Array(argument.dropFirst(2))
        guard rest.isEmpty || spec.value != nil else {
            throw UsageError("unknown option '\(text)' (short flags cannot be combined)")
        }
        return (spec, rest.isEmpty ? nil : rest)
    }

    /// Where ImageMagick montage's `-tile CxR` (`--tile 4x`) went: the column count is
    /// `--columns` and rows follow from the pictures. Nil for other names, or for a table
    /// without `--columns` (compare's).
    static func montageHint(_ name: String, in table: [OptionSpec]) -> String? {
        guard name == "tile", table.contains(where: { $0.key == .columns }) else { return nil }
        return "montage's -tile 4x is '--columns 4' here (the rows follow from the pictures)"
    }

    /// The long option a misspelt `name` most likely meant: the nearest by edit distance, when
    /// that is at most a third of the name's length (at least 2), as in "--colums" for "--columns".
    static func nearestOption(to name: String, in table: [OptionSpec] = optionTable) -> OptionSpec? {
        let typed = Array(name.utf8)
        let limit = max(2, typed.count / 3)
        // The distance is at least the difference in length: a name far longer than every
        // option (a pasted path, say) is measured against none of them.
        let scored = table.filter { abs($0.long.utf8.count - typed.count) <= limit }
            .map { (spec: $0, distance: editDistance(typed, Array($0.long.utf8))) }
        guard let best = scored.min(by: { $0.distance < $1.distance }), best.distance <= limit else { return nil }
        return best.spec
    }

    /// Levenshtein distance: the fewest inserted, deleted or replaced bytes that turn `a` into `b`.
    static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        var previous = Array(0...b.count)
        var current = previous
        for (i, x) in a.enumerated() {
            current[0] = i + 1
            for (j, y) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
