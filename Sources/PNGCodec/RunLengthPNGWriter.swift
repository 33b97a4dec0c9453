import CLibDeflate
#if canImport(Glibc)
import Glibc
#endif

/// Writes a whole PNG file without libpng: signature, IHDR (8-bit RGBA, RGB or grey,
/// not interlaced), the rows filtered in Swift and compressed by
/// `RunLengthDeflater` into IDAT chunks of `idatCapacity` bytes, then IEND.
/// Memory is a few rows plus one block and one chunk, whatever the height.
final class RunLengthPNGWriter {
    /// Where the file's bytes go.
    enum Destination {
        /// Written as they are ready; the descriptor is not closed.
        case fileDescriptor(Int32)
        /// Collected in `memory`.
        case memory
    }

    static let idatCapacity = 256 * 1024

    private let destination: Destination
    /// The file so far, for the `.memory` destination.
    private(set) var memory: [UInt8] = []
    private let rowBytes: Int
    private let filter: PNGRowFilter
    private let deflater: RunLengthDeflater
    /// The unfiltered row above (zeros before the first row), the filtered row,
    /// and room for adaptive filtering to try each filter.
    private let previousRow, filteredRow, scratchRow: UnsafeMutablePointer<UInt8>
    /// One IDAT chunk being filled: length and type, data, room for the CRC.
    private let chunk: UnsafeMutablePointer<UInt8>
    private var chunkDataCount = 0

    /// Writes the signature and IHDR.
    init(destination: Destination, width: Int, height: Int, format: PNGPixelFormat,
         filter: PNGEncodingSettings.Filter) throws(PNGError) {
        self.destination = destination
        rowBytes = width * format.channels
        self.filter = PNGRowFilter(filter: filter, bytesPerPixel: format.channels)
        deflater = RunLengthDeflater(bytesPerPixel: format.channels)
        previousRow = .allocate(capacity: rowBytes)
        previousRow.initialize(repeating: 0, count: rowBytes)
        filteredRow = .allocate(capacity: rowBytes + 1)
        scratchRow = .allocate(capacity: rowBytes + 1)
        chunk = .allocate(capacity: 8 + Self.idatCapacity + 4)
        Self.storeBigEndian(0x4944_4154, at: chunk + 4)  // "IDAT"

        var header: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        // Bit depth 8, the format's colour type; compression, filter and interlace 0.
        let fields = Self.bigEndianBytes(UInt32(width)) + Self.bigEndianBytes(UInt32(height))
            + [8, format.pngColorType.rawValue, 0, 0, 0]
        header += Self.chunk(type: 0x4948_4452, data: fields)  // "IHDR"
        try write(header)
    }

    deinit {
        previousRow.deallocate()
        filteredRow.deallocate()
        scratchRow.deallocate()
        chunk.deallocate()
    }

    /// Filters and compresses the next row (`width * channels` bytes).
    func writeRow(_ row: UnsafePointer<UInt8>) throws(PNGError) {
        filter.apply(row: row, previous: previousRow, count: rowBytes, into: filteredRow, scratch: scratchRow)
        previousRow.update(from: row, count: rowBytes)
        try deflater.append(UnsafeBufferPointer(start: filteredRow, count: rowBytes + 1), to: collectImageData)
    }

    /// Ends the zlib stream, writes the last IDAT and IEND.
    func finish() throws(PNGError) {
        try deflater.finish(to: collectImageData)
        try writeImageDataChunk()
        try write(Self.chunk(type: 0x4945_4E44, data: []))  // "IEND"
    }

    private func collectImageData(_ bytes: UnsafeBufferPointer<UInt8>) throws(PNGError) {
        var offset = 0
        while offset < bytes.count {
            let piece = min(Self.idatCapacity - chunkDataCount, bytes.count - offset)
            (chunk + 8 + chunkDataCount).update(from: bytes.baseAddress! + offset, count: piece)
            chunkDataCount += piece
            offset += piece
            if chunkDataCount == Self.idatCapacity { try writeImageDataChunk() }
        }
    }

    private func writeImageDataChunk() throws(PNGError) {
        guard chunkDataCount > 0 else { return }
        Self.storeBigEndian(UInt32(chunkDataCount), at: chunk)
        Self.storeBigEndian(libdeflate_crc32(0, chunk + 4, 4 + chunkDataCount), at: chunk + 8 + chunkDataCount)
        try write(UnsafeBufferPointer(start: chunk, count: 12 + chunkDataCount))
        chunkDataCount = 0
    }

    private static func chunk(type: UInt32, data: [UInt8]) -> [UInt8] {
        let typeAndData = bigEndianBytes(type) + data
        let crc = typeAndData.withUnsafeBufferPointer { libdeflate_crc32(0, $0.baseAddress, $0.count) }
        return bigEndianBytes(UInt32(data.count)) + typeAndData + bigEndianBytes(crc)
    }

    private static func bigEndianBytes(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static func storeBigEndian(_ value: UInt32, at address: UnsafeMutablePointer<UInt8>) {
        UnsafeMutableRawPointer(address).storeBytes(of: value.bigEndian, as: UInt32.self)
    }

    private func write(_ bytes: [UInt8]) throws(PNGError) {
        try bytes.withUnsafeBufferPointer { (buffer) throws(PNGError) in try write(buffer) }
    }

    /// Errors read like the libpng path's (CPNGBridge's `flush_to_fd`).
    private func write(_ bytes: UnsafeBufferPointer<UInt8>) throws(PNGError) {
        switch destination {
        case .memory:
            memory.append(contentsOf: bytes)
        case .fileDescriptor(let descriptor):
            var done = 0
            while done < bytes.count {
                let wrote = Glibc.write(descriptor, bytes.baseAddress! + done, bytes.count - done)
                if wrote < 0 && errno == EINTR { continue }
                guard wrote > 0 else {
                    throw PNGError(.io, "write failed: \(wrote < 0 ? String(cString: strerror(errno)) : "no progress")")
                }
                done += wrote
            }
        }
    }
}
