import WaterfallLayout
import CodecCore
import PNGCodec
import Raster
import WorkerThreads

/// Paints every tile of one page and streams the page's rows to a PNG encoder, in bounded
/// memory.
///
/// The page is cut into bands of `bandRows` rows. Workers paint each tile's layers
/// (`TilePainter`) into the bands it covers (tiles never overlap, so workers write disjoint
/// bytes). A band is handed to the encoder thread as soon as every tile touching it is done;
/// the encoder writes its rows and frees it. A worker does not start a tile that reaches
/// further than `windowRows` below the first row not yet encoded, so memory is bounded by the
/// page width times a few of the tallest tiles, whatever the number of images or the page's
/// height (`memoryEstimate` says how much).
///
/// Among the tiles the window allows, a worker takes the costliest (`TileQueue`, by
/// `decodingCost`). Every pixel's value depends only on its own tile, so the bytes do not
/// depend on that order, the number of workers or their timing.
///
/// With `reuse` (a page whose row groups the cache holds), only the tiles touching a group the
/// cache lacks are painted, and the encoder is handed only the rows those groups need (the
/// others are skipped: their groups are copied as stored).
final class BandScheduler: @unchecked Sendable {
    // @unchecked Sendable: workers and the encoder wait on `condition` (Synchronization has no
    // condition variable), so every mutable property below is read and written only while
    // holding it; band pixels are written by the one worker that owns the tile covering them
    // and read by the encoder only after that tile's completion was recorded under the lock.
    private let tiles: [TilePlan]
    /// The positions (in `tiles`) of the tiles painted: all of them, or those `reuse` needs.
    private let painted: [Int]
    private let reuse: PageGroupReuse?
    private let painter: TilePainter
    private let height: Int
    private let channels: Int
    private let bandRows: Int
    private let rowBytes: Int
    /// The page's bands: fixed at init, so the encoder need not read `pendingTilesPerBand`
    /// (which workers change under the lock) to know how many there are.
    private let bandCount: Int

    private let condition = Condition()
    private var pendingTilesPerBand: [Int32]
    private var bands: [Int: UnsafeMutablePointer<UInt8>] = [:]
    private var encodedRows = 0
    private var queue: TileQueue
    private var stopped = false
    private var outcomes: [TileOutcome?]
    private let backgroundRow: [UInt8]

    /// A scheduler for `page` that runs `windowRows` (from `windowRows(for:plan:workers:budget:)`) ahead.
    init(page: PagePlan, painter: TilePainter, windowRows: Int, reuse: PageGroupReuse? = nil) {
        let plan = painter.plan
        self.tiles = page.tiles
        self.reuse = reuse
        let painted = reuse.map { reuse in page.tiles.indices.filter { reuse.needsTile(at: $0) } } ?? Array(page.tiles.indices)
        self.painted = painted
        self.painter = painter
        self.height = page.height
        self.channels = plan.channels
        self.rowBytes = plan.width * plan.channels
        let bandRows = Self.bandRows(plan)
        self.bandRows = bandRows
        let bandCount = (page.height + bandRows - 1) / bandRows
        self.bandCount = bandCount
        var pending = [Int32](repeating: 0, count: bandCount)
        for tile in painted.map({ page.tiles[$0] }) where tile.frame.height > 0 {
            for band in Self.bandRange(of: tile, bandRows: bandRows) { pending[band] += 1 }
        }
        self.pendingTilesPerBand = pending
        self.queue = TileQueue(bottoms: painted.map { page.tiles[$0].frame.maxY },
                               costs: painted.map { Self.decodingCost(of: page.tiles[$0], plan: plan) }, windowRows: windowRows)
        self.outcomes = Array(repeating: nil, count: page.tiles.count)
        var row = [UInt8](repeating: 0, count: rowBytes)
        row.withUnsafeMutableBufferPointer { fillRow($0, with: plan.background, channels: plan.channels) }
        self.backgroundRow = row
    }

    /// What painting `tile` costs, for the order workers take tiles in: the pixels its
    /// pictures decode (the stored size, or the coded size for HEIF), plus its own area.
    static func decodingCost(of tile: TilePlan, plan: SheetPlan) -> Int {
        tile.layers.reduce(tile.frame.width * tile.frame.height) { cost, layer in
            switch layer {
            case .picture(let image, _): cost + plan.images[image].source.decodedPixels
            case .pairPanels(let panels):
                cost + (panels.baseline?.image.source.decodedPixels ?? 0) + (panels.current?.image.source.decodedPixels ?? 0)
            case .fill, .frame, .text, .playMark: cost
            }
        }
    }

