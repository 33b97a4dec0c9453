import CompareConfig
#if canImport(Glibc)
import Glibc
#endif
import GalleryPage
import ImageDiff
import CodecCore
import PNGCodec
import WorkerThreads

/// Everything that decides a compare's verdicts and files, plus how hard to work on them.
public struct CompareOptions: Sendable {
    /// pixelmatch's threshold and `--include-aa`.
    public var diff = DiffOptions()
    /// When a pair fails: `--max-diff-pixels`, `--max-diff-ratio`, `--allow-resize`, `--fail-on-missing`.
    public var limits = CompareLimits()
    /// `--ignore` rectangles, for every pair.
    public var ignore: [PixelRect] = []
    /// The config file's rules (SPEC §9), applied over `diff`, `limits` and `ignore` for the
    /// paths they match.
    public var rules: [PathRule] = []
    /// `--mask-dir`: a folder of mask images, one per pair at its relative path.
    public var maskDirectory: RawPath?
    /// `--paths`: when not empty, only pairs whose relative path matches one of these are compared.
    public var paths: [PathGlob] = []
    /// Draw unchanged pairs on the review sheet too.
    public var showUnchanged = false
    /// Threads; changes speed only, never bytes.
    public var jobs: Int = ProcessorCount.available
    /// Images with more pixels are `error`s; a pair's canvas with more is not drawn pixel by pixel.
    public var maxPixels: Int = DecodeLimits.defaultMaxPixels
    public var paging = PagingOptions()
    public var compression: PNGEncodingSettings = .default
    public var maxMemory: Int = 1 << 30

    public init() {}

    /// Every pair's options: these, then the rules.
    public var optionRules: OptionRules {
        OptionRules(base: PairOptions(diff: diff, limits: limits, ignore: ignore), rules: rules)
    }
}

/// Two folders to compare and the files to write.
public struct CompareRequest: Sendable {
    public var baseline: RawPath
    public var current: RawPath
    /// The review sheet (paged as SPEC §6: `review-001.png`, … when it needs several pages).
    public var output: RawPath
    public var report: RawPath?
    /// The HTML review page (SPEC §11), written whenever the report is (exit 0 or 1).
    public var html: RawPath?
    /// `--junit`: the JUnit XML of every pair.
    public var junit: RawPath?
    /// `--markdown`: the GitHub-flavoured summary; `linkBase` makes each path a link into the
    /// uploaded review page (`linkBase#pair-N`).
    public var markdown: RawPath?
    public var linkBase: String?
    /// `--update-baseline`: applied after every output was written.
    public var update: BaselineUpdate?
    /// `--overwrite`: replace an existing file at an output path even when Masonry did not write it.
    public var overwrite = false
    public var options: CompareOptions

    public init(baseline: RawPath, current: RawPath, output: RawPath = RawPath("review.png"), report: RawPath? = nil,
                options: CompareOptions = CompareOptions()) {
        self.baseline = baseline
        self.current = current
        self.output = output
        self.report = report
        self.options = options
    }
}

/// How many pairs ended in each status, and how many failed.
public struct CompareSummary: Sendable, Hashable {
    public let counts: [PairStatus: Int]
    public let failed: Int

    init(_ results: [PairResult]) {
        counts = Dictionary(grouping: results, by: \.verdict.status).mapValues(\.count)
        failed = results.filter(\.verdict.failed).count
    }

    /// `3 changed, 1 resized, 1 added, 1 removed, 14 unchanged; 4 failed` (statuses with no pair
    /// are left out; errors come last, as `1 error`/`2 errors`).
    public var line: String {
        let order: [PairStatus] = [.changed, .resized, .added, .removed, .unchanged]
        var parts = order.compactMap { status in counts[status].map { "\($0) \(status.rawValue)" } }
        if let errors = counts[.error] { parts.append(errors == 1 ? "1 error" : "\(errors) errors") }
        return (parts.isEmpty ? "no image files" : parts.joined(separator: ", ")) + "; \(failed) failed"
    }
}

/// The result of a compare that wrote its files.
public struct CompareOutcome: Sendable {
    public let summary: CompareSummary
    /// Every pair, in the sheet's (and the report's) order.
    public let items: [PairResult]
    /// The review pages written, with their sizes.
    public let written: [(file: RawPath, width: Int, height: Int)]
    /// Pairs drawn on the review sheet (the first ones of `items`).
    public let drawn: Int
    /// What `--update-baseline` did (or, with `--dry-run`, would do), one entry per file.
    public let baselineChanges: [BaselineChange]

    /// Pairs that still fail once the baseline was updated (as `summary.failed` without an
    /// update or in a dry run): a pair whose file was copied or deleted passes.
    public var failedAfterUpdate: Int {
        let fixed = Set(baselineChanges.filter(\.fixesPair).map(\.relativePath))
        return items.filter { $0.verdict.failed && !fixed.contains($0.relativePath) }.count
    }
}

