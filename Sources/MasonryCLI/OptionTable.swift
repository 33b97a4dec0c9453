import BitmapText
import WaterfallLayout
import MasonrySheet
import CodecCore
import PNGCodec

/// One command-line option: its names, value, default and help, from which
/// the parser, the usage line and the help text are all generated.
struct OptionSpec: Sendable {
    enum Key: Sendable, Hashable {
        case output, columns, width, columnWidth, gap, columnGap, rowGap, margin, background, order, tolerance
        case maxTileAspect, sort, reverse, recursive, manifest, html, pageHeight, perPage, page, planOnly
        case plan, fromPlan, replanChanged
        case caption, fontSize, captionColor, title, sections, tileBackground, frame, enlarge, noColorManagement, noVideoBadge
        case jobs, maxPixels, maxMemory, compression, cache, cacheMaxBytes, verbose, overwrite, null, include, exclude
        case quiet, progress, noProgress, strict, help, version
        // masonry compare (CompareCommand.swift)
        case threshold, includeAA, maxDiffPixels, maxDiffRatio, allowResize, failOnMissing, showUnchanged, report
        case ignore, maskDir, config, paths, updateBaseline, dryRun, junit, markdown, linkBase, colorManagement
    }

    let key: Key
    let short: Character?
    let long: String
    /// The value's placeholder, or nil for a flag.
    let value: String?
    let help: String
    let defaultText: String?
    /// May be given more than once; every value is kept, in order (`ParsedArguments.lists`).
    var repeatable = false
    /// For an option whose value is optional (`--update-baseline[=mode]`): the value the bare
    /// option means. Its value is then only taken from `--name=value`, never the next argument.
    var bareValue: String? = nil
    /// The words the value may be, which the shell completions offer (empty: any value).
    var choices: [String] = []

    /// What a shell completes after the option: its words, a file (a `path…` or `file…` value), a folder
    /// (`dir`), or nothing (a number, a colour, a text; or a flag).
    var completion: ValueCompletion {
        guard let value else { return .none }
        if !choices.isEmpty { return .words(choices) }
        if value == "dir" { return .directory }
        return value.hasPrefix("path") || value.hasPrefix("file") ? .file : .none
    }
}

/// What the shell completions offer for an option's value.
enum ValueCompletion: Equatable {
    case none, file, directory
    case words([String])
}

/// An option value that is one word of a fixed set: the parser, its error message and the
/// help's list of words all come from `allCases`, so they cannot drift apart.
protocol OptionChoice: CaseIterable, RawRepresentable<String> {}

extension OptionChoice {
    /// The accepted words, in declaration order.
    static var words: [String] { allCases.map(\.rawValue) }

    /// The accepted words as prose: "a, b or c".
    static var wordList: String { proseList(words) }
}

/// Words as prose: "a", "a or b", "a, b or c".
func proseList(_ words: [String]) -> String {
    guard let last = words.last, words.count > 1 else { return words.joined() }
    return words.dropLast().joined(separator: ", ") + " or " + last
}

extension PlacementOrder: OptionChoice {}
extension InputOrder: OptionChoice {}
extension FontSize: OptionChoice {}
extension TileStyle.EnlargeMode: OptionChoice {}

/// The named `--compression` presets (a zlib level 0-9 is accepted beside them).
enum CompressionPreset: String, OptionChoice {
    case fast, `default`, small

    var settings: PNGEncodingSettings {
        switch self {
        case .fast: .fast
        case .default: .default
        case .small: .small
        }
    }
}

/// Values the command itself applies when an option is absent (the others are the
/// defaults of the library types, read from them below).
enum CommandDefaults {
    static let output = "sheet.png"
    static let gap = 8
    static let margin = 8
    static let order = PlacementOrder.shortest
    static let tolerance = 0
    static let maxTileAspect = 4
    static let compression = CompressionPreset.default
}

extension OptionSpec {
    /// The declaration of `key`, from the render's or the compare's table.
    static func declaration(of key: Key) -> OptionSpec {
        (optionTable + compareOptionTable).first { $0.key == key }!
    }
}

/// `--overwrite`, in both tables: without it a run never replaces a file Masonry did not write.
let overwriteOption = OptionSpec(
    key: .overwrite, short: nil, long: "overwrite", value: nil,
    help: "Replace existing files at the output paths even when Masonry did not write them (by default such a run "
        + "is refused; Masonry's own earlier outputs are always replaced).", defaultText: nil)

