import ColorManagement
import CompareConfig
import GalleryPage
import WaterfallLayout
import CodecCore
import PNGCodec
import Raster
import TileCache
import WorkerThreads

/// Everything that decides a sheet's bytes, plus how hard to work on it.
public struct SheetOptions: Sendable {
    public var layout: LayoutConfiguration
    public var background: RGBA8Color = .white
    public var order: InputOrder = .natural
    public var reverse = false
    public var recursive = false
    /// Decoding threads; changes speed only, never bytes.
    public var jobs: Int = ProcessorCount.available
    public var maxPixels: Int = DecodeLimits.defaultMaxPixels
    public var compression: PNGEncodingSettings = .default
    /// How the wall is cut into pages (SPEC §6).
    public var paging = PagingOptions()
    /// Captions, tile background, frame and enlarging (SPEC §7).
    public var style = TileStyle()
    /// A band at the top of every page with this text (and "page k of n" when paged).
    public var title: String?
    /// One section per folder, each under a header band (SPEC §6).
    public var sections = false
    /// The most memory painting may hold at once (SPEC §5); a plan that needs more is refused
    /// before anything is allocated, naming the option to change.
    public var maxMemory: Int = 1 << 30
    /// Where thumbnails are kept between runs (SPEC §10), or nil for no cache.
    public var cache: RawPath?
    /// The cache's bound in bytes: least recently used thumbnails are evicted at the end of a run.
    public var cacheMaxBytes: Int = 1 << 30
    /// Convert every picture with colour information to sRGB (`--no-color-management`: false,
    /// samples as stored, byte-identical sheets to before colour management).
    public var colorManagement = true

    public init(layout: LayoutConfiguration) { self.layout = layout }
}

/// What to render and where to write it.
public struct SheetRequest: Sendable {
    public var inputs: [RawPath]
    public var output: RawPath
    public var manifest: RawPath?
    public var options: SheetOptions
    /// Paint only this page (1-based) of the plan: the same file, name and bytes as in a full run.
    public var page: Int?
    /// Read headers and write the manifest (and HTML page) only; decode no pixel and write no page.
    public var planOnly = false
    /// Also write an HTML gallery page over the pages (SPEC §11).
    public var html: RawPath?
    /// `--overwrite`: replace an existing file at an output path even when Masonry did not
    /// write it (by default such a run is refused, SPEC §5).
    public var overwrite = false
    /// `--include`: when not empty, only files found in folders whose path below their folder
    /// argument matches one of these are read (files named directly always are).
    public var include: [PathGlob] = []
    /// `--exclude`: files found in folders whose path below their folder argument matches one of these are left out.
    public var exclude: [PathGlob] = []
    /// `-o -`: the plan must have one page (or `page` must be given), written to standard output
    /// by the caller from `output`.
    public var onePageOnly = false
    /// With `planOnly`: also write the plan file here, recording `settings` (the words that
    /// decide the pages' bytes) for the runs that paint from it (SPEC §15).
    public var planFile: (path: RawPath, settings: [[UInt8]])?
    /// Take the images from this plan instead of scanning the inputs and reading their headers;
    /// each input of a page to paint is checked against what the plan recorded first.
    public var fromPlan: PlanFile?
    /// With `fromPlan`: an input that changed since planning is read again and drawn in its
    /// planned tile (a warning says so), instead of stopping the run.
    public var replanChanged = false
    /// With `fromPlan`: paint nothing and write the manifest and HTML page a one-machine run
    /// writes beside its pages (`masonry index`).
    public var gatherOnly = false

    public init(inputs: [RawPath], output: RawPath, manifest: RawPath? = nil, options: SheetOptions) {
        self.inputs = inputs
        self.output = output
        self.manifest = manifest
        self.options = options
    }
}

/// Something the pipeline tells its caller while it runs.
public enum SheetEvent: Sendable {
    /// An input was left out (one warning line).
    case skipped(SkippedInput)
    /// An input was drawn but has a problem worth a warning.
    case warning(SkippedInput)
    /// Layout is done: `total` images will be drawn.
    case started(total: Int)
    /// One more image was drawn (or failed) of `total`.
    case progress(done: Int, total: Int)
}

