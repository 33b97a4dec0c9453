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

    /// Sorts `candidates` by this order (stable), reversed if asked.
    func sorted(_ candidates: [InputCandidate], reversed: Bool) -> [InputCandidate] {
        let ordered: [InputCandidate] = switch self {
        case .none: candidates
        case .name: candidates.sorted { $0.path < $1.path }
        case .natural: candidates.sorted { Self.naturalPrecedes($0.path.bytes, $1.path.bytes) }
        case .mtime: candidates.sorted { Self.precedes($0, $1, by: \.modificationTime) }
        case .size: candidates.sorted { Self.precedes($0, $1, by: \.byteSize) }
        }
        return reversed ? ordered.reversed() : ordered
    }

    private static func precedes(_ a: InputCandidate, _ b: InputCandidate, by key: KeyPath<InputCandidate, Int64>) -> Bool {
        let (x, y) = (a[keyPath: key], b[keyPath: key])
        return x != y ? x < y : naturalPrecedes(a.path.bytes, b.path.bytes)
    }

    /// Natural order: runs of ASCII digits compare by numeric value (then by
    /// length, so "01" follows "1"), other bytes by value; a total order, so
    /// equal keys only for equal byte strings.
    static func naturalPrecedes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        naturalCompare(a, b) < 0
    }

    static func naturalCompare(_ a: [UInt8], _ b: [UInt8]) -> Int {
        func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
        var i = 0, j = 0
        var tieBreak = 0
        while i < a.count && j < b.count {
            if isDigit(a[i]) && isDigit(b[j]) {
                let startA = i, startB = j
                while i < a.count && isDigit(a[i]) { i += 1 }
                while j < b.count && isDigit(b[j]) { j += 1 }
                let runA = a[startA..<i].drop(while: { $0 == 0x30 })
                let runB = b[startB..<j].drop(while: { $0 == 0x30 })
                if runA.count != runB.count { return runA.count < runB.count ? -1 : 1 }
                if runA != runB { return runA.lexicographicallyPrecedes(runB) ? -1 : 1 }
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