/// Every option of `masonry`, in help order.
let optionTable: [OptionSpec] = [
    .init(key: .output, short: "o", long: "output", value: "path",
          help: "The sheet to write (a .png name), or - for standard output (one page).", defaultText: CommandDefaults.output),
    overwriteOption,
    .init(key: .columns, short: "c", long: "columns", value: "n", help: "Number of columns.", defaultText: "\(LayoutConfiguration.defaultColumns)"),
    .init(key: .width, short: "w", long: "width", value: "px", help: "Sheet width in pixels.", defaultText: "\(LayoutConfiguration.defaultWidth)"),
    .init(key: .columnWidth, short: nil, long: "column-width", value: "px",
          help: "Column width; with --columns it sets the sheet width, with --width the column count.", defaultText: nil),
    .init(key: .gap, short: nil, long: "gap", value: "px", help: "Sets both the column gap and the row gap.", defaultText: nil),
    .init(key: .columnGap, short: nil, long: "column-gap", value: "px", help: "Space between columns.", defaultText: "\(CommandDefaults.gap)"),
    .init(key: .rowGap, short: nil, long: "row-gap", value: "px", help: "Space between images in a column.", defaultText: "\(CommandDefaults.gap)"),
    .init(key: .margin, short: nil, long: "margin", value: "px|t,r,b,l",
          help: "Space around the wall: one number, or top,right,bottom,left.", defaultText: "\(CommandDefaults.margin)"),
    .init(key: .background, short: nil, long: "background", value: "color",
          help: "#RGB, #RRGGBB, #RRGGBBAA, one of the 148 CSS colour names (red, navy, rebeccapurple, ...) or transparent.",
          defaultText: "white"),
    .init(key: .order, short: nil, long: "order", value: "order",
          help: "Placement: \(PlacementOrder.wordList).", defaultText: CommandDefaults.order.rawValue,
          choices: PlacementOrder.words),
    .init(key: .tolerance, short: nil, long: "tolerance", value: "px",
          help: "With shortest: take the leftmost column within this many pixels of the shortest.",
          defaultText: "\(CommandDefaults.tolerance)"),
    .init(key: .maxTileAspect, short: nil, long: "max-tile-aspect", value: "n",
          help: "A tile is never taller than n times its width; taller pictures are centred.",
          defaultText: "\(CommandDefaults.maxTileAspect)"),
    .init(key: .caption, short: nil, long: "caption", value: "format",
          help: "A caption under every picture: text with {name}, {path}, {stem}, {width}, {height}, {bytes}, {index}, {duration}; "
              + "{{ and }} for braces; \\n between lines (at most 4).", defaultText: nil),
    .init(key: .fontSize, short: nil, long: "font-size", value: "size",
          help: "Built-in font for captions: " + proseList(FontSize.allCases.map { size in
              "\(size.rawValue) (\(size.cellSize.width)x\(size.cellSize.lineHeight))"
          }) + ".", defaultText: TileStyle().fontSize.rawValue, choices: FontSize.words),
    .init(key: .captionColor, short: nil, long: "caption-color", value: "color",
          help: "Caption text colour.", defaultText: "black on a light tile, white on a dark one"),
    .init(key: .title, short: nil, long: "title", value: "text",
          help: "A title band at the top of every page (with \"page k of n\" when there are several).", defaultText: nil),
    .init(key: .sections, short: nil, long: "sections", value: nil,
          help: "One section per folder, under a header with its path and image count.", defaultText: nil),
    .init(key: .tileBackground, short: nil, long: "tile-background", value: "color",
          help: "Painted behind each picture, so transparent pictures show their tile.", defaultText: nil),
    .init(key: .frame, short: nil, long: "frame", value: "px[:color]",
          help: "A border inside each tile (colour #c0c0c0 unless given).", defaultText: nil),
    .init(key: .enlarge, short: nil, long: "enlarge", value: "mode",
          help: "Pictures narrower than their column: " + proseList(TileStyle.EnlargeMode.allCases.map { mode in
              switch mode {
              case .smooth: "smooth (enlarged, bicubic)"
              case .pixelated: "pixelated (enlarged, nearest neighbour)"
              case .never: "never (own size, centred)"
              }
          }) + ".", defaultText: TileStyle().enlarge.rawValue, choices: TileStyle.EnlargeMode.words),
    .init(key: .noColorManagement, short: nil, long: "no-color-management", value: nil,
          help: "Draw samples as stored. By default pictures with an ICC profile (JPEG, PNG iCCP), PNG cICP, sRGB "
              + "or gAMA/cHRM chunks are converted to sRGB (perceptual intent), and converted pages say sRGB.",
          defaultText: nil),
    .init(key: .noVideoBadge, short: nil, long: "no-video-badge", value: nil,
          help: "No play mark on videos' poster frames (drawn by default, bottom left of the picture).", defaultText: nil),
    .init(key: .sort, short: nil, long: "sort", value: "key",
          help: "Input order: \(InputOrder.wordList).", defaultText: InputOrder.natural.rawValue,
          choices: InputOrder.words),
    .init(key: .reverse, short: nil, long: "reverse", value: nil, help: "Reverse the input order.", defaultText: nil),
    .init(key: .recursive, short: "r", long: "recursive", value: nil, help: "Descend into sub-folders.", defaultText: nil),
    .init(key: .include, short: nil, long: "include", value: "glob",
          help: "Read only the folders' files whose path below the folder argument matches: * within a folder, ** "
              + "across folders, ? one character (files named on the command line are always read).",
          defaultText: nil, repeatable: true),
    .init(key: .exclude, short: nil, long: "exclude", value: "glob",
          help: "Leave out the folders' files whose path below the folder argument matches.", defaultText: nil,
          repeatable: true),
    .init(key: .null, short: "0", long: "null", value: nil,
          help: "Names in an @list file or on standard input (-) are separated by NUL bytes (find -print0), not lines.",
          defaultText: nil),
    .init(key: .manifest, short: nil, long: "manifest", value: "path.json",
          help: "Also write a JSON manifest of where every image went.", defaultText: nil),
    .init(key: .html, short: nil, long: "html", value: "path.html",
          help: "Also write an HTML page over the sheet: every tile links to its file, a filter by name.",
          defaultText: nil),
    .init(key: .pageHeight, short: nil, long: "page-height", value: "px",
          help: "No page taller than this; several pages are written as <output stem>-001.png, ... 0 for one page.",
          defaultText: "\(PagingOptions().maxHeight)"),
    .init(key: .perPage, short: nil, long: "per-page", value: "n", help: "At most n images a page.", defaultText: nil),
    .init(key: .page, short: nil, long: "page", value: "k",
          help: "Render only page k of the plan (the same file and bytes as in a full run).", defaultText: nil),
    .init(key: .planOnly, short: nil, long: "plan-only", value: nil,
          help: "Read headers and write the --plan file (and --manifest, --html) only; decode no pixel.", defaultText: nil),
    .init(key: .plan, short: nil, long: "plan", value: "file",
          help: "With --plan-only: write the plan here, for --from-plan runs on any machine (SPEC §15).", defaultText: nil),
    .init(key: .fromPlan, short: nil, long: "from-plan", value: "file",
          help: "Paint from a --plan file instead of reading inputs: no folder is listed, only the painted "
              + "pages' inputs are read, each checked against the plan first. With --page, -j, --cache, "
              + "--max-memory, --replan-changed and the talk options only.", defaultText: nil),
    .init(key: .replanChanged, short: nil, long: "replan-changed", value: nil,
          help: "With --from-plan: draw an input that changed since planning as it is now (in its planned tile), "
              + "instead of failing with status \(ExitStatus.stalePlan.rawValue).", defaultText: nil),
    .init(key: .jobs, short: "j", long: "jobs", value: "n", help: "Decoding threads (never changes the output).",
          defaultText: "all cores"),
    .init(key: .maxPixels, short: nil, long: "max-pixels", value: "n",
          help: "Skip input images with more pixels than this.", defaultText: "\(DecodeLimits.defaultMaxPixels)"),
    .init(key: .maxMemory, short: nil, long: "max-memory", value: "MiB",
          help: "Refuse a run whose painting would hold more memory than this.", defaultText: "1024"),
    .init(key: .cache, short: nil, long: "cache", value: "dir",
          help: "Keep thumbnails and pages' compressed rows in this folder between runs; unchanged inputs are not "
              + "decoded again, unchanged rows not compressed again, and every output byte stays the same.", defaultText: nil),
    .init(key: .cacheMaxBytes, short: nil, long: "cache-max-bytes", value: "n",
          help: "Bound of the cache (bytes, or with K, M or G); least recently used entries are removed.",
          defaultText: "1G"),
    .init(key: .compression, short: nil, long: "compression", value: "level",
          help: "\(CompressionPreset.words.joined(separator: ", ")), or a zlib level 0-9.",
          defaultText: CommandDefaults.compression.rawValue, choices: CompressionPreset.words + (0...9).map(String.init)),
    .init(key: .quiet, short: "q", long: "quiet", value: nil, help: "Print errors only.", defaultText: nil),
    .init(key: .verbose, short: "v", long: "verbose", value: nil,
          help: "Also print what the cache could not do (damaged entries replaced, full disk).", defaultText: nil),
    .init(key: .progress, short: nil, long: "progress", value: nil,
          help: "Show a progress bar on stderr (default when stderr is a terminal).", defaultText: nil),
    .init(key: .noProgress, short: nil, long: "no-progress", value: nil, help: "Never show a progress bar.", defaultText: nil),
    .init(key: .strict, short: nil, long: "strict", value: nil,
          help: "Skipped inputs are errors, printed even with --quiet: exit with status \(ExitStatus.incomplete.rawValue) "
              + "when any input was skipped (the sheet is still written).", defaultText: nil),
    .init(key: .help, short: "h", long: "help", value: nil, help: "Show help information.", defaultText: nil),
    .init(key: .version, short: nil, long: "version", value: nil, help: "Show the version.", defaultText: nil),
]