/// The result of a run that wrote a sheet.
public struct SheetReport: Sendable {
    /// The page files written, with their sizes (none for `--plan-only`).
    public let written: [(file: RawPath, width: Int, height: Int)]
    /// The number of pages in the plan.
    public let pageCount: Int
    /// Pictures drawn (with `--plan-only`: planned).
    public let rendered: Int
    /// Pictures drawn from the thumbnail cache.
    public let fromCache: Int
    /// Files in scanned folders that were not images by name, so not read.
    public let otherFilesIgnored: Int
    /// What the cache could not do (damaged entries replaced, stores that failed), for `--verbose`.
    public let cacheWarnings: [String]
    public let skipped: [SkippedInput]
}

/// The whole job: scan, sort, read headers, lay out, draw, encode, write.
public enum SheetPipeline {
    /// Renders the sheet (and manifest) for `request`. Throws `SheetError`
    /// when nothing could be written: no renderable image, bad layout
    /// options, or an unwritable output. The output files are replaced
    /// atomically or left untouched.
    public static func run(_ request: SheetRequest, events: @escaping @Sendable (SheetEvent) -> Void = { _ in }) throws(SheetError) -> SheetReport {
        try run(request, rows: nil, events: events).report
    }

    /// `run`, returning the plan too; with `rows`, each page's rows go to that closure instead of
    /// a PNG file (the manifest and HTML page are still written when the request names them).
    static func run(_ request: SheetRequest, rows: ((SheetRow) -> Void)?,
                    events: @escaping @Sendable (SheetEvent) -> Void) throws(SheetError) -> (plan: SheetPlan, report: SheetReport) {
        let options = request.options
        // Before any input is read (the scan only lists folders): every output's folder exists.
        let named = [("-o", request.output)] + [request.manifest.map { ("--manifest", $0) }, request.html.map { ("--html", $0) }]
            .compactMap { $0 }
        let writesPages = !request.planOnly && !request.gatherOnly && rows == nil
        let checked = writesPages ? named : Array(named.dropFirst())
        try OwnOutput.requireFolders(checked + [request.planFile.map { ("--plan", $0.path) }].compactMap { $0 })
        let limits = DecodeLimits(maxPixels: options.maxPixels)
        // Opens inputs of any path length; running out of descriptors fails the run, never a file.
        let opener = InputOpener()
        var inputs: InputSet
        if let planned = request.fromPlan {
            inputs = InputSet(planned)
        } else {
            inputs = try scanned(request, checked: checked, limits: limits, opener: opener, events: events)
        }
        if request.fromPlan != nil { try OwnOutput.refuseForeign(checked, overwrite: request.overwrite) }
        var images = inputs.images
        var skipped = inputs.skipped
        var sections = inputs.sections
        if options.sections && request.fromPlan == nil {
            (images, sections) = Self.grouped(images, candidates: inputs.candidates, arguments: request.inputs)
        }
        let paintsNothing = request.planOnly || request.gatherOnly
        var plan = try Planner.plan(images: images, sections: sections, options: options, output: request.output,
                                    painting: { number in !paintsNothing && (request.page.map { $0 == number + 1 } ?? true) })
        // The plan holds the images now; one reference, so painting from a plan file can put its
        // page's headers in without copying a million entries.
        images = []
        inputs.images = []
        if request.onePageOnly && request.page == nil && plan.pages.count > 1 {
            throw SheetError(.usage, "-o - writes one page, and this plan has \(plan.pages.count): add --page-height 0 "
                             + "(one page, however tall) or --page K")
        }
        if writesPages {
            let written = request.page.map { number in plan.pages.filter { $0.number == number } } ?? plan.pages
            try OwnOutput.refuseForeign(written.map { (plan.pages.count == 1 ? "-o" : "page \($0.number)", $0.file) },
                                        overwrite: request.overwrite)
        }
        let pages: [PagePlan]
        if let number = request.page {
            guard (1...plan.pages.count).contains(number) else {
                throw SheetError(.usage, "--page \(number) is out of range: the plan has \(plan.pages.count) "
                                 + (plan.pages.count == 1 ? "page" : "pages"))
            }
            pages = [plan.pages[number - 1]]
        } else {
            pages = paintsNothing ? [] : plan.pages
        }
        var candidates = inputs.candidates
        if request.fromPlan != nil {
            candidates = try PlanCheck.verify(pages: pages, of: &plan, limits: limits, opener: opener,
                                              replanChanged: request.replanChanged, jobs: options.jobs, events: events)
        }
        try OutputSafety.check(outputs: plan.pages.map(\.file) + [request.manifest, request.html, request.planFile?.path].compactMap { $0 },
                               inputs: candidates)
        let windows = try PageRendering.windows(
            for: pages, plan: plan, jobs: options.jobs, maxMemory: options.maxMemory,
            advice: "use a smaller --width, more columns, a smaller --max-tile-aspect")

        let publisher = Publisher()
        do throws(SheetError) {
            let total = pages.reduce(0) { $0 + $1.tiles.count }
            if !pages.isEmpty { events(.started(total: total)) }
            let counter = ProgressCounter(total: total, events: events)
            var cache: ThumbnailCache?
            if let directory = options.cache, !pages.isEmpty {
                do throws(ThumbnailCacheError) {
                    cache = try ThumbnailCache(directory: directory.bytes, maxBytes: options.cacheMaxBytes)
                } catch {
                    events(.warning(SkippedInput(path: directory, reason: "cannot use it as the cache: \(error.reason); running without it")))
                }
            }
            let painter = TilePainter(plan: plan, limits: limits, opener: opener, cache: cache,
                                      colors: options.colorManagement ? ColorTransformCache() : nil)
            let target = rows.map(PageTarget.rows) ?? .files(publisher, compression: options.compression)
            let (outcomes, written) = try PageRendering.render(
                pages, windows: windows, plan: plan, painter: painter, target: target, jobs: options.jobs) { counter.increment() }
            try opener.checkRun()
            cache?.finish()

            var drawn: [PlacedTile] = []
            var decodeFailures: [SkippedInput] = []
            for page in pages {
                for index in page.tiles.compactMap(\.index).sorted() {
                    let path = plan.images[index].path
                    switch outcomes[index] ?? .failed("not drawn") {
                    case .drawn: drawn.append(plan.layout.tiles[index])
                    case .drawnWithWarning(let reason):
                        drawn.append(plan.layout.tiles[index])
                        events(.warning(SkippedInput(path: path, reason: reason)))
                    case .failed(let reason):
                        decodeFailures.append(SkippedInput(path: path, reason: reason))
                    }
                }
            }
            for failure in decodeFailures { events(.skipped(failure)) }
            skipped += decodeFailures
            guard !drawn.isEmpty || pages.isEmpty else {
                throw SheetError("no renderable images (\(skipped.count) skipped)")
            }

            if let html = request.html {
                let page = HTMLPage.render(Gallery(plan, title: options.title), htmlPath: html.bytes)
                try publisher.open(html).write(Array(page.utf8))
            }
            if let planFile = request.planFile {
                try PlanFile.write(settings: planFile.settings, plan: plan, skipped: skipped, to: publisher.open(planFile.path))
            }
            if let manifest = request.manifest {
                let version = (request.planOnly || request.page != nil) && !request.gatherOnly || plan.pages.count > 1
                    || options.paging.maxImagesPerPage > 0 || options.style.caption != nil || options.title != nil
                    || options.sections ? 2 : 1
                // `masonry index` paints nothing: its one-page manifest lists the plan's tiles, as the
                // one-machine run lists those it drew (the same when no picture failed, SPEC §15).
                let listed = version == 1 && !request.gatherOnly ? drawn : plan.layout.tiles
                let text: String
                do {
                    text = try Manifest(plan: plan, version: version, items: listed, skipped: skipped).json()
                } catch {
                    throw SheetError("cannot write the manifest: \(error)")
                }
                try publisher.open(manifest).write(Array(text.utf8))
            }
            try publisher.commitAll()
            let report = SheetReport(written: written, pageCount: plan.pages.count,
                                     rendered: pages.isEmpty ? plan.images.count : drawn.count, fromCache: cache.map { $0.hits + $0.reusedPictures } ?? 0,
                                     otherFilesIgnored: inputs.otherFiles, cacheWarnings: cache?.warnings ?? [], skipped: skipped)
            return (plan, report)
        } catch {
            publisher.discardAll()
            throw error
        }
    }

