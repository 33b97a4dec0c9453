import CodecCore
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import MasonrySheet
import WorkerThreads
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The `masonry` command: parses arguments, runs the sheet pipeline, prints
/// one line per skipped input and one summary line, and returns an
/// `ExitStatus` (SPEC §3).
public enum MasonryCommand {
    public static let version = MasonryVersion.current
    /// Below this column width (px) a tile shows no recognisable picture: the run warns.
    static let usefulColumnWidth = 8

    /// Runs the command with the given arguments (without the program name),
    /// as raw bytes so paths that are not UTF-8 survive.
    public static func run(arguments: [[UInt8]], output: Terminal = .standard) -> Int32 {
        // `masonry help` and `masonry help compare`, as `git help` (a folder named help is `./help`).
        if arguments.first == Array("help".utf8) && arguments.count <= 2 {
            if arguments.count == 1 { output.standardOutput(HelpText.full); return ExitStatus.written.rawValue }
            if arguments[1] == Array("compare".utf8) { output.standardOutput(CompareCommand.help); return ExitStatus.written.rawValue }
        }
        if arguments.first == Array("compare".utf8) {
            return CompareCommand.run(arguments: Array(arguments.dropFirst()), output: output)
        }
        if arguments.first == Array("index".utf8) {
            return PlanCommand.index(arguments: Array(arguments.dropFirst()), output: output)
        }
        if let status = GeneratedDocs.run(arguments, output: output) { return status }
        let action: CommandAction
        var request: SheetRequest
        let settings: OutputSettings
        do {
            action = try ArgumentParser.parse(arguments)
            guard case .render(let parsed) = action else {
                output.standardOutput(action == .help ? HelpText.full : "masonry \(version)\n")
                return ExitStatus.written.rawValue
            }
            if let path = parsed.paths[.fromPlan] {
                try PlanCommand.checkPageOptions(parsed)
                let plan: PlanFile
                do throws(SheetError) { plan = try PlanFile.read(path) } catch {
                    output.standardError("masonry: error: \(error.message)\n")
                    return ExitStatus.nothingWritten.rawValue
                }
                (request, settings) = try PlanCommand.pageRequest(parsed, plan: plan)
            } else {
                (request, settings) = try CommandSettings.make(from: parsed)
            }
        } catch {
            output.standardError(usageFailure(error.message, usage: HelpText.usage, help: "masonry --help"))
            return ExitStatus.usage.rawValue
        }

        // A column too narrow to show a picture is allowed (the layout works) but surely not meant.
        if let narrowest = request.options.layout.columnWidths.min(), narrowest < usefulColumnWidth, !settings.quiet {
            let layout = request.options.layout
            output.standardError("masonry: warning: columns of \(narrowest) px (--width \(layout.width), \(layout.columns) "
                                 + "columns) are too narrow to show a picture; use fewer --columns or a larger --width\n")
        }
        // `-o -`: the one page is written to a private temporary folder, then copied to stdout.
        var standardOutputFolder: String?
        if request.output.bytes == [UInt8(ascii: "-")] {
            var template = Array("\(getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp")/masonry-stdout-XXXXXX".utf8CString)
            guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
                output.standardError("masonry: error: cannot make a temporary folder for -o -: \(String(cString: strerror(errno)))\n")
                return ExitStatus.nothingWritten.rawValue
            }
            let folder = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            standardOutputFolder = folder
            request.output = RawPath(folder + "/sheet.png")
            request.onePageOnly = true
        }
        defer {
            if let folder = standardOutputFolder {
                unlink(folder + "/sheet.png")
                rmdir(folder)
            }
        }

        let started = DispatchTime.now()
        let showProgress = !settings.quiet && (settings.progress ?? output.errorIsTerminal)
        let progress = ProgressBar(output: output, enabled: showProgress)
        let events: @Sendable (SheetEvent) -> Void = { event in
            switch event {
            case .skipped(let skip):
                // A skip that makes the run incomplete is an error: printed even with --quiet.
                if settings.strict || skip.isUnusableArgument {
                    progress.printLine("masonry: error: skipped \(skip.path.displayName): \(skip.reason)")
                } else if !settings.quiet {
                    progress.printLine("masonry: skipped \(skip.path.displayName): \(skip.reason)")
                }
            case .warning(let warning):
                if !settings.quiet { progress.printLine("masonry: warning: \(warning.path.displayName): \(warning.reason)") }
            case .started(let total): progress.start(total: total)
            case .progress(let done, let total): progress.update(done: done, total: total)
            }
        }
        do {
            let report = try SheetPipeline.run(request, events: events)
            progress.finish()
            if let folder = standardOutputFolder, !report.written.isEmpty {
                guard let bytes = WholeFile.read(folder + "/sheet.png"), Terminal.writeAll(1, bytes) else {
                    output.standardError("masonry: error: cannot write the sheet to standard output: \(String(cString: strerror(errno)))\n")
                    return ExitStatus.nothingWritten.rawValue
                }
            }
            if settings.verbose && !settings.quiet {
                for warning in report.cacheWarnings { progress.printLine("masonry: cache: \(warning)") }
            }
            if !settings.quiet {
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
                let others = report.otherFilesIgnored == 0 ? ""
                    : report.otherFilesIgnored == 1 ? "1 other file ignored, " : "\(report.otherFilesIgnored) other files ignored, "
                let line = summary(of: report, request: request)
                let shown = standardOutputFolder == nil ? line
                    : line.replacing(request.output.displayName, with: "standard output")
                output.standardError("masonry: \(shown), "
                    + "\(report.skipped.count) skipped, \(others)\(fixedPoint(seconds, places: 2)) s\n")
            }
            let incomplete = report.skipped.contains { $0.isUnusableArgument } || (settings.strict && !report.skipped.isEmpty)
            return (incomplete ? ExitStatus.incomplete : .written).rawValue
        } catch {
            progress.finish()
            output.standardError("masonry: error: \(error.message)\n")
            return ExitStatus(error).rawValue
        }
    }

    /// A usage error as printed: `masonry: error: <reason>`, the usage line, and where help is.
    static func usageFailure(_ message: String, usage: String, help: String) -> String {
        "masonry: error: \(message)\nUsage: \(usage)\n  See '\(help)' for more information.\n"
    }

    /// What was written, for the summary line: `wrote sheet.png (1200×3046): 33 images`,
    /// `wrote 3 of 3 pages sheet-001.png … sheet-003.png (1200×≤16384): 2157 images`, or
    /// `planned 3 pages in plan.json: 2157 images`.
    static func summary(of report: SheetReport, request: SheetRequest) -> String {
        let images = (report.rendered == 1 ? "1 image" : "\(report.rendered) images")
            + (report.fromCache > 0 ? " (\(report.fromCache) from the cache)" : "")
        let pages = report.pageCount == 1 ? "1 page" : "\(report.pageCount) pages"
        guard let first = report.written.first, let last = report.written.last else {
            let file = request.planFile?.path ?? request.manifest ?? request.html
            return "planned \(pages) in \(file?.displayName ?? "the manifest"): \(images)"
        }
        if report.written.count == 1 {
            let of = report.pageCount > 1 ? "page \(request.page ?? 1) of \(report.pageCount), " : ""
            return "wrote \(of)\(first.file.displayName) (\(first.width)×\(first.height)): \(images)"
        }
        let tallest = report.written.map(\.height).max() ?? 0
        return "wrote \(pages) \(first.file.displayName) … \(last.file.displayName) (\(first.width)×≤\(tallest)): \(images)"
    }
}

