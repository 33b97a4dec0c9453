/// How inputs are ordered before layout (`--sort`).
public enum InputOrder: String, Sendable, CaseIterable {
    /// Digit runs compare as numbers, everything else by byte: "img2" < "img10". Locale-independent.
    case natural
    /// Plain byte order of the path.
    case name
    /// Oldest modification time first (ties by natural order).
    case mtime
    /// Smallest file first (ties by natural order).
    case size
    /// As found: argument order, then folder-listing order.
    case none

    /// Whether sorting needs each file's size or modification time from the scan.
    var needsFileStatus: Bool { self == .mtime || self == .size }

    /// Sorts `candidates` by this order (stable), reversed if asked.
    func sorted(_ candidates: [InputCandidate], reversed: Bool) -> [InputCandidate] {
        order(of: candidates, reversed: reversed).map { candidates[$0] }
    }

    /// Where each of `candidates` goes in this order (stable), reversed if asked: the sorted list
    /// is `candidates[order[0]]`, `candidates[order[1]]`, … The header pass reads the files in
    /// the scan's order meanwhile, so a million inputs are sorted while their headers are read.
    ///
    /// A million paths are sorted as indices over one buffer holding every path's bytes, so a
    /// comparison touches two spans of that buffer and no reference count (sorting the
    /// candidates themselves moved 56-byte values and retained two arrays per comparison).
    func order(of candidates: [InputCandidate], reversed: Bool) -> [Int] {
        guard self != .none else { return reversed ? Array((0 ..< candidates.count).reversed()) : Array(0 ..< candidates.count) }
        var starts = [Int](repeating: 0, count: candidates.count + 1)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(candidates.reduce(0) { $0 + $1.path.bytes.count })
        for (index, candidate) in candidates.enumerated() {
            buffer += candidate.path.bytes
            starts[index + 1] = buffer.count
        }
        var order = Array(0 ..< candidates.count)
        buffer.withUnsafeBufferPointer { bytes in
            starts.withUnsafeBufferPointer { starts in
                func path(_ index: Int) -> UnsafeBufferPointer<UInt8> {
                    UnsafeBufferPointer(rebasing: bytes[starts[index] ..< starts[index + 1]])
                }
                func naturally(_ a: Int, _ b: Int) -> Bool { Self.naturalCompare(path(a), path(b)) < 0 }
                switch self {
                case .none: break
                case .name: order.sort { path($0).lexicographicallyPrecedes(path($1)) }
                case .natural: order.sort(by: naturally)
                case .mtime:
                    order.sort { a, b in
                        let (x, y) = (candidates[a].modificationTime, candidates[b].modificationTime)
                        return x != y ? x < y : naturally(a, b)
                    }
                case .size:
                    order.sort { a, b in
                        let (x, y) = (candidates[a].byteSize, candidates[b].byteSize)
                        return x != y ? x < y : naturally(a, b)
                    }
                }
            }
        }
        if reversed { order.reverse() }
        return order
    }

    /// Natural order: runs of ASCII digits compare by numeric value (then by
    /// length, so "01" follows "1"), other bytes by value; a total order, so
    /// equal keys only for equal byte strings.
    static func naturalPrecedes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        naturalCompare(a, b) < 0
    }

    static func naturalCompare(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { b in naturalCompare(a, b) } }
    }

    /// `naturalCompare` over spans. The common prefix is skipped byte by byte first: runs of
    /// digits inside it are equal in value and length on both sides, so the comparison can
    /// start at the digit run the first difference falls in (or the difference itself).
    static func naturalCompare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
        let shorter = min(a.count, b.count)
        var common = 0
        while common < shorter && a[common] == b[common] { common += 1 }
        var i = common
        while i > 0 && isDigit(a[i - 1]) { i -= 1 }
        var j = i
        var tieBreak = 0
        while i < a.count && j < b.count {
            if isDigit(a[i]) && isDigit(b[j]) {
                let startA = i, startB = j
                while i < a.count && isDigit(a[i]) { i += 1 }
                while j < b.count && isDigit(b[j]) { j += 1 }
                var zerosA = startA, zerosB = startB
                while zerosA < i && a[zerosA] == 0x30 { zerosA += 1 }
                while zerosB < j && b[zerosB] == 0x30 { zerosB += 1 }
                let lengthA = i - zerosA, lengthB = j - zerosB
                if lengthA != lengthB { return lengthA < lengthB ? -1 : 1 }
                for offset in 0 ..< lengthA where a[zerosA + offset] != b[zerosB + offset] {
                    return a[zerosA + offset] < b[zerosB + offset] ? -1 : 1
                }
                if tieBreak == 0 && (i - startA) != (j - startB) { tieBreak = (i - startA) < (j - startB) ? -1 : 1 }
            } else {
                if a[i] != b[j] { return a[i] < b[j] ? -1 : 1 }
                i += 1
                j += 1
            }
        }
        if i < a.count { return 1 }
        if j < b.count { return -1 }
        return tieBreak
    }
}
