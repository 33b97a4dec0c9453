import Foundation
import MasonryLayout
import PNGCodec
import Raster

/// Everything that decides a sheet's bytes, plus how hard to work on it.
public struct SheetOptions: Sendable {
    public var layout: LayoutConfiguration
    public var background: RGBA8Color = .white
    public var order: InputOrder = .natural
    public var reverse = false
    public var recursive = false
    /// Decoding threads; changes speed only, never bytes.
    public var jobs: Int = ProcessInfo.processInfo.activeProcessorCount
    public var maxPixels: Int = PNGLimits.defaultMaxPixels
    public var compression: PNGEncodingSettings = .default

    public init(layout: LayoutConfiguration) { self.layout = layout }
}

/// What to render and where to write it.
public struct SheetRequest: Sendable {
    public var inputs: [RawPath]
    public var output: RawPath
    public var manifest: RawPath?
    public var options: SheetOptions

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
    public let width: Int
    public let height: Int
    public let rendered: Int
    public let skipped: [SkippedInput]
}

/// The whole job: scan, sort, read headers, lay out, draw, encode, write.
public enum SheetPipeline {
    /// Renders the sheet (and manifest) for `request`. Throws `SheetError`
    /// when nothing could be written: no renderable image, bad layout
    /// options, or an unwritable output. The output files are replaced
    /// atomically or left untouched.
    public static func run(_ request: SheetRequest, events: @escaping @Sendable (SheetEvent) -> Void = { _ in }) throws(SheetError) -> SheetReport {
        let options = request.options
        let excluded = [request.output] + (request.manifest.map { [$0] } ?? [])
        var scanner = InputScanner(recursive: options.recursive, excluding: excluded)
        try scanner.scan(arguments: request.inputs)   // [reliability] throws on EMFILE/ENFILE/ENOMEM
        try OutputSafety.check(outputs: excluded, inputs: scanner.candidates)   // [reliability] exit 64: output = input/output
        // Folder listings come in the file system's order, which differs between machines: report
        // what the scan skipped in natural order so messages and manifests are reproducible.
        var skipped = scanner.missingArguments
            + scanner.skipped.sorted { InputOrder.naturalPrecedes($0.path.bytes, $1.path.bytes) }
        let candidates = options.order.sorted(scanner.candidates, reversed: options.reverse)

        let limits = PNGLimits(maxPixels: options.maxPixels)
        let opener = InputOpener()   // [reliability] long paths; descriptor shortage fails the run
        let headers = parallelMap(count: candidates.count, jobs: options.jobs) { index in
            readHeader(candidates[index].path, limits: limits, opener: opener)
        }
        try opener.checkRun()   // [reliability]
        var images: [(path: RawPath, header: PNGHeader)] = []
        for (candidate, result) in zip(candidates, headers) {
            switch result {
            case .success(let header): images.append((candidate.path, header))
            case .failure(let error): skipped.append(SkippedInput(path: candidate.path, reason: error.reason))
            }
        }
        for skip in skipped { events(.skipped(skip)) }
        guard !images.isEmpty else {
            throw SheetError(candidates.isEmpty && scanner.skipped.isEmpty
                             ? "no PNG images found in \(request.inputs.map(\.displayName).joined(separator: ", "))"
                             : "no renderable PNG images (\(skipped.count) skipped)")
        }

        let sourceSizes = images.map { LayoutSize(width: $0.header.width, height: $0.header.height) }
        let layout = MasonryLayout(configuration: options.layout, sizes: sourceSizes)
        guard layout.height <= Int(Int32.max) else {
            throw SheetError("the sheet would be \(layout.height) px tall, over PNG's limit of \(Int32.max); use more columns or fewer images")
        }
        let jobs = layout.tiles.map { tile in
            TileJob(index: tile.index, path: images[tile.index].path, sourceWidth: images[tile.index].header.width,
                    sourceHeight: images[tile.index].header.height, tile: tile)
        }

        let sheetFile = try AtomicOutputFile(target: request.output)
        let manifestFile = try request.manifest.map { (path) throws(SheetError) in try AtomicOutputFile(target: path) }
        let renderer = SheetRenderer(jobs: jobs, width: layout.width, height: layout.height,
                                     background: options.background, limits: limits, opener: opener)
        let outcomes: [Int: TileOutcome]
        do {
            let encoder = try PNGEncoder(fileDescriptor: sheetFile.descriptor, width: layout.width, height: layout.height,
                                         format: renderer.pixelFormat, settings: options.compression)
            events(.started(total: jobs.count))
            let counter = ProgressCounter(total: jobs.count, events: events)
            outcomes = try renderer.render(into: encoder, workerCount: options.jobs) { counter.increment() }
        } catch {
            throw SheetError("cannot write \(request.output.displayName): \(error.reason)")
        }
        try opener.checkRun()   // [reliability]

        var drawn: [PlacedTile] = []
        var decodeFailures: [SkippedInput] = []
        for tile in layout.tiles {
            let path = images[tile.index].path
            switch outcomes[tile.index] ?? .failed("not drawn") {
            case .drawn: drawn.append(tile)
            case .drawnWithWarning(let reason):
                drawn.append(tile)
                events(.warning(SkippedInput(path: path, reason: reason)))
            case .failed(let reason):
                decodeFailures.append(SkippedInput(path: path, reason: reason))
            }
        }
        for failure in decodeFailures { events(.skipped(failure)) }
        skipped += decodeFailures
        guard !drawn.isEmpty else {
            throw SheetError("no renderable PNG images (\(skipped.count) skipped)")
        }

        if let manifestFile {
            let manifest = Manifest(layout: layout, background: options.background, drawn: drawn,
                                    paths: images.map(\.path), sourceSizes: sourceSizes, skipped: skipped)
            let text: String
            do { text = try manifest.json() } catch { throw SheetError("cannot write the manifest: \(error)") }
            try manifestFile.write(Array(text.utf8))
        }
        try AtomicOutputFile.commit([sheetFile] + (manifestFile.map { [$0] } ?? []))   // [reliability] under OutputLock
        return SheetReport(width: layout.width, height: layout.height, rendered: drawn.count, skipped: skipped)
    }

    private static func readHeader(_ path: RawPath, limits: PNGLimits, opener: InputOpener) -> Result<PNGHeader, PNGError> {
        do {
            let header = try opener.withFile(path) { file in   // [reliability] was InputFile(pathBytes:)
                var prefix = [UInt8](repeating: 0, count: PNGHeader.byteCount)
                let count = try file.readPrefix(into: &prefix)
                return try PNGHeader(parsing: Array(prefix[..<count]))
            }
            if let refusal = limits.refusal(width: header.width, height: header.height) { return .failure(refusal) }
            return .success(header)
        } catch {
            return .failure(error as? PNGError ?? PNGError(.io, "\(error)"))   // [reliability] withFile throws untyped
        }
    }
}

/// Counts finished tiles across worker threads and reports progress.
private final class ProgressCounter: @unchecked Sendable {
    // @unchecked Sendable: `done` is only touched while holding `lock`.
    private let lock = NSLock()
    private var done = 0
    private let total: Int
    private let events: @Sendable (SheetEvent) -> Void

    init(total: Int, events: @escaping @Sendable (SheetEvent) -> Void) {
        self.total = total
        self.events = events
    }

    func increment() {
        let now = lock.withLock { done += 1; return done }
        events(.progress(done: now, total: total))
    }
}
