import CodecCore
import CLibDeflate
import CLibZ
import Deflate
import Dispatch
import Raster
import WorkerThreads
#if canImport(Glibc)
import Glibc
#endif

/// Writes a whole PNG file without libpng: signature, IHDR (8-bit RGBA, RGB or grey,
/// not interlaced), the rows filtered in Swift and compressed by `RunLengthDeflater`
/// into IDAT chunks of `idatCapacity` bytes, then IEND.
///
/// The rows are cut into groups of `rowsPerGroup(rowBytes:)` rows (a number that
/// depends only on the row size), each filtered and deflated on its own as one
/// segment of the zlib stream, and their Adler-32s combined. With several workers
/// the groups are compressed in parallel and written in order: the bytes are the
/// same for any worker count. Memory is a few groups per worker, whatever the height.
///
/// With `reuse`, a group whose deflate segment is already known (a page entry of the cache)
/// is copied instead of filtered and compressed: its rows may be skipped (`skipRow`), except
/// its last when the next group is compressed (that row is the next group's "row above").
final class RunLengthPNGWriter {
    /// Where the file's bytes go.
    enum Destination {
        /// Written as they are ready; the descriptor is not closed.
        case fileDescriptor(Int32)
        /// Collected in `memory`.
        case memory
    }

    static let idatCapacity = 256 * 1024
    /// About how many filtered bytes a group holds: one deflate block's worth, so cutting
    /// the stream costs almost nothing.
    static let groupBytes = RunLengthDeflater.defaultBlockBytes

    /// Rows per group for rows of `rowBytes` bytes (before the filter byte).
    static func rowsPerGroup(rowBytes: Int) -> Int { max(1, groupBytes / (rowBytes + 1)) }

    private let destination: Destination
    /// The file so far, for the `.memory` destination.
    private(set) var memory: [UInt8] = []
    private let width, height, rowBytes, rowsPerGroup, workers: Int
    private let format: PixelFormat
    private let filter: PNGRowFilter
    /// The group being filled, groups being compressed (oldest first), and spare groups.
    private var filling: RowGroup
    private var inFlight: [RowGroup] = []
    private var spare: [RowGroup] = []
    private var rowsTaken = 0
    /// Groups handed on so far (the next group's index).
    private var groupsDispatched = 0
    private let reuse: (any RowGroupReuse)?
    /// The threads that compress groups; nil when this thread does (one worker, or one group).
    private let compressors: JobThreads?
    private var adler: UInt = 1
    /// One IDAT chunk being filled: length and type, data, room for the CRC.
    private let chunk: UnsafeMutablePointer<UInt8>
    private var chunkDataCount = 0

    /// Writes the signature and IHDR (and an sRGB chunk if asked). `workers` (at least 1) groups are compressed at once.
    init(destination: Destination, width: Int, height: Int, format: PixelFormat,
         filter: PNGEncodingSettings.Filter, workers: Int, sRGBChunk: Bool = false,
         reuse: (any RowGroupReuse)? = nil) throws(ImageError) {
        self.destination = destination
        self.reuse = reuse
        self.width = width
        self.height = height
        self.format = format
        self.workers = max(1, workers)
        rowBytes = width * format.bytesPerPixel
        rowsPerGroup = Self.rowsPerGroup(rowBytes: rowBytes)
        self.filter = PNGRowFilter(filter: filter, bytesPerPixel: format.bytesPerPixel)
        filling = RowGroup(rowBytes: rowBytes, capacity: rowsPerGroup, bytesPerPixel: format.bytesPerPixel)
        filling.rows.initialize(repeating: 0, count: rowBytes)  // the first row's "row above"
        compressors = self.workers > 1 && height > rowsPerGroup
            ? JobThreads(count: self.workers) : nil
        chunk = .allocate(capacity: 8 + Self.idatCapacity + 4)
        Self.storeBigEndian(0x4944_4154, at: chunk + 4)  // "IDAT"

        try write(PNGChunk.signature
                  + PNGChunk.header(width: width, height: height, bitDepth: 8, colorType: format.pngColorType.rawValue)
                  + (sRGBChunk ? PNGChunk.bytes(type: "sRGB", data: [0]) : []))
        // zlib header: CMF deflate with a 32 KiB window; FLG fastest, no dictionary (0x7801 % 31 == 0).
        try collectImageData([0x78, 0x01])
    }

    deinit {
        // A failed write can leave groups compressing: they use their own memory.
        for group in inFlight { group.done.wait() }
        chunk.deallocate()
    }

