import WorkerThreads
import BitmapText
import CompareConfig
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import WaterfallLayout
import MasonrySheet
import CodecCore
import PNGCodec
import Raster

/// How the command should talk while it renders.
struct OutputSettings: Equatable {
    var quiet = false
    /// nil: a bar when stderr is a terminal.
    var progress: Bool?
    var strict = false
    var verbose = false
}

/// Turns parsed arguments into a validated `SheetRequest`, or a usage error
/// that names the option, the value and what is wrong with it.
enum CommandSettings {
    static func make(from parsed: ParsedArguments) throws(UsageError) -> (SheetRequest, OutputSettings) {
        do {
            return try settings(from: parsed)
        } catch {
            guard let bad = error.badValue, let spelling = parsed.spellings[bad.option] else { throw error }
            throw UsageError(bad, spelling: spelling)
        }
    }

    private static func settings(from parsed: ParsedArguments) throws(UsageError) -> (SheetRequest, OutputSettings) {
        let values = parsed.values
        func number(_ key: OptionSpec.Key, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
            guard let text = values[key] else { return nil }
            return try parseNumber(text, option: key, in: range)
        }
        let gap = try number(.gap, in: 0...LayoutLimits.maxLength)
        let insets = try values[.margin].map { (text) throws(UsageError) in try parseMargin(text) }
            ?? LayoutInsets(all: CommandDefaults.margin)
        let order = try choice(.order, in: values, as: PlacementOrder.self) ?? CommandDefaults.order
        let layout: LayoutConfiguration
        do {
            layout = try LayoutConfiguration(
                width: number(.width, in: 1...LayoutLimits.maxLength),
                columns: number(.columns, in: 1...LayoutLimits.maxColumns),
                columnWidth: number(.columnWidth, in: 1...LayoutLimits.maxLength),
                columnGap: number(.columnGap, in: 0...LayoutLimits.maxLength) ?? gap ?? CommandDefaults.gap,
                rowGap: number(.rowGap, in: 0...LayoutLimits.maxLength) ?? gap ?? CommandDefaults.gap,
                insets: insets, order: order,
                tolerance: number(.tolerance, in: 0...LayoutLimits.maxLength) ?? CommandDefaults.tolerance,
                maxTileAspect: number(.maxTileAspect, in: 1...LayoutLimits.maxLength) ?? CommandDefaults.maxTileAspect,
                enlargesNarrowImages: values[.enlarge] != TileStyle.EnlargeMode.never.rawValue)
        } catch let error as UsageError {
            throw error
        } catch let error as LayoutError {
            throw UsageError("invalid layout: \(commandLineWording(error.description))")
        } catch {
            throw UsageError("invalid layout: \(error)")
        }

        var options = SheetOptions(layout: layout)
        options.background = try color(.background, in: values) ?? options.background
        options.style = try style(values)
        options.style.videoBadge = !parsed.flags.contains(.noVideoBadge)
        options.title = values[.title]
        options.sections = parsed.flags.contains(.sections)
        options.order = try choice(.sort, in: values, as: InputOrder.self) ?? options.order
        options.reverse = parsed.flags.contains(.reverse)
        options.recursive = parsed.flags.contains(.recursive)
        options.colorManagement = !parsed.flags.contains(.noColorManagement)
        options.jobs = try number(.jobs, in: 1...1024) ?? ProcessorCount.available
        options.maxPixels = try number(.maxPixels, in: 1...(Int(Int32.max) * Int(Int32.max))) ?? DecodeLimits.defaultMaxPixels
        if let text = values[.compression] { options.compression = try parseCompression(text) }
        options.paging.maxHeight = try number(.pageHeight, in: 0...Int(Int32.max)) ?? options.paging.maxHeight
        options.paging.maxImagesPerPage = try number(.perPage, in: 1...Int(Int32.max)) ?? 0
        options.cache = parsed.paths[.cache]
        if let text = values[.cacheMaxBytes] { options.cacheMaxBytes = try parseByteCount(text, option: .cacheMaxBytes) }
        options.maxMemory = try number(.maxMemory, in: 1...(1 << 40)).map { $0 << 20 } ?? options.maxMemory

        let toStandardOutput = parsed.paths[.output]?.bytes == [UInt8(ascii: "-")]
        let output = toStandardOutput ? RawPath("-") : try pngOutput(parsed, default: CommandDefaults.output)
        let inputs = try InputList.expand(parsed.inputs, nulSeparated: parsed.flags.contains(.null))
        guard !inputs.isEmpty else { throw UsageError("the lists of inputs name no file") }
        var request = SheetRequest(inputs: inputs, output: output, manifest: parsed.paths[.manifest], options: options)
        request.include = try globs(parsed, .include)
        request.exclude = try globs(parsed, .exclude)
        request.page = try number(.page, in: 1...Int(Int32.max))
        request.planOnly = parsed.flags.contains(.planOnly)
        request.html = parsed.paths[.html]
        request.overwrite = parsed.flags.contains(.overwrite)
        if let path = parsed.paths[.plan] {
            guard request.planOnly else { throw UsageError("'--plan <file>' is written by '--plan-only' runs only") }
            request.planFile = (path, PlanCommand.recordedWords(parsed))
        }
        if request.planOnly && request.planFile == nil && request.manifest == nil && request.html == nil {
            throw UsageError("'--plan-only' needs '--plan <file>', '--manifest <path.json>' or '--html <path.html>' "
                             + "(it writes only those)")
        }
        if parsed.flags.contains(.replanChanged) { throw UsageError("'--replan-changed' needs '--from-plan <file>'") }
        if request.planOnly && request.page != nil {
            throw UsageError("'--plan-only' and '--page' cannot be used together")
        }
        var talk = OutputSettings()
        talk.quiet = parsed.flags.contains(.quiet)
        talk.strict = parsed.flags.contains(.strict)
        talk.verbose = parsed.flags.contains(.verbose)
        if parsed.flags.contains(.progress) { talk.progress = true }
        if parsed.flags.contains(.noProgress) { talk.progress = false }
        return (request, talk)
    }