    /// Rows a band holds: 16, or enough for 64 KiB on narrow pages (a 1-pixel-wide page of
    /// 10 million rows would otherwise spend more on band bookkeeping than on pixels).
    private static func bandRows(_ plan: SheetPlan) -> Int {
        max(16, (1 << 16) / max(1, plan.width * plan.channels))
    }

    /// The band memory workers may fill ahead of the encoder when the budget allows: enough
    /// that a slow tile holding back the encoder does not soon leave the other workers idle.
    static let roomyWindowBytes = 24 << 20

    /// How far workers may run ahead of the encoder on `page`: `roomyWindowBytes` of rows (or
    /// two of the tallest tiles and two bands, if more) when that fits `budget` bytes, else two
    /// of the tallest tiles and two bands when that fits, else one tile and two bands (the least
    /// that lets every tile start; fewer tiles are then painted at once, and the bytes are the same);
    /// nil when even that needs more than `budget` (the returned estimate says how much).
    static func windowRows(for page: PagePlan, plan: SheetPlan, workers: Int, budget: Int) -> (rows: Int?, needed: Int) {
        let tallest = page.tiles.map(\.frame.height).max() ?? 0
        let bandRows = bandRows(plan)
        var needed = Int.max
        let roomy = max(2 * tallest + 2 * bandRows, min(page.height, roomyWindowBytes / max(1, plan.width * plan.channels)))
        for rows in [roomy, 2 * tallest + 2 * bandRows, tallest + 2 * bandRows] {
            needed = memoryEstimate(page: page, plan: plan, workers: workers, windowRows: rows + 2 * bandRows)
            if needed <= budget { return (rows, needed) }
        }
        return (nil, needed)
    }

    /// An upper bound of the bytes that painting `page` holds at once with `workers` threads
    /// and `windowRows` rows in bands at once: those rows, plus each worker's decoder row
    /// and resampler buffers for the widest image and tile, and the whole pictures that
    /// decoders holding them (`SourceHeader.wholePictureBytes`) may hold at once: the
    /// page's `workers` largest.
    static func memoryEstimate(page: PagePlan, plan: SheetPlan, workers: Int, windowRows: Int) -> Int {
        let rowBytes = plan.width.multipliedReportingOverflow(by: plan.channels).partialValue
        let bandBytes = rowBytes.multipliedReportingOverflow(by: windowRows)
        let widestSource = page.tiles.compactMap { $0.index.map { plan.images[$0].width } }.max() ?? 0
        let widestTile = page.tiles.map(\.frame.width).max() ?? 0
        // Decoder rows (8 bytes/pixel at most, twice), resampler sums, shrunk rows and
        // Lanczos windows (~16 rows of 8 bytes/pixel), as in StreamingResampler.
        // The encoder deflates row groups of at least 64 KiB (one row when rows are longer) on every
        // worker, each held filtered and deflated, plus the group being filled.
        let group = max(1 << 16, rowBytes + 1)
        // A plain PNG within the fast path's budget is decoded whole: the file and its filtered
        // image, at most twice the budget.
        let wholePictureSizes: [Int] = page.tiles.compactMap { tile -> Int? in
            guard let index = tile.index else { return nil }
            let image = plan.images[index]
            return image.source.wholePictureBytes
        }
        let wholePictures = wholePictureSizes.sorted(by: >).prefix(max(1, workers)).reduce(0) { saturatingAdd($0, $1) }
        let perWorker = 24 * widestSource + 160 * widestTile + (1 << 20) + 3 * group + 2 * PNGLimits.defaultFastDecodeBudget
        let workerBytes = perWorker.multipliedReportingOverflow(by: max(1, workers))
        guard !bandBytes.overflow, !workerBytes.overflow else { return .max }
        return saturatingAdd(saturatingAdd(bandBytes.partialValue, workerBytes.partialValue), wholePictures)
    }

    /// Paints everything with `workerCount` threads while this thread hands the rows to `encoder`
    /// in order (a PNG encoder, or the caller's closure); returns each
    /// tile's outcome by image index.
    func render(into encoder: some RowSink, workerCount: Int, onTileDone: @escaping @Sendable () -> Void) throws(ImageError) -> [Int: TileOutcome] {
        if painted.count < tiles.count {
            // Not painted: every row group they touch is copied from the cache, which has them only
            // from a clean drawing of the same files.
            var isPainted = [Bool](repeating: false, count: tiles.count)
            for position in painted { isPainted[position] = true }
            var pictures = 0
            for (position, tile) in tiles.enumerated() where !isPainted[position] {
                outcomes[position] = .drawn
                pictures += tile.layers.count(where: { if case .picture = $0 { true } else { false } })
                onTileDone()
            }
            painter.cache?.countReused(pictures: pictures)
        }
        let workers = ThreadGroup.start(max(1, workerCount)) { [self] _ in paintTiles(onTileDone: onTileDone) }
        let encodeError = encodeAll(encoder)
        workers.join()
        if let encodeError { throw encodeError }
        var byIndex: [Int: TileOutcome] = [:]
        for (position, tile) in tiles.enumerated() {
            if let index = tile.index { byIndex[index] = outcomes[position] ?? .failed("not drawn") }
        }
        return byIndex
    }

