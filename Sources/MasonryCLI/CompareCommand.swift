import CompareConfig
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import ImageDiff
import MasonrySheet

extension BaselineUpdateMode: OptionChoice {}

/// Every option of `masonry compare`, in help order (parsed by `ArgumentParser` like a render's).
let compareOptionTable: [OptionSpec] = [
    .init(key: .output, short: "o", long: "output", value: "path",
          help: "The review sheet to write (pages as for a render: review-001.png, ...).", defaultText: "review.png"),
    overwriteOption,
    .init(key: .report, short: nil, long: "report", value: "path.json",
          help: "Also write a JSON report of every pair.", defaultText: nil),
    .init(key: .html, short: nil, long: "html", value: "path.html",
          help: "Also write an HTML review page: summary, a status filter, and per pair side by side, difference "
              + "and a slider between baseline and current.", defaultText: nil),
    .init(key: .junit, short: nil, long: "junit", value: "path.xml",
          help: "Also write a JUnit XML report: a testcase per pair, failures with their numbers, unreadable pairs as "
              + "errors.", defaultText: nil),
    .init(key: .markdown, short: nil, long: "markdown", value: "path.md",
          help: "Also write a Markdown summary (for $GITHUB_STEP_SUMMARY or a PR comment): verdict, counts, failing "
              + "pairs, passing changes folded.", defaultText: nil),
    .init(key: .linkBase, short: nil, long: "link-base", value: "url",
          help: "With --markdown: link each path to url#pair-N, its place on the uploaded --html page.", defaultText: nil),
    .init(key: .config, short: nil, long: "config", value: "file.json",
          help: "Defaults for these options and per-path rules: {\"maxDiffPixels\": 10, \"rules\": [{\"paths\": "
              + "[\"mobile/**\"], \"threshold\": 0.2}]}. The command line overrides the file's top level; matching rules "
              + "override both, a later rule winning.", defaultText: nil),
    .init(key: .ignore, short: nil, long: "ignore", value: "x,y,w,h",
          help: "A region of every pair left out: neither counted nor drawn as a difference (hatched in the difference "
              + "panel).", defaultText: nil, repeatable: true),
    .init(key: .maskDir, short: nil, long: "mask-dir", value: "dir",
          help: "Mask images by the pairs' paths: the non-transparent pixels of dir/<path> are ignored.", defaultText: nil),
    .init(key: .paths, short: nil, long: "paths", value: "glob",
          help: "Compare (and update) only pairs whose path matches: * within a folder, ** across folders, ? one "
              + "character.", defaultText: nil, repeatable: true),
    .init(key: .updateBaseline, short: nil, long: "update-baseline", value: "mode",
          help: "After the run, copy current files into the baseline: missing (added ones), changed (also changed and "
              + "resized ones), all (also delete removed ones). The exit status is the suite's after the update.",
          defaultText: nil, bareValue: BaselineUpdateMode.changed.rawValue, choices: BaselineUpdateMode.allCases.map(\.rawValue)),
    .init(key: .dryRun, short: nil, long: "dry-run", value: nil,
          help: "With --update-baseline: print what would change and change nothing (the exit status is the suite's as it "
              + "stands).", defaultText: nil),
    .init(key: .threshold, short: nil, long: "threshold", value: "t",
          help: "pixelmatch's threshold, 0 to 1: pixels differ when their YIQ distance exceeds 35215 t².",
          defaultText: "0.1"),
    .init(key: .includeAA, short: nil, long: "include-aa", value: nil,
          help: "Count anti-aliased pixels as differing too.", defaultText: nil),
    .init(key: .maxDiffPixels, short: nil, long: "max-diff-pixels", value: "n",
          help: "A changed pair passes with at most n differing pixels.", defaultText: "0"),
    .init(key: .maxDiffRatio, short: nil, long: "max-diff-ratio", value: "r",
          help: "A changed pair passes with at most this ratio (0 to 1) of differing pixels.", defaultText: "0"),
    .init(key: .colorManagement, short: nil, long: "color-management", value: nil,
          help: "Convert both pictures to sRGB through their ICC profiles or colour chunks before comparing "
              + "(by default stored samples are compared, as pixelmatch does).", defaultText: nil),
    .init(key: .allowResize, short: nil, long: "allow-resize", value: nil,
          help: "Judge pairs whose sizes differ by the limits instead of failing them; with the default limits (0) a "
              + "size change still fails.", defaultText: nil),
    .init(key: .failOnMissing, short: nil, long: "fail-on-missing", value: nil,
          help: "Fail added and removed pairs.", defaultText: nil),
    .init(key: .showUnchanged, short: nil, long: "show-unchanged", value: nil,
          help: "Draw unchanged pairs on the review sheet too.", defaultText: nil),
    .init(key: .pageHeight, short: nil, long: "page-height", value: "px",
          help: "No page taller than this; 0 for one page.", defaultText: "16384"),
    .init(key: .jobs, short: "j", long: "jobs", value: "n", help: "Threads (never changes the output).",
          defaultText: "all cores"),
    .init(key: .maxPixels, short: nil, long: "max-pixels", value: "n",
          help: "Images with more pixels are errors.", defaultText: "178956970"),
    .init(key: .quiet, short: "q", long: "quiet", value: nil, help: "Print trouble only.", defaultText: nil),
    .init(key: .verbose, short: "v", long: "verbose", value: nil,
          help: "Also print one line per changed or resized pair with its numbers, passing or not.", defaultText: nil),
    .init(key: .help, short: "h", long: "help", value: nil, help: "Show help information.", defaultText: nil),
]