    /// The colour given for `key`, or nil when the option is absent.
    static func color(_ key: OptionSpec.Key, in values: [OptionSpec.Key: String]) throws(UsageError) -> RGBA8Color? {
        guard let text = values[key] else { return nil }
        do { return try RGBA8Color(parsing: text) } catch {
            throw invalid(key, text, RawPath(String(describing: error)).displayName)
        }
    }

    /// Captions, font, tile background, frame and enlarging.
    static func style(_ values: [OptionSpec.Key: String]) throws(UsageError) -> TileStyle {
        var style = TileStyle()
        if let text = values[.caption] {
            do { style.caption = try CaptionFormat(parsing: text) } catch { throw invalid(.caption, text, error.description) }
        }
        style.fontSize = try choice(.fontSize, in: values, as: FontSize.self) ?? style.fontSize
        style.captionColor = try color(.captionColor, in: values)
        style.tileBackground = try color(.tileBackground, in: values)
        if let text = values[.frame] {
            let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let width = try parseNumber(parts[0], option: .frame, in: 1...LayoutLimits.maxLength)
            var frameColor = RGBA8Color(r: 0xC0, g: 0xC0, b: 0xC0)
            if parts.count == 2 {
                do { frameColor = try RGBA8Color(parsing: parts[1]) } catch {
                    throw invalid(.frame, text, RawPath(String(describing: error)).displayName)
                }
            }
            style.frame = TileStyle.Frame(width: width, color: frameColor)
        }
        style.enlarge = try choice(.enlarge, in: values, as: TileStyle.EnlargeMode.self) ?? style.enlarge
        return style
    }

