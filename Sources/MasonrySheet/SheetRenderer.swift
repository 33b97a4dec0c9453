import Foundation
import MasonryLayout
import PNGCodec
import Raster

/// One image to draw: where its file is and where it goes on the sheet.
struct TileJob: Sendable {
    let index: Int
    let path: RawPath
    let sourceWidth: Int
    let sourceHeight: Int
    let tile: PlacedTile
}

/// What happened to one image while drawing.
enum TileOutcome: Sendable {
    case drawn
    /// Drawn, but the file has a problem after its image data.
    case drawnWithWarning(String)
    /// Not drawn (its slot is left as background).
    case failed(String)
}

/// Draws every tile of a laid-out sheet and streams the sheet's rows to a PNG
/// encoder, in bounded memory.
///
/// The sheet is cut into bands of `bandRows` rows. Workers take tiles in order
/// of their top edge; each decodes its image row by row, resamples it straight
/// into its slot, and composites it over the background in the bands it
/// covers (tiles never overlap, so workers write disjoint bytes). A band
/// is handed to the encoder thread as soon as every tile touching it is done;
/// the encoder writes its rows and frees it. A worker does not start a tile
/// that reaches further than `windowRows` below the first row not yet
/// encoded, so memory is bounded by the sheet width times a few of the
/// tallest tiles, whatever the number of images or the sheet's height.
/// Every pixel's value depends only on its own tile, so the bytes do not
/// depend on the number of workers or their timing.
final class SheetRenderer: @unchecked Sendable {
    // @unchecked Sendable: every mutable property below is read and written
    // only while holding `condition`, except band pixels, which are written
    // by the one worker that owns the tile covering them and read by the
    // encoder only after that tile's completion was recorded under the lock.
    private let jobs: [TileJob]
    private let width: Int
    private let height: Int
    private let channels: Int
    private let background: RGBA8Color
    private let limits: PNGLimits
    private let opener: InputOpener
    private let bandRows = 16
    private let windowRows: Int
    private let rowBytes: Int

    private let condition = NSCondition()
    private var pendingTilesPerBand: [Int32]
    private var bands: [Int: UnsafeMutablePointer<UInt8>] = [:]
    private var encodedRows = 0
    private var nextJob = 0
    private var stopped = false
    private var outcomes: [TileOutcome?]
    private let backgroundRow: [UInt8]

    init(jobs: [TileJob], width: Int, height: Int, background: RGBA8Color, limits: PNGLimits, opener: InputOpener) {
        self.jobs = jobs.sorted { ($0.tile.frame.y, $0.tile.frame.x) < ($1.tile.frame.y, $1.tile.frame.x) }
        self.width = width
        self.height = height
        self.channels = background.isOpaque ? 3 : 4
        self.background = background
        self.limits = limits
        self.opener = opener   // [reliability]
        self.rowBytes = width * channels
        let tallest = jobs.map(\.tile.frame.height).max() ?? 0
        self.windowRows = 2 * tallest + 2 * bandRows
        let bandCount = (height + bandRows - 1) / bandRows
        var pending = [Int32](repeating: 0, count: bandCount)
        for job in jobs where job.tile.frame.height > 0 {
            for band in (job.tile.frame.y / bandRows)...((job.tile.frame.maxY - 1) / bandRows) { pending[band] += 1 }
        }
        self.pendingTilesPerBand = pending
        self.outcomes = Array(repeating: nil, count: jobs.count)
        var row = [UInt8](repeating: 0, count: width * channels)
        row.withUnsafeMutableBufferPointer { fillRow($0, with: background, channels: background.isOpaque ? 3 : 4) }
        self.backgroundRow = row
    }

    var pixelFormat: PNGPixelFormat { channels == 3 ? .rgb8 : .rgba8 }

    /// Draws everything with `workerCount` decoding threads while this thread
    /// encodes; returns each job's outcome by job index.
    func render(into encoder: PNGEncoder, workerCount: Int, onTileDone: @escaping @Sendable () -> Void) throws(PNGError) -> [Int: TileOutcome] {
        let workers = startThreads(max(1, workerCount)) { [self] _ in drawTiles(onTileDone: onTileDone) }
        let encodeError = encodeAll(encoder)
        workers.wait()
        if let encodeError { throw encodeError }
        var byIndex: [Int: TileOutcome] = [:]
        for (position, job) in jobs.enumerated() { byIndex[job.index] = outcomes[position] ?? .failed("not drawn") }
        return byIndex
    }