    /// `path` below the folder argument it was found under (the longest argument that is a
    /// whole-component prefix of it), for `--include` and `--exclude`.
    static func pathBelowArgument(_ path: [UInt8], arguments: [RawPath]) -> [UInt8] {
        let slash = UInt8(ascii: "/")
        let prefixes = arguments.map { argument in
            argument.bytes.last == slash ? argument.bytes : argument.bytes + [slash]
        }.filter { path.starts(with: $0) }
        guard let longest = prefixes.max(by: { $0.count < $1.count }) else { return path }
        return Array(path.dropFirst(longest.count))
    }

    /// A section's header text for `folder`, relative to the input argument it was found under
    /// (the longest argument that is a whole-component prefix of it): a relative argument as
    /// typed (`photos/2024/beach`); an absolute one by its last component, then the path below
    /// it (`testFiles/Apple/non_compliant` for `/home/me/testFiles`, never the path from the root).
    static func sectionName(_ folder: [UInt8], arguments: [RawPath]) -> [UInt8] {
        let slash = UInt8(ascii: "/")
        func trimmed(_ bytes: [UInt8]) -> [UInt8] {
            var bytes = bytes
            while bytes.count > 1 && bytes.last == slash { bytes.removeLast() }
            return bytes
        }
        let under = arguments.map { trimmed($0.bytes) }.filter { argument in
            folder == argument || (folder.starts(with: argument) && folder.count > argument.count
                                   && (argument == [slash] || folder[argument.count] == slash))
        }
        guard let argument = under.max(by: { $0.count < $1.count }), argument.first == slash else { return folder }
        var below = Array(folder.dropFirst(argument.count))
        while below.first == slash { below.removeFirst() }
        let top = RawPath(bytes: argument).lastComponent
        if top.isEmpty || top == [slash] { return below.isEmpty ? argument : below }
        return below.isEmpty ? top : top + [slash] + below
    }