    /// Takes the next row (`width * channels` bytes); a full group goes to be compressed.
    func writeRow(_ row: UnsafePointer<UInt8>) throws(ImageError) {
        filling.row(filling.rowCount + 1).update(from: row, count: rowBytes)
        try takeRow()
    }

    /// Passes over the next row, which belongs to a group `reuse` has (the caller knows from
    /// `RowGroupReuse.storedGroup`) and is not the row above a group to compress.
    func skipRow() throws(ImageError) {
        filling.skippedRows += 1
        try takeRow()
    }

    private func takeRow() throws(ImageError) {
        filling.rowCount += 1
        rowsTaken += 1
        if filling.rowCount == rowsPerGroup || rowsTaken == height { try dispatchFilling() }
    }

    /// Waits for the last groups, writes them, the Adler-32, the last IDAT and IEND.
    func finish() throws(ImageError) {
        while !inFlight.isEmpty { try writeOldestGroup() }
        var trailer = [UInt8](repeating: 0, count: 4)
        for index in 0..<4 { trailer[index] = UInt8(truncatingIfNeeded: adler >> UInt(24 - 8 * index)) }
        try collectImageData(trailer)
        try writeImageDataChunk()
        try write(PNGChunk.bytes(type: "IEND", data: []))
    }

    /// Compresses the filled group (here with one worker, else on another thread) and
    /// starts the next one from its last row.
    private func dispatchFilling() throws(ImageError) {
        let group = filling
        group.isLast = rowsTaken == height
        group.index = groupsDispatched
        groupsDispatched += 1
        let next = spare.popLast() ?? RowGroup(rowBytes: rowBytes, capacity: rowsPerGroup, bytesPerPixel: format.bytesPerPixel)
        next.rows.update(from: group.row(group.rowCount), count: rowBytes)
        next.rowCount = 0
        next.skippedRows = 0
        filling = next
        group.stored = reuse?.storedGroup(group.index)
        if group.stored != nil {
            group.done.signal()
        } else {
            precondition(group.skippedRows == 0, "rows of a row group to compress were skipped")
            let compress: @Sendable () -> Void = { [filter] in
                group.compress(filter: filter)
                group.done.signal()
            }
            if let compressors { compressors.submit(compress) } else { compress() }
        }
        inFlight.append(group)
        while inFlight.count >= workers { try writeOldestGroup() }
    }

    /// Waits for the oldest group, writes its deflate segment and keeps the group for reuse.
    private func writeOldestGroup() throws(ImageError) {
        let group = inFlight.removeFirst()
        group.done.wait()
        let filteredCount = group.rowCount * (rowBytes + 1)
        let groupAdler = group.stored?.adler ?? UInt32(group.adler)
        adler = adler32_combine(adler, UInt(groupAdler), off_t(filteredCount))
        try group.output.withUnsafeBufferPointer { (compressed) throws(ImageError) in
            let bytes = group.stored?.bytes ?? UnsafeRawBufferPointer(compressed)
            try collectImageData(bytes.assumingMemoryBound(to: UInt8.self))
            reuse?.groupWritten(group.index, bytes: bytes, filteredCount: filteredCount, adler: groupAdler,
                                reused: group.stored != nil)
        }
        group.stored = nil
        spare.append(group)
    }

    private func collectImageData(_ bytes: [UInt8]) throws(ImageError) {
        try bytes.withUnsafeBufferPointer { (buffer) throws(ImageError) in try collectImageData(buffer) }
    }

    private func collectImageData(_ bytes: UnsafeBufferPointer<UInt8>) throws(ImageError) {
        var offset = 0
        while offset < bytes.count {
            let piece = min(Self.idatCapacity - chunkDataCount, bytes.count - offset)
            (chunk + 8 + chunkDataCount).update(from: bytes.baseAddress! + offset, count: piece)
            chunkDataCount += piece
            offset += piece
            if chunkDataCount == Self.idatCapacity { try writeImageDataChunk() }
        }
    }

    private func writeImageDataChunk() throws(ImageError) {
        guard chunkDataCount > 0 else { return }
        Self.storeBigEndian(UInt32(chunkDataCount), at: chunk)
        Self.storeBigEndian(libdeflate_crc32(0, chunk + 4, 4 + chunkDataCount), at: chunk + 8 + chunkDataCount)
        try write(UnsafeBufferPointer(start: chunk, count: 12 + chunkDataCount))
        chunkDataCount = 0
    }

