import CDeflateKernels

/// A raw deflate (RFC 1951) compressor made for filtered PNG rows, in bounded memory.
/// It writes one self-contained segment of a stream: nothing in it refers to bytes
/// before it, and it ends on a byte boundary, so segments compressed independently
/// (on different threads) join into one stream, as PNGCodec's writer joins them.
///
/// Like zlib's `Z_RLE` strategy it looks only for runs: at each byte a repeat of the
/// previous byte (distance 1) or of the previous pixel (distance `bytesPerPixel`),
/// taking the longer, greedily; everything else is a literal. Each block of
/// `blockBytes` input bytes is coded with its own length-limited dynamic Huffman
/// codes, or stored when that is smaller (noise). No hashing and no window search
/// makes it several times faster than zlib at about the same size on
/// photographs, and the output bytes depend only on the input bytes (never on a
/// library version), so a sheet's PNG is the same on every machine.
public final class RunLengthDeflater {
    /// Bytes per pixel: the second run distance (1, 3 or 4 for 8-bit grey, RGB or RGBA).
    let bytesPerPixel: Int
    /// Input bytes per deflate block.
    let blockBytes: Int
    /// Input bytes per deflate block unless told otherwise (64 KiB).
    public static let defaultBlockBytes = 1 << 16

    /// Input bytes seen before the current block that runs may refer back to.
    private static let history = 4
    /// Bytes after the input (zeros), the symbols and the output, for the 8- and 16-byte
    /// loads and stores that overrun them (`mdk_find_symbols`, `DeflateBitWriter`).
    private static let slack = 16
    /// Largest stored block (LEN is 16 bits).
    private static let storedBlockLimit = 65535

    /// `history` bytes, then the current block's input, then `slack`.
    private let input: UnsafeMutablePointer<UInt8>
    private var inputCount = 0
    private var isFirstBlock = true
    private let symbols: UnsafeMutablePointer<UInt16>
    /// `mdk_find_symbols`' scratch: which bytes repeat the byte and the pixel before them.
    private let bitmaps: UnsafeMutablePointer<UInt64>
    private let symbolCounts: UnsafeMutablePointer<Int>
    /// Four tables of counts, summed into `symbolCounts` (see `countSymbols`).
    private let laneCounts: UnsafeMutablePointer<UInt32>
    private let output: UnsafeMutablePointer<UInt8>
    private var bits: DeflateBitWriter

    /// Starts a segment for rows of `bytesPerPixel` (1-4) bytes a pixel, coded in blocks of
    /// `blockBytes` (at least 16) input bytes.
    public init(bytesPerPixel: Int, blockBytes: Int = defaultBlockBytes) {
        precondition((1...DeflateSymbol.maxDistance).contains(bytesPerPixel) && blockBytes >= 16)
        self.bytesPerPixel = bytesPerPixel
        self.blockBytes = blockBytes
        input = .allocate(capacity: Self.history + blockBytes + Self.slack)
        input.initialize(repeating: 0, count: Self.history + blockBytes + Self.slack)
        symbols = .allocate(capacity: blockBytes + Self.slack)
        bitmaps = .allocate(capacity: mdk_bitmap_words(blockBytes))
        symbolCounts = .allocate(capacity: DeflateSymbol.count)
        symbolCounts.initialize(repeating: 0, count: DeflateSymbol.count)
        laneCounts = .allocate(capacity: 4 * DeflateSymbol.count)
        // A block is written dynamic only when that is no larger than stored.
        let outputCapacity = blockBytes + (blockBytes / Self.storedBlockLimit + 1) * 5 + 1024 + Self.slack
        output = .allocate(capacity: outputCapacity)
        output.initialize(repeating: 0, count: outputCapacity)
        bits = DeflateBitWriter(at: output)
    }

    deinit {
        input.deallocate()
        symbols.deallocate()
        bitmaps.deallocate()
        symbolCounts.deallocate()
        laneCounts.deallocate()
        output.deallocate()
    }

    /// Starts the next segment, as if newly made.
    public func reset() {
        inputCount = 0
        isFirstBlock = true
        bits = DeflateBitWriter(at: output)
    }