    /// A whole decimal number within `range` (no sign for non-negative ranges, no spaces).
    static func parseNumber(_ text: String, option: OptionSpec.Key, in range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw invalid(option, text, "expected a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        guard let value = Int(text), range.contains(value) else {
            throw invalid(option, text, "must be from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// A number of bytes, optionally with K, M or G (powers of 1024).
    static func parseByteCount(_ text: String, option: OptionSpec.Key) throws(UsageError) -> Int {
        let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30]
        let unit = text.last.flatMap { units[$0] }
        let digits = unit == nil ? text : String(text.dropLast())
        let limit = (1 << 50) / (unit ?? 1)
        return try parseNumber(digits, option: option, in: 0...limit) * (unit ?? 1)
    }

    /// One to four comma-separated numbers, as CSS margins: all; vertical,horizontal;
    /// top,horizontal,bottom; top,right,bottom,left.
    static func parseMargin(_ text: String) throws(UsageError) -> LayoutInsets {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard (1...4).contains(parts.count) else {
            throw invalid(.margin, text, "expected one to four numbers separated by commas")
        }
        var numbers: [Int] = []
        for part in parts { numbers.append(try parseNumber(part, option: .margin, in: 0...LayoutLimits.maxLength)) }
        return switch numbers.count {
        case 1: LayoutInsets(all: numbers[0])
        case 2: LayoutInsets(top: numbers[0], right: numbers[1], bottom: numbers[0], left: numbers[1])
        case 3: LayoutInsets(top: numbers[0], right: numbers[1], bottom: numbers[2], left: numbers[1])
        default: LayoutInsets(top: numbers[0], right: numbers[1], bottom: numbers[2], left: numbers[3])
        }
    }

    static func parseCompression(_ text: String) throws(UsageError) -> PNGEncodingSettings {
        if let preset = CompressionPreset(rawValue: text) { return preset.settings }
        guard text.count == 1, let level = Int(text), (0...9).contains(level) else {
            throw invalid(.compression, text, "expected \(CompressionPreset.allCases.map(\.rawValue).joined(separator: ", ")) or a level 0-9")
        }
        return PNGEncodingSettings(level: level, strategy: .default, filter: .up)
    }

    /// The word given for `key` as a `Choice`, or nil when the option is absent.
    static func choice<Choice: OptionChoice>(_ key: OptionSpec.Key, in values: [OptionSpec.Key: String],
                                             as: Choice.Type) throws(UsageError) -> Choice? {
        guard let text = values[key] else { return nil }
        guard let value = Choice(rawValue: text) else { throw invalid(key, text, "expected \(Choice.wordList)") }
        return value
    }

    /// The patterns of a repeatable glob option (`--include`, `--exclude`, compare's `--paths`).
    static func globs(_ parsed: ParsedArguments, _ key: OptionSpec.Key) throws(UsageError) -> [PathGlob] {
        let patterns: [String] = parsed.lists[key] ?? []
        return try patterns.map { (text: String) throws(UsageError) -> PathGlob in
            do throws(PathGlobError) { return try PathGlob(text) } catch { throw invalid(key, text, error.reason) }
        }
    }

    /// The `-o` path (or `fallback`), which must name a PNG: it is what gets written.
    static func pngOutput(_ parsed: ParsedArguments, default fallback: String) throws(UsageError) -> RawPath {
        let output = parsed.paths[.output] ?? RawPath(fallback)
        guard isPNGName(output) else {
            throw UsageError("the output '\(output.displayName)' must end in .png (\(parsed.spellings[.output] ?? optionName(.output)) writes a PNG)")
        }
        return output
    }

    /// True when the path's last four bytes are ".png" in any letter case (only ASCII letters fold).
    static func isPNGName(_ path: RawPath) -> Bool {
        let folded = path.bytes.suffix(4).map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
        return folded == Array(".png".utf8)
    }

    /// `LayoutConfiguration` names its parameters (`columnWidth`, `insets.left`); the user typed options.
    static func commandLineWording(_ message: String) -> String {
        let names: [(String, String)] = [
            ("give only two of width, columns and columnWidth",
             "give only two of \(optionName(.width)), \(optionName(.columns)) and \(optionName(.columnWidth))"),
            ("columnWidth", optionName(.columnWidth)), ("columnGap", optionName(.columnGap)),
            ("rowGap", optionName(.rowGap)), ("maxTileAspect", optionName(.maxTileAspect)),
            ("insets.top", optionName(.margin)), ("insets.right", optionName(.margin)),
            ("insets.bottom", optionName(.margin)), ("insets.left", optionName(.margin)),
            ("with insets", "with \(optionName(.margin))"),
        ]
        return names.reduce(message) { text, name in text.replacing(name.0, with: name.1) }
    }

    /// `--long` for an option, as the user types it.
    static func optionName(_ key: OptionSpec.Key) -> String {
        "--" + OptionSpec.declaration(of: key).long
    }

    static func invalid(_ key: OptionSpec.Key, _ text: String, _ why: String) -> UsageError {
        UsageError(UsageError.BadValue(option: key, text: text, why: why), spelling: optionName(key))
    }
}
