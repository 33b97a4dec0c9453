/// Writes deflate's least-significant-bit-first bit stream into memory the
/// caller owns, through a 64-bit buffer: every flush stores all 8 buffer bytes
/// and advances by the whole bytes, so the destination needs 8 bytes of slack
/// past the last byte written.
///
/// Between calls (except between `add` and the `flush` that follows it) fewer
/// than 8 bits are pending, and they are already stored at `next`.
struct DeflateBitWriter {
    /// Where the next whole byte goes.
    private(set) var next: UnsafeMutablePointer<UInt8>
    private var buffer: UInt64 = 0
    private var count = 0

    init(at start: UnsafeMutablePointer<UInt8>) { next = start }

    /// Appends the low `bitCount` (at most 56) bits of `bits`; higher bits must be zero.
    @inline(__always)
    mutating func write(_ bits: UInt64, bitCount: Int) {
        add(bits, bitCount: bitCount)
        flush()
    }

    /// Appends bits to the buffer only; the caller flushes before more than 63
    /// bits (counting the up to 7 left by the last flush) are pending.
    @inline(__always)
    mutating func add(_ bits: UInt64, bitCount: Int) {
        buffer |= bits &<< UInt64(count)
        count &+= bitCount
    }

    /// Stores the buffer and moves past its whole bytes.
    @inline(__always)
    mutating func flush() {
        UnsafeMutableRawPointer(next).storeBytes(of: buffer.littleEndian, as: UInt64.self)
        let bytes = count &>> 3
        next += bytes
        buffer = buffer &>> UInt64(bytes &<< 3)  // at most 7 bytes: never a shift by 64
        count &= 7
    }

    /// Pads with zero bits to the next byte boundary (stored blocks, the trailer).
    mutating func alignToByte() {
        if count > 0 { next += 1 }
        buffer = 0
        count = 0
    }

    /// Copies bytes at the byte boundary; the caller must have called `alignToByte()` first.
    mutating func writeAlignedBytes(_ source: UnsafePointer<UInt8>, count byteCount: Int) {
        precondition(count == 0, "unaligned byte copy")
        next.update(from: source, count: byteCount)
        next += byteCount
    }

    /// Moves the writer back to `start` after the whole bytes were taken away;
    /// the pending bits stay in the buffer and are stored again at `start`.
    mutating func rewind(to start: UnsafeMutablePointer<UInt8>) {
        next = start
        if count > 0 { UnsafeMutableRawPointer(next).storeBytes(of: buffer.littleEndian, as: UInt64.self) }
    }
}