    private static func storeBigEndian(_ value: UInt32, at address: UnsafeMutablePointer<UInt8>) {
        UnsafeMutableRawPointer(address).storeBytes(of: value.bigEndian, as: UInt32.self)
    }

    private func write(_ bytes: [UInt8]) throws(ImageError) {
        try bytes.withUnsafeBufferPointer { (buffer) throws(ImageError) in try write(buffer) }
    }

    /// Fails with the libpng path's cause (CPNGBridge's `flush_to_fd`): `.writeFailed`.
    private func write(_ bytes: UnsafeBufferPointer<UInt8>) throws(ImageError) {
        switch destination {
        case .memory:
            memory.append(contentsOf: bytes)
        case .fileDescriptor(let descriptor):
            var done = 0
            while done < bytes.count {
                let wrote = Glibc.write(descriptor, bytes.baseAddress! + done, bytes.count - done)
                if wrote < 0 && errno == EINTR { continue }
                guard wrote > 0 else {
                    throw ImageError(.writeFailed(errno: wrote < 0 ? errno : nil))
                }
                done += wrote
            }
        }
    }
}

/// One group of rows on its way through filter and deflate. It belongs to one thread
/// at a time: the writer while filling it, a compressing thread from `submit` until `done`
/// is signalled, then the writer again (which waits on `done` before reading it).
private final class RowGroup: @unchecked Sendable {
    // @unchecked Sendable: owned by one thread at a time, handed over through `done` (above).
    let rowBytes: Int
    /// The row above the group, then up to `capacity` rows.
    let rows: UnsafeMutablePointer<UInt8>
    var rowCount = 0
    /// Rows passed over (`skipRow`): only a stored group may have any.
    var skippedRows = 0
    /// The group's place in the page, and its segment when `reuse` had it (not compressed then).
    var index = 0
    var stored: (bytes: UnsafeRawBufferPointer, adler: UInt32)?
    /// The stream's last group ends the deflate stream.
    var isLast = false
    /// The group's deflate segment and the Adler-32 of its filtered bytes, once `done`.
    private(set) var output: [UInt8] = []
    private(set) var adler: UInt = 1
    let done = DispatchSemaphore(value: 0)
    private let filtered, scratch: UnsafeMutablePointer<UInt8>
    private let deflater: RunLengthDeflater

    init(rowBytes: Int, capacity: Int, bytesPerPixel: Int) {
        self.rowBytes = rowBytes
        rows = .allocate(capacity: (capacity + 1) * rowBytes)
        filtered = .allocate(capacity: rowBytes + 1)
        scratch = .allocate(capacity: rowBytes + 1)
        deflater = RunLengthDeflater(bytesPerPixel: bytesPerPixel)
    }

    deinit {
        rows.deallocate()
        filtered.deallocate()
        scratch.deallocate()
    }

    /// Row `index` of `rows` (0: the row above the group).
    func row(_ index: Int) -> UnsafeMutablePointer<UInt8> { rows + index * rowBytes }

    /// Filters and deflates the rows into `output`.
    func compress(filter: PNGRowFilter) {
        output.removeAll(keepingCapacity: true)
        deflater.reset()
        var checksum: UInt32 = 1
        let collect = { (bytes: UnsafeBufferPointer<UInt8>) in self.output.append(contentsOf: bytes) }
        for index in 1...rowCount {
            let row = row(index)
            filter.apply(row: row, previous: row - rowBytes, count: rowBytes, into: filtered, scratch: scratch)
            checksum = libdeflate_adler32(checksum, filtered, rowBytes + 1)
            deflater.append(UnsafeBufferPointer(start: filtered, count: rowBytes + 1), to: collect)
        }
        deflater.finish(isFinal: isLast, to: collect)
        adler = UInt(checksum)
    }
}

/// Row groups whose deflate segments are already known (a page entry of the thumbnail cache),
/// for `PNGEncoder`'s `reuse`. Called on the thread that writes the rows, in group order.
public protocol RowGroupReuse: AnyObject {
    /// Group `index`'s stored segment and the Adler-32 of its filtered bytes, to copy instead of
    /// compressing the group (its rows may then be skipped); nil to compress it. The bytes must
    /// stay valid until `groupWritten` is called for the group.
    func storedGroup(_ index: Int) -> (bytes: UnsafeRawBufferPointer, adler: UInt32)?
    /// Group `index` was written: its segment (valid during the call), the length and Adler-32
    /// of the filtered bytes it holds, and whether it was the stored one.
    func groupWritten(_ index: Int, bytes: UnsafeRawBufferPointer, filteredCount: Int, adler: UInt32, reused: Bool)
}