    /// Compresses `bytes`, handing finished output to `sink` (whenever a block fills).
    public func append<Failure: Error>(_ bytes: UnsafeBufferPointer<UInt8>,
                                to sink: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Void) throws(Failure) {
        guard var source = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            if inputCount == blockBytes { try writeBlock(isFinal: false, to: sink) }
            let piece = min(blockBytes - inputCount, remaining)
            (input + Self.history + inputCount).update(from: source, count: piece)
            inputCount += piece
            source += piece
            remaining -= piece
        }
    }

    /// Writes the segment's last block and ends it on a byte boundary: the stream's
    /// final block (BFINAL set) when `isFinal`, else followed by an empty stored block
    /// (zlib's sync flush), so the next segment starts on a whole byte. `reset` starts another.
    public func finish<Failure: Error>(isFinal: Bool,
                                to sink: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Void) throws(Failure) {
        try writeBlock(isFinal: isFinal, to: sink)
        if !isFinal {
            bits.write(0, bitCount: 3)  // BFINAL 0, BTYPE 00
            bits.alignToByte()
            bits.write(0xFFFF_0000, bitCount: 32)  // LEN 0, NLEN 0xFFFF
        }
        bits.alignToByte()
        try drainOutput(to: sink)
    }

    // MARK: Blocks

    private func writeBlock<Failure: Error>(isFinal: Bool,
                                            to sink: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Void) throws(Failure) {
        let symbolCount = findSymbols()
        let plan = DynamicBlockPlan(symbolCounts: symbolCounts)
        let storedPieces = max(1, (inputCount + Self.storedBlockLimit - 1) / Self.storedBlockLimit)
        let storedBits = storedPieces * 40 + 8 * inputCount
        if plan.bitCount <= storedBits {
            plan.writeHeader(isFinal: isFinal, to: &bits)
            writeSymbols(count: symbolCount, plan: plan)
        } else {
            writeStored(isFinal: isFinal)
        }
        try drainOutput(to: sink)

        // Keep the last bytes for runs that start in the next block.
        input.update(from: input + inputCount, count: Self.history)
        inputCount = 0
        isFirstBlock = false
    }

    /// Turns the block's input into literal and run symbols (greedy, longest run
    /// at distance 1 or `bytesPerPixel`, distance 1 on a tie), counting each.
    private func findSymbols() -> Int {
        // The stream's first bytes have nothing (or too little) to refer back to.
        let firstRunStart = isFirstBlock ? min(Self.history, inputCount) : 0
        let count = mdk_find_symbols(input + Self.history, inputCount, firstRunStart, bytesPerPixel, symbols, bitmaps)
        countSymbols(count)
        return count
    }

    /// Fills `symbolCounts`, counting into four tables in turn so that repeats of
    /// a symbol do not wait on each other's increments.
    private func countSymbols(_ count: Int) {
        let tables = laneCounts
        tables.initialize(repeating: 0, count: 4 * DeflateSymbol.count)
        let symbols = symbols
        var index = 0
        while index + 4 <= count {
            for lane in 0..<4 { tables[lane &* DeflateSymbol.count &+ Int(symbols[index &+ lane])] &+= 1 }
            index &+= 4
        }
        while index < count {
            tables[Int(symbols[index])] &+= 1
            index &+= 1
        }
        for symbol in 0..<DeflateSymbol.count {
            symbolCounts[symbol] = (0..<4).reduce(0) { $0 + Int(tables[$1 * DeflateSymbol.count + symbol]) }
        }
    }

    /// Writes the block's symbols and end of block. Between flushes of the bit
    /// buffer go as many symbols as surely fit in 63 bits: `symbolsPerFlush` of at
    /// most `longestEntry` bits on top of the up to 7 bits a flush leaves.
    private func writeSymbols(count: Int, plan: DynamicBlockPlan) {
        let symbolsPerFlush = max(1, (63 - 7) / plan.longestEntry)
        switch symbolsPerFlush {
        case 1: writeSymbols(count: count, table: plan.symbolTable, symbolsPerFlush: 1)
        case 2: writeSymbols(count: count, table: plan.symbolTable, symbolsPerFlush: 2)
        default: writeSymbols(count: count, table: plan.symbolTable, symbolsPerFlush: 3)
        }
    }

    @inline(__always)
    private func writeSymbols(count: Int, table: [UInt64], symbolsPerFlush: Int) {
        var writer = bits
        let symbols = symbols
        table.withUnsafeBufferPointer { table in
            @inline(__always) func add(_ symbol: Int) {
                let entry = table[symbol]
                writer.add(entry & DynamicBlockPlan.codeMask, bitCount: Int(truncatingIfNeeded: entry &>> DynamicBlockPlan.lengthShift))
            }
            var index = 0
            while index + symbolsPerFlush <= count {
                for offset in 0..<symbolsPerFlush { add(Int(symbols[index &+ offset])) }
                writer.flush()
                index &+= symbolsPerFlush
            }
            while index < count {
                add(Int(symbols[index]))
                writer.flush()
                index &+= 1
            }
            add(DeflateSymbol.endOfBlock)
            writer.flush()
        }
        bits = writer
    }

    private func writeStored(isFinal: Bool) {
        var offset = 0
        repeat {
            let length = min(inputCount - offset, Self.storedBlockLimit)
            let isLast = offset + length == inputCount
            bits.write(isFinal && isLast ? 1 : 0, bitCount: 3)  // BFINAL, BTYPE 00
            bits.alignToByte()
            bits.write(UInt64(length) | UInt64(~length & 0xFFFF) << 16, bitCount: 32)
            bits.writeAlignedBytes(input + Self.history + offset, count: length)
            offset += length
        } while offset < inputCount
    }

    private func drainOutput<Failure: Error>(to sink: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Void) throws(Failure) {
        let ready = bits.next - output
        if ready > 0 { try sink(UnsafeBufferPointer(start: output, count: ready)) }
        bits.rewind(to: output)
    }
}