    /// Why a folder gave no image: `: 6 files of formats Masonry does not read: BMP (3),
    /// TIFF (3); it reads …` (kinds by count, then name), or nothing when no file was ignored.
    static func ignoredFiles(_ kinds: [String: Int]) -> String {
        let total = kinds.values.reduce(0, +)
        guard total > 0 else { return "" }
        let listed = kinds.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
            .map { kind, count in "\(kind) (\(count))" }
        return ": \(total == 1 ? "1 file" : "\(total) files") of formats Masonry does not read by name: "
            + listed.joined(separator: ", ") + "; it reads \(ImageFormats.extensionList)"
    }

    /// The inputs of a run: found by scanning the arguments and reading every header, or taken
    /// from a plan file.
    private struct InputSet {
        var images: [PlannedImage]
        /// Already grouped (from a plan); empty when the run groups them itself.
        var sections: [PlannedSection] = []
        var skipped: [SkippedInput]
        /// The files found, in the scan's order (for `OutputSafety` and grouping, which do not
        /// depend on it); a plan's are checked page by page.
        var candidates: [InputCandidate] = []
        var otherFiles = 0

        init(images: [PlannedImage], skipped: [SkippedInput]) {
            self.images = images
            self.skipped = skipped
        }

        init(_ plan: PlanFile) {
            self.init(images: plan.images, skipped: plan.skipped)
            sections = plan.sections
        }
    }