/// `masonry compare`: pair, judge, plan, paint, publish (SPEC §9).
///
/// Judging comes first, over every pair in parallel, and only counts (no picture): the sheet's
/// order (failing pairs first) and paging need every verdict before the first tile is placed.
/// Painting then decodes the drawn pairs again, both sides in one lockstep pass that fills the
/// baseline, current and difference panels together. Pairs drawn are usually few (byte-identical
/// pairs are never decoded, unchanged ones are not drawn), so the second decode costs little;
/// keeping every difference picture from the first pass instead would hold memory in proportion
/// to the number of changed pairs.
public enum ComparePipeline {
    /// Compares the folders and writes the review sheet and report (committed together, after
    /// everything succeeded). Throws `SheetError` when nothing could be written: a missing
    /// folder, bad paging options, or an unwritable output.
    public static func run(_ request: CompareRequest, events: @escaping @Sendable (SheetEvent) -> Void = { _ in })
        throws(SheetError) -> CompareOutcome {
        let options = request.options
        let outputs = [request.output] + [request.report, request.html, request.junit, request.markdown].compactMap { $0 }
        try OutputSafety.check(outputs: outputs, inputs: [])
        // Before any picture is read: every output can be written, lies outside both folders
        // (the baseline and current files are never written; an output there would be paired
        // on the next run) and replaces no user's file.
        let named = [("-o", request.output)] + [("--report", request.report), ("--html", request.html),
                                                ("--junit", request.junit), ("--markdown", request.markdown)]
            .compactMap { what, path in path.map { (what, $0) } }
        try OwnOutput.requireFolders(named)
        try OwnOutput.refuseInside(named, folders: [("baseline", request.baseline), ("current", request.current)])
        try OwnOutput.refuseForeign(named, overwrite: request.overwrite)
        // Earlier outputs are never compared: the review sheet, the report, and pages of an earlier run.
        let excluded = outputs + Planner.existingPageFiles(output: request.output)
        if let masks = options.maskDirectory, (masks.status()?.st_mode ?? 0) & S_IFMT != S_IFDIR {
            throw SheetError("the mask folder \(masks.displayName) does not exist or is not a folder")
        }
        let pairs = try ComparePairing.pairs(baseline: request.baseline, current: request.current, excluding: excluded)
            .filter { pair in options.paths.isEmpty || options.paths.contains { $0.matches(pair.relativePath.bytes) } }
        let rules = options.optionRules
        let pixelLimits = DecodeLimits(maxPixels: options.maxPixels)
        // Opens inputs of any path length; running out of descriptors fails the run, never a pair.
        let opener = InputOpener()
        let judged = parallelMap(count: pairs.count, jobs: options.jobs) { index in
            PairJudging.judge(pairs[index], pixelLimits: pixelLimits, options: rules.options(for: pairs[index].relativePath.bytes),
                              maskDirectory: options.maskDirectory, opener: opener)
        }
        try opener.checkRun()
        let items = ComparePlanner.sheetOrder(judged)
        let shown = Array(items.prefix { options.showUnchanged || $0.verdict.status != .unchanged })
        let plan = try ComparePlanner.plan(shown, pairs: items.count, options: options, output: request.output)
        try OwnOutput.refuseForeign(plan.pages.map { (plan.pages.count == 1 ? "-o" : "page \($0.number)", $0.file) },
                                    overwrite: request.overwrite)
        let windows = try PageRendering.windows(for: plan.pages, plan: plan, jobs: options.jobs, maxMemory: options.maxMemory,
                                                advice: "use a smaller --page-height")

        let publisher = Publisher()
        do throws(SheetError) {
            let total = shown.count
            if total > 0 { events(.started(total: total)) }
            let done = ProgressCounter(total: total, events: events)
            let (outcomes, written) = try PageRendering.render(
                plan.pages, windows: windows, plan: plan, painter: TilePainter(plan: plan, limits: pixelLimits, opener: opener, cache: nil),
                publisher: publisher, jobs: options.jobs, compression: options.compression) { done.increment() }
            try opener.checkRun()
            for (index, item) in shown.enumerated() {
                if case .failed(let reason) = outcomes[index] {
                    events(.warning(SkippedInput(path: item.relativePath, reason: "not drawn: \(reason)")))
                }
            }
            let summary = CompareSummary(items)
            if let html = request.html {
                let page = HTMLPage.render(Review(plan: plan, summary: summary, items: items), htmlPath: html.bytes)
                try publisher.open(html).write(Array(page.utf8))
            }
            if let report = request.report {
                let text = CompareReport(options: options, summary: summary, plan: plan, items: items).json()
                try publisher.open(report).write(Array(text.utf8))
            }
            if let junit = request.junit {
                try publisher.open(junit).write(Array(JUnitReport.xml(items: items, baseline: request.baseline, current: request.current).utf8))
            }
            if let markdown = request.markdown {
                try publisher.open(markdown).write(Array(MarkdownReport.text(items: items, summary: summary, linkBase: request.linkBase).utf8))
            }
            try publisher.commitAll()
            // Only once every output is in place: a run that failed leaves the baseline untouched.
            let changes = request.update.map { BaselineUpdater.apply($0, items: items, baseline: request.baseline) } ?? []
            return CompareOutcome(summary: summary, items: items, written: written, drawn: shown.count, baselineChanges: changes)
        } catch {
            publisher.discardAll()
            throw error
        }
    }
}