/// `masonry --help`: overview, usage, arguments, options and exit statuses, from the option table.
enum HelpText {
    static let overview = "Lay out \(ImageFormats.nameList) images as a masonry (waterfall) contact sheet."
    static let usage = "masonry [<options>] <input> ..."
    /// The arguments, as `--help` and the man page describe them.
    static let arguments = [("<input>", "Image files (read by their signature), or folders whose \(ImageFormats.extensionList) files are read; "
                                + "@FILE reads the names in FILE, - the names on standard input (one a line, or NUL-separated with -0).")]

    /// The EXAMPLES of `--help` and the man page: a command and what it does (README's first steps first).
    static let examples = [
        ("masonry photos -o photos-sheet.png", "A sheet of a folder: four columns, 1200 px wide."),
        ("masonry -r photos --caption '{name}' --sections -o photos-captioned.png",
         "Every picture named, one section per sub-folder."),
        ("masonry -r photos --html photos.html -o photos-page.png", "An HTML page over the sheet: tiles link to their files."),
        ("masonry photos -w 1800 -c 6 --background black --frame 1:gray", "Wider, six columns, black with grey frames."),
        ("find . -name '*.jpg' -print0 | masonry - -0 -o jpegs.png", "The pictures find names (NUL-separated on stdin)."),
        ("masonry big -o pages.png --page-height 8192", "Pages no taller than 8192 px: pages-001.png, pages-002.png, ..."),
        ("masonry compare baseline current --html review.html", "Review two folders of screenshots."),
    ]