    // MARK: Workers

    private func drawTiles(onTileDone: @Sendable () -> Void) {
        while let (position, bandPointers) = claimNextTile() {
            let job = jobs[position]
            let outcome = draw(job, bands: bandPointers)
            condition.lock()
            outcomes[position] = outcome
            for band in bandRange(of: job) { pendingTilesPerBand[band] -= 1 }
            condition.broadcast()
            condition.unlock()
            onTileDone()
        }
    }

    /// The next tile in top-edge order, once the window allows it, with the
    /// bands it covers (allocated here if they are new).
    private func claimNextTile() -> (Int, [Int: UnsafeMutablePointer<UInt8>])? {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped, nextJob < jobs.count else { return nil }
        let position = nextJob
        nextJob += 1
        let job = jobs[position]
        while !stopped && job.tile.frame.maxY - encodedRows > windowRows { condition.wait() }
        guard !stopped else { return nil }
        var pointers: [Int: UnsafeMutablePointer<UInt8>] = [:]
        for band in bandRange(of: job) { pointers[band] = bandBuffer(band) }
        return (position, pointers)
    }

    private func bandRange(of job: TileJob) -> ClosedRange<Int> {
        (job.tile.frame.y / bandRows)...((max(job.tile.frame.maxY, job.tile.frame.y + 1) - 1) / bandRows)
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

    private func draw(_ job: TileJob, bands: [Int: UnsafeMutablePointer<UInt8>]) -> TileOutcome {
        let image = job.tile.imageFrame
        func destination(_ row: Int) -> UnsafeMutableBufferPointer<UInt8> {
            let y = image.y + row
            let start = bands[y / bandRows]! + (y % bandRows) * rowBytes + image.x * channels
            return UnsafeMutableBufferPointer(start: start, count: image.width * channels)
        }
        do {
            return try opener.withFile(job.path) { file in   // [reliability] was InputFile(pathBytes:)
                let decoder = try PNGDecoder(file: file, limits: limits, compactOpaqueRows: true)
                guard decoder.header.width == job.sourceWidth, decoder.header.height == job.sourceHeight else {
                    throw PNGError(.io, "file changed while it was being read")
                }
                let resampler = StreamingResampler(sourceWidth: job.sourceWidth, sourceHeight: job.sourceHeight,
                                                   targetWidth: image.width, targetHeight: image.height,
                                                   sourceFormat: StreamingResampler.SourceFormat(decoder))
                try decoder.readRows { _, row in
                    resampler.push(row: row) { targetRow, pixels in
                        compositeOver(background: background, source: pixels, into: destination(targetRow), channels: channels)
                    }
                }
                if let problem = decoder.trailingProblem { return .drawnWithWarning(problem.reason) }
                return .drawn
            }
        } catch {
            backgroundRow.withUnsafeBufferPointer { row in
                for line in 0..<image.height {
                    _ = destination(line).update(fromContentsOf: UnsafeBufferPointer(rebasing: row[0 ..< image.width * channels]))
                }
            }
            return .failed((error as? PNGError)?.reason ?? "\(error)")
        }
    }

    // MARK: Encoder

    private func encodeAll(_ encoder: PNGEncoder) -> PNGError? {
        let bandCount = pendingTilesPerBand.count
        for band in 0..<bandCount {
            condition.lock()
            while pendingTilesPerBand[band] > 0 { condition.wait() }
            let buffer = bandBuffer(band)
            condition.unlock()
            let rows = min(bandRows, height - band * bandRows)
            do {
                for line in 0..<rows {
                    try encoder.writeRow(UnsafeBufferPointer(start: buffer + line * rowBytes, count: rowBytes))
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

extension StreamingResampler.SourceFormat {
    /// The resampler's name for a decoder's rows.
    public init(_ decoder: PNGDecoder) {
        switch decoder.rowFormat {
        case .rgb8: self = .rgb8
        case .grey8: self = .grey8
        case .rgba8: self = decoder.isOpaque ? .opaqueRGBA8 : .rgba8
        }
    }
}