/// `masonry compare BASELINE CURRENT [options]` (SPEC §9): prints one line per pair in error
/// and a summary line, and exits as diff(1) does: 0 no pair failed, 1 some failed (everything
/// was written), 2 trouble (nothing written), 64 usage.
enum CompareCommand {
    static let usage = "masonry compare <baseline> <current> [<options>]"
    static let inputNames = "<baseline> <current>"

    static func run(arguments: [[UInt8]], output: Terminal) -> Int32 {
        let request: CompareRequest
        let quiet: Bool, verbose: Bool
        do {
            let action = try ArgumentParser.parse(arguments, table: compareOptionTable, inputs: inputNames)
            guard case .render(let parsed) = action else {
                output.standardOutput(help)
                return 0
            }
            (request, quiet) = try settings(parsed)
            verbose = parsed.flags.contains(.verbose) && !quiet
        } catch {
            output.standardError(MasonryCommand.usageFailure(error.message, usage: usage, help: "masonry compare --help"))
            return ExitStatus.usage.rawValue
        }
        do {
            let outcome = try ComparePipeline.run(request) { event in
                if !quiet, case .warning(let warning) = event {
                    output.standardError("masonry: warning: \(warning.path.displayName): \(warning.reason)\n")
                }
            }
            if !quiet {
                for item in outcome.items where item.verdict.status == .error {
                    output.standardError("masonry: error \(item.relativePath.displayName): \(item.reason ?? "unreadable")\n")
                }
            }
            if verbose {
                for item in outcome.items where item.verdict.status == .changed || item.verdict.status == .resized {
                    output.standardError("masonry: \(item.verdict.status.rawValue) \(item.relativePath.displayName): "
                                         + "\(PairNumbers.text(item)); \(item.verdict.failed ? "fails" : "passes")\n")
                }
            }
            for change in outcome.baselineChanges where !quiet || change.refusal != nil {
                output.standardError(change.line + "\n")
            }
            if !quiet {
                output.standardError("masonry: \(outcome.summary.line)\n")
                if let update = request.update {
                    let files = outcome.baselineChanges.filter { $0.refusal == nil }.count
                    output.standardError("masonry: baseline: \(files) \(files == 1 ? "file" : "files") "
                                         + "\(update.dryRun ? "would change" : "changed"); \(outcome.failedAfterUpdate) "
                                         + "\(update.dryRun ? "would fail" : "failed") after the update\n")
                }
            }
            // A dry run changes nothing: its status is the suite's as it stands.
            let failed = request.update?.dryRun == true ? outcome.summary.failed : outcome.failedAfterUpdate
            return failed > 0 ? 1 : 0
        } catch {
            output.standardError("masonry: error: \(error.message)\n")
            return error.kind == .usage ? 64 : 2
        }
    }