    /// Scans the request's inputs and reads every header: the images in the run's order, and
    /// what was skipped (reported through `events`).
    /// `checked` are the named outputs an existing file of which must be Masonry's own.
    private static func scanned(_ request: SheetRequest, checked: [(String, RawPath)], limits: DecodeLimits, opener: InputOpener,
                                events: @escaping @Sendable (SheetEvent) -> Void) throws(SheetError) -> InputSet {
        let options = request.options
        let outputs = [request.output] + [request.manifest, request.html, request.planFile?.path].compactMap { $0 }
        // Earlier outputs are never read as inputs: the sheet, the manifest, and Masonry's pages of
        // an earlier run (a user's picture named like a page is an input, and is never replaced).
        var earlierPages: [RawPath] = []
        for page in Planner.existingPageFiles(output: request.output) {
            if try request.overwrite ? true : OwnOutput.isOwn(page) { earlierPages.append(page) }
        }
        var scanner = InputScanner(recursive: options.recursive, statsEveryFile: options.order.needsFileStatus,
                                   excluding: outputs + earlierPages)
        try scanner.scan(arguments: request.inputs)
        // Folder listings come in the file system's order, which differs between machines: report
        // what the scan skipped in natural order so messages and manifests are reproducible.
        var skipped = scanner.missingArguments
            + scanner.skipped.sorted { InputOrder.naturalPrecedes($0.path.bytes, $1.path.bytes) }
        var selected = scanner.takeCandidates().filter { candidate in
            guard !candidate.namedDirectly, !(request.include.isEmpty && request.exclude.isEmpty) else { return true }
            let below = Self.pathBelowArgument(candidate.path.bytes, arguments: request.inputs)
            return (request.include.isEmpty || request.include.contains { $0.matches(below) })
                && !request.exclude.contains { $0.matches(below) }
        }
        var images: [PlannedImage] = []
        var outputsFound: [Int] = []
        do {
            // The headers are read in the scan's order while this thread sorts (the files' order
            // on disk, and a million inputs' sort need not wait for each other); the results are
            // freed at the end of this block.
            let paths = selected.map(\.path)
            let headers = ParallelMapping(count: paths.count, jobs: options.jobs) { index in
                ImageFormats.header(of: paths[index], limits: limits, opener: opener)
            }
            let order = options.order.order(of: selected, reversed: options.reverse)
            headers.wait()
            try opener.checkRun()
            images.reserveCapacity(selected.count)
            for position in order {
                let reading = headers[position]
                if let file = reading.file {
                    // A folder's file the scan made no `stat` of is known now: an earlier output is no input.
                    if selected[position].identity == nil && !selected[position].namedDirectly
                        && scanner.isExcluded(file.identity) {
                        outputsFound.append(position)
                        continue
                    }
                    selected[position].identity = file.identity
                }
                let path = paths[position]
                switch reading.result {
                case .success(let (format, header)):
                    if options.colorManagement {
                        for problem in header.color.warnings { events(.warning(SkippedInput(path: path, reason: problem.reason))) }
                    }
                    images.append(PlannedImage(path: path, format: format, source: header, orientation: header.orientation,
                                               stamp: reading.file!.stamp))
                case .failure(let error): skipped.append(SkippedInput(path: path, reason: error.reason))
                }
            }
        }
        if !outputsFound.isEmpty {
            // Rare (an earlier output in a scanned folder): a copy without them, by position.
            let found = Set(outputsFound)
            selected = selected.indices.filter { !found.contains($0) }.map { selected[$0] }
        }
        // An output that is an input is named as such before a user's file is refused (the scan
        // knows most inputs' identities only now, from the header pass).
        try OutputSafety.check(outputs: outputs, inputs: selected)
        try OwnOutput.refuseForeign(checked, overwrite: request.overwrite)
        for skip in skipped { events(.skipped(skip)) }
        guard !images.isEmpty else {
            throw SheetError(selected.isEmpty && scanner.skipped.isEmpty
                             ? "no images found in \(request.inputs.map(\.displayName).joined(separator: ", "))"
                                + Self.ignoredFiles(scanner.otherKinds)
                             : "no renderable images (\(skipped.count) skipped)")
        }
        var set = InputSet(images: images, skipped: skipped)
        set.candidates = selected
        set.otherFiles = scanner.otherFiles
        return set
    }

    /// The images grouped into sections, one per folder in natural order of its path (files
    /// named on the command line form one section, first), each keeping the run's order inside.
    private static func grouped(_ images: [PlannedImage], candidates: [InputCandidate],
                                arguments: [RawPath]) -> ([PlannedImage], [PlannedSection]) {
        let named = Set(candidates.filter(\.namedDirectly).map(\.path))
        func key(_ image: PlannedImage) -> [UInt8]? { named.contains(image.path) ? nil : image.path.parent.bytes }
        var order: [[UInt8]?] = []
        var members: [[UInt8]?: [PlannedImage]] = [:]
        for image in images {
            let folder = key(image)
            if members[folder] == nil { order.append(folder) }
            members[folder, default: []].append(image)
        }
        order.sort { a, b in
            guard let a else { return b != nil }
            guard let b else { return false }
            return InputOrder.naturalPrecedes(a, b)
        }
        var ordered: [PlannedImage] = []
        var sections: [PlannedSection] = []
        for folder in order {
            let start = ordered.count
            ordered += members[folder]!
            sections.append(PlannedSection(name: folder.map { sectionName($0, arguments: arguments) }
                                           ?? Array("files named on the command line".utf8), images: start..<ordered.count))
        }
        return (ordered, sections)
    }

}

/// Counts finished tiles across worker threads and reports progress.
final class ProgressCounter: Sendable {
    private let done = Lock(0)
    private let total: Int
    private let events: @Sendable (SheetEvent) -> Void

    init(total: Int, events: @escaping @Sendable (SheetEvent) -> Void) {
        self.total = total
        self.events = events
    }

    func increment() {
        let now = done.withLock { done in
            done += 1
            return done
        }
        events(.progress(done: now, total: total))
    }
}
