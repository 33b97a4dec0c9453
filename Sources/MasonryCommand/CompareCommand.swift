import Foundation
import ImageDiff
import MasonrySheet

/// Every option of `masonry compare`, in help order (parsed by `ArgumentParser` like a render's).
let compareOptionTable: [OptionSpec] = [
    .init(key: .output, short: "o", long: "output", value: "path",
          help: "The review sheet to write (pages as for a render: review-001.png, ...).", defaultText: "review.png"),
    .init(key: .report, short: nil, long: "report", value: "path.json",
          help: "Also write a JSON report of every pair.", defaultText: nil),
    .init(key: .html, short: nil, long: "html", value: "path.html",
          help: "Also write an HTML review page: summary, a status filter, and per pair side by side, difference "
              + "and a slider between baseline and current.", defaultText: nil),
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
          help: "Judge pairs whose sizes differ as changed ones instead of failing them.", defaultText: nil),
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
    .init(key: .help, short: "h", long: "help", value: nil, help: "Show help information.", defaultText: nil),
]

/// `masonry compare BASELINE CURRENT [options]` (SPEC §9): prints one line per pair in error
/// and a summary line, and exits as diff(1) does: 0 no pair failed, 1 some failed (everything
/// was written), 2 trouble (nothing written), 64 usage.
enum CompareCommand {
    static let usage = "masonry compare <baseline> <current> [<options>]"

    static func run(arguments: [[UInt8]], output: Terminal) -> Int32 {
        let request: CompareRequest
        let quiet: Bool
        do {
            let action = try ArgumentParser.parse(arguments, table: compareOptionTable, inputs: "<baseline> <current>")
            guard case .render(let parsed) = action else {
                output.standardOutput(help)
                return 0
            }
            (request, quiet) = try settings(parsed)
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
                output.standardError("masonry: \(outcome.summary.line)\n")
            }
            return outcome.summary.failed > 0 ? 1 : 0
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
        var options = CompareOptions()
        options.diff.threshold = try values[.threshold].map { (text) throws(UsageError) in try fraction(text, .threshold) } ?? 0.1
        options.diff.includeAA = parsed.flags.contains(.includeAA)
        options.diff.colorManagement = parsed.flags.contains(.colorManagement)
        options.limits.maxDiffPixels = try values[.maxDiffPixels].map { (text) throws(UsageError) in
            try CommandSettings.parseNumber(text, option: .maxDiffPixels, in: 0...Int.max)
        } ?? 0
        options.limits.maxDiffRatio = try values[.maxDiffRatio].map { (text) throws(UsageError) in try fraction(text, .maxDiffRatio) } ?? 0
        options.limits.allowResize = parsed.flags.contains(.allowResize)
        options.limits.failOnMissing = parsed.flags.contains(.failOnMissing)
        options.showUnchanged = parsed.flags.contains(.showUnchanged)
        if let text = values[.jobs] { options.jobs = try CommandSettings.parseNumber(text, option: .jobs, in: 1...1024) }
        if let text = values[.maxPixels] {
            options.maxPixels = try CommandSettings.parseNumber(text, option: .maxPixels, in: 1...(Int(Int32.max) * Int(Int32.max)))
        }
        if let text = values[.pageHeight] {
            options.paging.maxHeight = try CommandSettings.parseNumber(text, option: .pageHeight, in: 0...Int(Int32.max))
        }
        var request = CompareRequest(baseline: parsed.inputs[0], current: parsed.inputs[1],
                                     output: try CommandSettings.pngOutput(parsed, default: "review.png"), report: parsed.paths[.report],
                                     options: options)
        request.html = parsed.paths[.html]
        return (request, parsed.flags.contains(.quiet))
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

    static var help: String {
        var lines = ["OVERVIEW: Compare two folders of PNG screenshots on one review sheet.", "",
                     "USAGE: \(usage)", "", "ARGUMENTS:",
                     HelpText.row("<baseline>", "The folder of expected images."),
                     HelpText.row("<current>", "The folder of new images; files are paired by their path below each folder."),
                     "", "OPTIONS:"]
        lines += HelpText.optionRows(compareOptionTable)
        lines += ["", "EXIT STATUS:",
                  HelpText.row("0", "No pair failed."),
                  HelpText.row("1", "Some pair failed (the sheet and report were still written)."),
                  HelpText.row("2", "Trouble: a folder is missing or an output cannot be written (nothing written)."),
                  HelpText.row("64", "Usage error.")]
        return lines.joined(separator: "\n") + "\n"
    }
}