    /// The request the parsed arguments ask for, or a usage error naming the option.
    static func settings(_ parsed: ParsedArguments) throws(UsageError) -> (CompareRequest, quiet: Bool) {
        guard parsed.inputs.count == 2 else {
            throw UsageError(parsed.inputs.count < 2 ? "missing expected argument '<current>'"
                             : "Unexpected argument '\(parsed.inputs[2].displayName)' (compare takes two folders)")
        }
        let values = parsed.values
        let file = try parsed.paths[.config].map { (path) throws(UsageError) in try configFile(path) } ?? CompareConfigFile()
        var options = CompareOptions()
        var commandLine = OptionOverrides()
        commandLine.threshold = try values[.threshold].map { (text) throws(UsageError) in try fraction(text, .threshold) }
        commandLine.includeAA = parsed.flags.contains(.includeAA) ? true : nil
        commandLine.maxDiffPixels = try values[.maxDiffPixels].map { (text) throws(UsageError) in
            try CommandSettings.parseNumber(text, option: .maxDiffPixels, in: 0...Int.max)
        }
        commandLine.maxDiffRatio = try values[.maxDiffRatio].map { (text) throws(UsageError) in try fraction(text, .maxDiffRatio) }
        commandLine.allowResize = parsed.flags.contains(.allowResize) ? true : nil
        commandLine.failOnMissing = parsed.flags.contains(.failOnMissing) ? true : nil
        commandLine.ignore = try parsed.lists[.ignore].map { (texts) throws(UsageError) in
            try texts.map { (text) throws(UsageError) in
                guard let rect = parseIgnoreRectangle(text) else {
                    throw CommandSettings.invalid(.ignore, text, "expected x,y,w,h (whole numbers, w and h at least 1)")
                }
                return rect
            }
        }
        let base = PairOptions().applying(file.defaults).applying(commandLine)
        (options.diff, options.limits, options.ignore) = (base.diff, base.limits, base.ignore)
        options.diff.colorManagement = parsed.flags.contains(.colorManagement)
        options.rules = file.rules
        options.paths = try CommandSettings.globs(parsed, .paths)
        options.maskDirectory = parsed.paths[.maskDir] ?? file.maskDir.map(RawPath.init)
        options.showUnchanged = parsed.flags.contains(.showUnchanged) || file.showUnchanged == true
        if let text = values[.jobs] { options.jobs = try CommandSettings.parseNumber(text, option: .jobs, in: 1...1024) }
        if let value = file.maxPixels { options.maxPixels = value }
        if let text = values[.maxPixels] {
            options.maxPixels = try CommandSettings.parseNumber(text, option: .maxPixels, in: 1...(Int(Int32.max) * Int(Int32.max)))
        }
        if let value = file.pageHeight { options.paging.maxHeight = value }
        if let text = values[.pageHeight] {
            options.paging.maxHeight = try CommandSettings.parseNumber(text, option: .pageHeight, in: 0...Int(Int32.max))
        }
        var request = CompareRequest(baseline: parsed.inputs[0], current: parsed.inputs[1],
                                     output: try CommandSettings.pngOutput(parsed, default: "review.png"), report: parsed.paths[.report],
                                     options: options)
        request.html = parsed.paths[.html]
        request.overwrite = parsed.flags.contains(.overwrite)
        request.junit = parsed.paths[.junit]
        request.markdown = parsed.paths[.markdown]
        request.linkBase = values[.linkBase]
        if request.linkBase != nil && request.markdown == nil { throw UsageError("'--link-base' needs '--markdown'") }
        if let text = values[.updateBaseline] {
            guard let mode = BaselineUpdateMode(rawValue: text) else {
                throw CommandSettings.invalid(.updateBaseline, text, "expected \(BaselineUpdateMode.wordList)")
            }
            request.update = BaselineUpdate(mode: mode, dryRun: parsed.flags.contains(.dryRun))
        } else if parsed.flags.contains(.dryRun) {
            throw UsageError("'--dry-run' needs '--update-baseline'")
        }
        return (request, parsed.flags.contains(.quiet))
    }