    static var full: String {
        var lines = ["OVERVIEW: \(overview)", "", "USAGE: \(usage)",
                     "       masonry compare <baseline> <current> [<options>]  (its own --help)",
                     "       masonry --from-plan <file> [--page <k>] [-j <n>] [--cache <dir>] [--replan-changed]",
                     "       \(PlanCommand.indexUsage.dropFirst("masonry ".count))  (its own --help)",
                     "", "ARGUMENTS:"] + arguments.map(row) + ["", "OPTIONS:"]
        lines += optionRows(optionTable)
        lines += ["", "EXAMPLES:"] + examples.flatMap { command, meaning in ["  \(meaning)", "    $ \(command)"] }
        lines += ["", "EXIT STATUS:"] + ExitStatus.allCases.map { row("\($0.rawValue)", $0.meaning) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The help rows of `table`'s options, with their defaults.
    static func optionRows(_ table: [OptionSpec]) -> [String] {
        table.map { option in
            var names = option.short.map { "-\($0), " } ?? ""
            names += "--\(option.long)"
            if let value = option.value { names += option.bareValue == nil ? " <\(value)>" : "[=<\(value)>]" }
            let repeatable = option.repeatable ? " Repeatable." : ""
            return row(names, option.help + repeatable + (option.defaultText.map { " (default: \($0))" } ?? ""))
        }
    }

    /// One "  name    help" entry, the help wrapped to 80 columns as swift-argument-parser does.
    static func row(_ name: String, _ help: String) -> String {
        let column = 26, limit = 80
        var lines: [String] = []
        var current = ""
        for word in help.split(separator: " ") {
            if !current.isEmpty && column + current.count + 1 + word.count > limit {
                lines.append(current)
                current = ""
            }
            current += (current.isEmpty ? "" : " ") + word
        }
        lines.append(current)
        let indent = "  " + name
        let first = indent.count < column ? indent.padding(to: column) + lines[0] : indent + "\n" + "".padding(to: column) + lines[0]
        return ([first] + lines.dropFirst().map { "".padding(to: column) + $0 }).joined(separator: "\n")
    }
}

private extension String {
    func padding(to width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
