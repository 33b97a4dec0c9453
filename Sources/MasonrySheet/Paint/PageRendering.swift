import WaterfallLayout
import CodecCore
import PNGCodec
import Raster

/// Paints the pages of a plan into their files, for every kind of run (a render, a compare):
/// checks each page against the memory budget before anything is allocated, then paints it with
/// the band scheduler while its PNG is encoded into a file the publisher will commit.
enum PageRendering {
    /// Each page's band window, or a usage error when a page is too tall for PNG or its painting
    /// would need more than `maxMemory` (or the address space left).
    static func windows(for pages: [PagePlan], plan: SheetPlan, jobs: Int, maxMemory: Int,
                        advice: String) throws(SheetError) -> [Int] {
        var windows: [Int] = []
        let budget = MemoryBudget.bytes(maxMemory: maxMemory)
        for page in pages {
            guard page.height <= Int(Int32.max) else {
                throw SheetError(.usage, "the page would be \(page.height) px tall, over PNG's limit of \(Int32.max); "
                                 + "use --page-height, more columns or fewer images")
            }
            let window = BandScheduler.windowRows(for: page, plan: plan, workers: jobs, budget: budget.bytes)
            guard let rows = window.rows else {
                let limit = budget.limitedByAddressSpace
                    ? "the \(megabytes(budget.bytes)) MiB this process's address space limit (ulimit -v) leaves"
                    : "--max-memory \(megabytes(maxMemory)) MiB"
                throw SheetError(.usage, "painting \(page.file.displayName) would need about \(megabytes(window.needed)) MiB, "
                                 + "over \(limit); \(advice)" + (limit.hasPrefix("--") ? ", or raise --max-memory" : ""))
            }
            windows.append(rows)
        }
        return windows
    }

    /// Paints and encodes `pages` (with their `windows`) into files opened on `publisher`;
    /// returns every tile's outcome by index and the files written with their sizes.
    static func render(_ pages: [PagePlan], windows: [Int], plan: SheetPlan, painter: TilePainter,
                       publisher: Publisher, jobs: Int, compression: PNGEncodingSettings,
                       onTileDone: @escaping @Sendable () -> Void) throws(SheetError)
        -> (outcomes: [Int: TileOutcome], written: [(file: RawPath, width: Int, height: Int)]) {
        try render(pages, windows: windows, plan: plan, painter: painter, target: .files(publisher, compression: compression),
                   jobs: jobs, onTileDone: onTileDone)
    }

    /// Paints `pages` (with their `windows`) into `target`; returns every tile's outcome by index
    /// and the files written with their sizes (none when the rows go to a closure).
    static func render(_ pages: [PagePlan], windows: [Int], plan: SheetPlan, painter: TilePainter, target: PageTarget,
                       jobs: Int, onTileDone: @escaping @Sendable () -> Void) throws(SheetError)
        -> (outcomes: [Int: TileOutcome], written: [(file: RawPath, width: Int, height: Int)]) {
        var outcomes: [Int: TileOutcome] = [:]
        var written: [(file: RawPath, width: Int, height: Int)] = []
        for (page, window) in zip(pages, windows) {
            switch target {
            case .files(let publisher, let compression):
                let file = try publisher.open(page.file)
                let format: PixelFormat = plan.channels == 3 ? .rgb8 : .rgba8
                // Row groups are kept between runs with the cache and Masonry's own compressor (whose groups are independent).
                let reuse = painter.cache.flatMap { cache in
                    compression.compressor == .masonryRLE
                        ? PageGroupReuse(page: page, plan: plan, painter: painter, cache: cache, format: format, filter: compression.filter)
                        : nil
                }
                let scheduler = BandScheduler(page: page, painter: painter, windowRows: window, reuse: reuse)
                do {
                    let encoder = try PNGEncoder(fileDescriptor: file.descriptor, width: plan.width, height: page.height,
                                                 format: format, settings: compression, workers: jobs,
                                                 sRGBChunk: painter.colors != nil && page.convertsColor(of: plan), reuse: reuse)
                    let pageOutcomes = try scheduler.render(into: encoder, workerCount: jobs, onTileDone: onTileDone)
                    outcomes.merge(pageOutcomes) { first, _ in first }
                } catch {
                    throw SheetError("cannot write \(page.file.displayName): \(error.reason)")
                }
                try OwnOutput.markPNG(file)
                file.startWriteback()
                written.append((page.file, plan.width, page.height))
            case .rows(let handler):
                let scheduler = BandScheduler(page: page, painter: painter, windowRows: window)
                let handoff = RowHandoff(page: page.number, width: plan.width, channels: plan.channels, handler: handler)
                do {
                    outcomes.merge(try scheduler.render(into: handoff, workerCount: jobs, onTileDone: onTileDone)) { first, _ in first }
                } catch {
                    throw SheetError("cannot paint page \(page.number): \(error.reason)")
                }
            }
        }
        return (outcomes, written)
    }

    static func megabytes(_ bytes: Int) -> Int { bytes / (1 << 20) + (bytes % (1 << 20) > 0 ? 1 : 0) }
}

/// Where painted pages go: PNG files opened on a publisher, or the caller's closure, row by row.
enum PageTarget {
    case files(Publisher, compression: PNGEncodingSettings)
    case rows((SheetRow) -> Void)
}

/// What the band scheduler writes a page's rows to, in order, top to bottom.
protocol RowSink {
    func writeRow(_ row: UnsafeBufferPointer<UInt8>) throws(ImageError)
    /// Passes over a row whose row group is copied from the cache (only with a `PageGroupReuse`).
    func skipRow() throws(ImageError)
    func finish() throws(ImageError)
}

extension PNGEncoder: RowSink {}

/// One row of a painted page, handed to `ContactSheet.paint`'s closure: pages in order, each
/// from top to bottom, on the thread that called `paint`.
public struct SheetRow {
    /// The page's number, from 1.
    public let page: Int
    /// The row's place in its page, from 0.
    public let y: Int
    /// The page's width in pixels (every page has the sheet's width).
    public let width: Int
    /// Bytes per pixel: 3 (RGB) over an opaque background, else 4 (RGBA, not premultiplied).
    public let channels: Int
    /// `width * channels` bytes, valid only during the call: copy what you keep.
    public let pixels: UnsafeBufferPointer<UInt8>
}

/// Hands a page's rows to a closure, counting them.
final class RowHandoff: RowSink {
    private let page: Int
    private let width: Int
    private let channels: Int
    private let handler: (SheetRow) -> Void
    private var y = 0

    init(page: Int, width: Int, channels: Int, handler: @escaping (SheetRow) -> Void) {
        self.page = page
        self.width = width
        self.channels = channels
        self.handler = handler
    }

    func writeRow(_ row: UnsafeBufferPointer<UInt8>) throws(ImageError) {
        handler(SheetRow(page: page, y: y, width: width, channels: channels, pixels: row))
        y += 1
    }

    func skipRow() throws(ImageError) {
        preconditionFailure("rows handed to a closure are all painted")
    }

    func finish() throws(ImageError) {}
}

extension PagePlan {
    /// True when a picture on this page is converted to sRGB (it has a profile that is not
    /// sRGB's): the page then says it is sRGB (a PNG `sRGB` chunk). Pages of untagged and sRGB
    /// pictures keep the bytes they had before colour management.
    func convertsColor(of plan: SheetPlan) -> Bool {
        tiles.contains { tile in
            tile.layers.contains { layer in
                if case .picture(let image, _) = layer { plan.images[image].source.color.profile != nil } else { false }
            }
        }
    }
}