    // MARK: Workers

    private func paintTiles(onTileDone: @Sendable () -> Void) {
        while let (position, bandPointers) = claimNextTile() {
            let tile = tiles[position]
            let canvas = Canvas(channels: channels, rowBytes: rowBytes) { [bandRows, rowBytes] y in
                bandPointers[y / bandRows]! + (y % bandRows) * rowBytes
            }
            let (outcome, keys) = painter.paint(tile, into: canvas)
            reuse?.tilePainted(at: position, outcome: outcome, keys: keys)
            condition.lock()
            outcomes[position] = outcome
            for band in Self.bandRange(of: tile, bandRows: bandRows) { pendingTilesPerBand[band] -= 1 }
            condition.broadcast()
            condition.unlock()
            onTileDone()
        }
    }

    /// The next tile from `queue` once the window allows one, with the bands it covers
    /// (allocated here if they are new); nil when every tile is taken or painting stopped.
    ///
    /// No wait lasts forever: while no tile is admitted, the encoder reaches the band holding
    /// the top edge of the highest tile left, and from there that tile is within the window
    /// (which is at least one tile and two bands).
    private func claimNextTile() -> (Int, [Int: UnsafeMutablePointer<UInt8>])? {
        condition.lock()
        defer { condition.unlock() }
        var position: Int?
        while !stopped && !queue.isEmpty {
            position = queue.next(encodedRows: encodedRows).map { painted[$0] }
            if position != nil { break }
            condition.wait()
        }
        guard !stopped, let position else { return nil }
        let tile = tiles[position]
        var pointers: [Int: UnsafeMutablePointer<UInt8>] = [:]
        for band in Self.bandRange(of: tile, bandRows: bandRows) { pointers[band] = bandBuffer(band) }
        return (position, pointers)
    }

    private static func bandRange(of tile: TilePlan, bandRows: Int) -> ClosedRange<Int> {
        (tile.frame.y / bandRows)...((max(tile.frame.maxY, tile.frame.y + 1) - 1) / bandRows)
    }

    /// The band's pixels, filled with the background when first asked for. Lock held.
    private func bandBuffer(_ band: Int) -> UnsafeMutablePointer<UInt8> {
        if let existing = bands[band] { return existing }
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: bandRows * rowBytes)
        backgroundRow.withUnsafeBufferPointer { row in
            for line in 0..<bandRows { (buffer + line * rowBytes).update(from: row.baseAddress!, count: rowBytes) }
        }
        bands[band] = buffer
        return buffer
    }

    // MARK: Encoder

    private func encodeAll(_ encoder: some RowSink) -> ImageError? {
        for band in 0..<bandCount {
            condition.lock()
            while pendingTilesPerBand[band] > 0 { condition.wait() }
            let rows = min(bandRows, height - band * bandRows)
            let firstRow = band * bandRows
            let needed = (firstRow..<(firstRow + rows)).map { reuse?.needsRow($0) ?? true }
            // A band none of whose rows is needed is not even filled with the background.
            let buffer = needed.contains(true) ? bandBuffer(band) : nil
            condition.unlock()
            do {
                for line in 0..<rows {
                    if let buffer, needed[line] {
                        try encoder.writeRow(UnsafeBufferPointer(start: buffer + line * rowBytes, count: rowBytes))
                    } else {
                        try encoder.skipRow()
                    }
                }
            } catch {
                condition.lock()
                stopped = true
                condition.broadcast()
                condition.unlock()
                return error
            }
            condition.lock()
            bands.removeValue(forKey: band)?.deallocate()
            encodedRows = min(height, (band + 1) * bandRows)
            condition.broadcast()
            condition.unlock()
        }
        do { try encoder.finish() } catch { return error }
        return nil
    }

    deinit {
        for buffer in bands.values { buffer.deallocate() }
    }
}

private func saturatingAdd(_ a: Int, _ b: Int) -> Int {
    let (sum, overflow) = a.addingReportingOverflow(b)
    return overflow ? .max : sum
}