    /// The `--config` file, or a usage error naming the file, the key's place, line and column.
    static func configFile(_ path: RawPath) throws(UsageError) -> CompareConfigFile {
        let descriptor = path.open(O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            throw UsageError("cannot read the config file \(path.displayName): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size <= 1 << 20 else {
            throw UsageError("the config file \(path.displayName) is not a regular file of at most 1 MiB")
        }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        var offset = 0
        while offset < bytes.count {
            let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + offset, $0.count - offset, off_t(offset)) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { throw UsageError("cannot read the config file \(path.displayName)") }
            offset += got
        }
        do {
            return try CompareConfigFile(bytes: bytes)
        } catch {
            throw UsageError("\(path.displayName): \(error.description)")
        }
    }


    /// A decimal number from 0 to 1 (`0`, `0.1`, `.05`, `1`), no sign, exponent or spaces.
    static func fraction(_ text: String, _ key: OptionSpec.Key) throws(UsageError) -> Double {
        let digits = text.utf8.filter { $0 >= 0x30 && $0 <= 0x39 }.count
        let dots = text.utf8.filter { $0 == UInt8(ascii: ".") }.count
        guard digits > 0, dots <= 1, digits + dots == text.utf8.count, let value = Double(text.hasPrefix(".") ? "0" + text : text) else {
            throw CommandSettings.invalid(key, text, "expected a number from 0 to 1")
        }
        guard (0...1).contains(value) else { throw CommandSettings.invalid(key, text, "must be from 0 to 1") }
        return value
    }

    static let overview = "Compare two folders of screenshots (\(ImageFormats.nameList)) on one review sheet, with CI reports and baseline updates."
    /// The arguments, as `--help` and the man page describe them.
    static let arguments = [("<baseline>", "The folder of expected images."),
                            ("<current>", "The folder of new images; files are paired by their path below each folder.")]
    /// Every exit status with its meaning, for `--help` and the man page.
    static let exitStatuses = [("0", "No pair failed."),
                               ("1", "Some pair failed (the sheet and report were still written); with --update-baseline, some "
                                + "pair still fails after the update."),
                               ("2", "Trouble: a compared folder is missing or an output cannot be written (nothing written)."),
                               ("64", "Usage error (as for a render: also a missing output folder, an output on a file Masonry "
                                + "did not write, an output inside either compared folder).")]

    static var help: String {
        var lines = ["OVERVIEW: \(overview)", "", "USAGE: \(usage)", "", "ARGUMENTS:"]
        lines += arguments.map(HelpText.row) + ["", "OPTIONS:"]
        lines += HelpText.optionRows(compareOptionTable)
        lines += ["", "EXAMPLES:", "  Review two folders; fail CI on a change; write reports for CI.",
                  "    $ masonry compare baseline current -o review.png --junit junit.xml --markdown summary.md",
                  "  Accept the current screenshots as the new baseline (see first with --dry-run).",
                  "    $ masonry compare baseline current --update-baseline --dry-run"]
        lines += ["", "EXIT STATUS:"] + exitStatuses.map(HelpText.row)
        return lines.joined(separator: "\n") + "\n"
    }
}
