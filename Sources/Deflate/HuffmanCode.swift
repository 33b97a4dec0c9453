/// A canonical, length-limited Huffman code as deflate (RFC 1951 §3.2.2) writes it:
/// per symbol a code length and the code's bits, already reversed so they can be
/// written least significant bit first.
///
/// Lengths come from an optimal (unlimited) Huffman tree built in place (Moffat and
/// Katajainen), then limited to `maxLength` by moving leaves down until the Kraft sum
/// is exactly one. Ties between equal frequencies are broken by symbol number, so the
/// same frequencies always give the same code.
struct HuffmanCode {
    /// Bits of each symbol's code (0 for unused symbols).
    private(set) var lengths: [UInt8]
    /// Each symbol's code, bit-reversed for LSB-first output.
    private(set) var codes: [UInt16]

    /// Builds a code for `frequencies` with no code longer than `maxLength` bits.
    /// Always a complete code with at least two symbols: deflate decoders (zlib)
    /// want at least one bit per symbol, so with fewer than two used symbols the
    /// lowest unused ones get a length too (they are never written).
    init(frequencies: [Int], maxLength: Int) {
        precondition(frequencies.count >= 2 && (1...15).contains(maxLength))
        var used = frequencies.indices.filter { frequencies[$0] > 0 }
        for filler in frequencies.indices where used.count < 2 && !used.contains(filler) {
            used.append(filler)
        }
        // Ascending frequency; equal frequencies by symbol, for determinism.
        let symbolBits = Int.bitWidth - frequencies.count.leadingZeroBitCount
        var keys = used.map { max(frequencies[$0], 1) << symbolBits | $0 }
        keys.sort()
        used = keys.map { $0 & (1 << symbolBits - 1) }
        var depths = keys.map { $0 >> symbolBits }
        Self.computeOptimalDepths(&depths)

        var lengthCounts = [Int](repeating: 0, count: maxLength + 1)
        for depth in depths { lengthCounts[min(depth, maxLength)] += 1 }
        Self.restoreKraftEquality(&lengthCounts, maxLength: maxLength)

        // The most frequent symbols (end of `used`) take the shortest lengths.
        lengths = [UInt8](repeating: 0, count: frequencies.count)
        var next = used.count
        for length in 1...maxLength {
            for _ in 0..<lengthCounts[length] {
                next -= 1
                lengths[used[next]] = UInt8(length)
            }
        }
        codes = Self.canonicalCodes(lengths: lengths, maxLength: maxLength)
    }

    /// Replaces ascending `weights` (at least two) by the depth of each leaf in an
    /// optimal Huffman tree, in place and in linear time (Moffat & Katajainen 1995).
    private static func computeOptimalDepths(_ a: inout [Int]) {
        let n = a.count
        // Phase 1: combine; a[next] becomes an inner node's weight, then its parent.
        a[0] += a[1]
        var root = 0, leaf = 2
        for next in 1..<(n - 1) {
            if leaf >= n || a[root] < a[leaf] {
                a[next] = a[root]
                a[root] = next
                root += 1
            } else {
                a[next] = a[leaf]
                leaf += 1
            }
            if leaf >= n || (root < next && a[root] < a[leaf]) {
                a[next] += a[root]
                a[root] = next
                root += 1
            } else {
                a[next] += a[leaf]
                leaf += 1
            }
        }
        // Phase 2: parent pointers to inner node depths.
        a[n - 2] = 0
        var node = n - 3
        while node >= 0 {
            a[node] = a[a[node]] + 1
            node -= 1
        }
        // Phase 3: inner node depths to leaf depths, deepest leaves first.
        var available = 1, usedAtDepth = 0, depth = 0
        var innerNode = n - 2, slot = n - 1
        while available > 0 {
            while innerNode >= 0 && a[innerNode] == depth {
                usedAtDepth += 1
                innerNode -= 1
            }
            while available > usedAtDepth {
                a[slot] = depth
                slot -= 1
                available -= 1
            }
            available = 2 * usedAtDepth
            depth += 1
            usedAtDepth = 0
        }
        // Leaves were written deepest first from the end; the array now holds, in
        // ascending weight order, lengths that are non-increasing — as wanted.
    }

    /// After clamping depths to `maxLength` the code is oversubscribed; lengthen
    /// shorter codes one at a time until the Kraft sum is exactly 1 again.
    private static func restoreKraftEquality(_ counts: inout [Int], maxLength: Int) {
        var total = 0
        for length in 1...maxLength { total += counts[length] << (maxLength - length) }
        while total > 1 << maxLength {
            counts[maxLength] -= 1
            for length in stride(from: maxLength - 1, through: 1, by: -1) where counts[length] > 0 {
                counts[length] -= 1
                counts[length + 1] += 2
                break
            }
            total -= 1
        }
    }

    private static func bitReversed(_ value: UInt16) -> UInt16 {
        var bits = value.byteSwapped
        bits = (bits & 0x0F0F) << 4 | (bits >> 4) & 0x0F0F
        bits = (bits & 0x3333) << 2 | (bits >> 2) & 0x3333
        return (bits & 0x5555) << 1 | (bits >> 1) & 0x5555
    }

    /// RFC 1951's canonical codes, bit-reversed.
    private static func canonicalCodes(lengths: [UInt8], maxLength: Int) -> [UInt16] {
        var countOfLength = [Int](repeating: 0, count: maxLength + 1)
        for length in lengths where length > 0 { countOfLength[Int(length)] += 1 }
        var nextCode = [Int](repeating: 0, count: maxLength + 1)
        var code = 0
        for length in 1...maxLength {
            code = (code + countOfLength[length - 1]) << 1
            nextCode[length] = code
        }
        return lengths.map { length in
            guard length > 0 else { return 0 }
            let value = UInt16(nextCode[Int(length)])
            nextCode[Int(length)] += 1
            return bitReversed(value) >> (16 - UInt16(length))
        }
    }
}