/// Where the command writes: the process's stdout and stderr, or a capture in tests.
public struct Terminal: Sendable {
    public let standardOutput: @Sendable (String) -> Void
    public let standardError: @Sendable (String) -> Void
    public let errorIsTerminal: Bool

    public init(standardOutput: @escaping @Sendable (String) -> Void, standardError: @escaping @Sendable (String) -> Void,
                errorIsTerminal: Bool) {
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.errorIsTerminal = errorIsTerminal
    }

    /// The process's file descriptors 1 and 2. Write errors (a closed stream, a reader that went
    /// away) are ignored: a message that cannot be shown must not stop or crash the run.
    public static let standard = Terminal(
        standardOutput: { text in writeAll(1, text) },
        standardError: { text in writeAll(2, text) },
        errorIsTerminal: isatty(2) == 1)

    private static func writeAll(_ descriptor: Int32, _ text: String) {
        _ = writeAll(descriptor, Array(text.utf8))
    }

    /// Writes every byte to the descriptor; false when a write fails.
    static func writeAll(_ descriptor: Int32, _ all: [UInt8]) -> Bool {
        var bytes = all[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            bytes = bytes.dropFirst(written)
        }
        return true
    }
}

/// A one-line progress bar on stderr: images done/total, rate, time left.
/// Redrawn at most ten times a second; other lines are printed above it.
final class ProgressBar: Sendable {
    /// What the bar last did: when it started and drew, and whether it is on screen.
    private struct State {
        var start = DispatchTime.now().uptimeNanoseconds
        var lastDraw: UInt64 = 0
        var visible = false
    }

    private let state = Lock(State())
    private let output: Terminal
    private let enabled: Bool

    init(output: Terminal, enabled: Bool) {
        self.output = output
        self.enabled = enabled
    }

    func start(total: Int) {
        state.withLock { $0.start = DispatchTime.now().uptimeNanoseconds }
        update(done: 0, total: total)
    }

    func update(done: Int, total: Int) {
        guard enabled else { return }
        state.withLock { state in
            let now = DispatchTime.now().uptimeNanoseconds
            guard done == total || now - state.lastDraw > 100_000_000 else { return }
            state.lastDraw = now
            let elapsed = Double(now - state.start) / 1e9
            let rate = elapsed > 0 ? Double(done) / elapsed : 0
            let left = rate > 0 ? Double(total - done) / rate : 0
            let width = 30
            let filled = total > 0 ? width * done / total : width
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            output.standardError("\r\u{1B}[K[\(bar)] \(done)/\(total) images  \(fixedPoint(rate, places: 1))/s  \(Self.duration(left)) left")
            state.visible = true
        }
    }

    func printLine(_ line: String) {
        state.withLock { state in
            output.standardError((state.visible ? "\r\u{1B}[K" : "") + line + "\n")
            state.visible = false
        }
    }

    func finish() {
        state.withLock { state in
            if state.visible { output.standardError("\r\u{1B}[K") }
            state.visible = false
        }
    }

    private static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        return whole >= 60 ? "\(whole / 60)m\(whole % 60 < 10 ? "0" : "")\(whole % 60)s" : "\(whole)s"
    }
}

/// `value` (not negative) rounded to `places` decimals, as `%.Nf` prints it ("0.25", "12.0"):
/// FoundationEssentials has no `String(format:)`.
func fixedPoint(_ value: Double, places: Int) -> String {
    var scale = 1
    for _ in 0..<places { scale *= 10 }
    let scaled = Int((max(0, value) * Double(scale)).rounded())
    let fraction = String(scaled % scale)
    return places == 0 ? "\(scaled)" : "\(scaled / scale)." + String(repeating: "0", count: places - fraction.count) + fraction
}
