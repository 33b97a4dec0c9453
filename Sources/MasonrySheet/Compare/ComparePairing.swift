#if canImport(Glibc)
import Glibc
#endif

/// One relative path of a compare and its file in each folder (nil when that folder has none).
/// A side the scan could not use (a FIFO named like a PNG, an unreadable entry) carries its reason.
struct ComparePair: Sendable, Hashable {
    /// The path below both folders, as raw bytes.
    let relativePath: RawPath
    let baseline: RawPath?
    let current: RawPath?
    /// Why a side that exists cannot be read, from the folder scan.
    var baselineProblem: String?
    var currentProblem: String?
}

/// Pairs the image files of two folders by their relative path, byte for byte (SPEC §9).
enum ComparePairing {
    /// Every path found in either folder (recursively), in natural order of the relative path.
    /// Throws when a folder is missing or not a folder (trouble, exit 2). Files in `excluding`
    /// (the run's own outputs) are left out.
    static func pairs(baseline: RawPath, current: RawPath, excluding: [RawPath]) throws(SheetError) -> [ComparePair] {
        let left = try scan(baseline, excluding: excluding)
        let right = try scan(current, excluding: excluding)
        var pairs: [ComparePair] = []
        for relative in Set(left.keys).union(right.keys) {
            let b = left[relative], c = right[relative]
            pairs.append(ComparePair(relativePath: relative, baseline: b?.path, current: c?.path,
                                     baselineProblem: b?.problem, currentProblem: c?.problem))
        }
        return pairs.sorted { InputOrder.naturalPrecedes($0.relativePath.bytes, $1.relativePath.bytes) }
    }

    /// The folder's files by relative path (with the scan's reason for those it cannot read).
    private static func scan(_ folder: RawPath, excluding: [RawPath]) throws(SheetError) -> [RawPath: (path: RawPath, problem: String?)] {
        var status = stat()
        guard folder.withCString({ stat($0, &status) }) == 0 else {
            throw SheetError("cannot read folder \(folder.displayName): \(String(cString: strerror(errno)))")
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw SheetError("\(folder.displayName) is not a folder")
        }
        var scanner = InputScanner(recursive: true, excluding: excluding)
        try scanner.scan(arguments: [folder])
        let prefix = folder.bytes.last == UInt8(ascii: "/") ? folder.bytes : folder.bytes + [UInt8(ascii: "/")]
        var files: [RawPath: (path: RawPath, problem: String?)] = [:]
        // The scan keeps the image files of the format table's extensions (SPEC §9).
        for candidate in scanner.candidates {
            files[RawPath(bytes: Array(candidate.path.bytes.dropFirst(prefix.count)))] = (candidate.path, nil)
        }
        for skip in scanner.skipped where skip.path.bytes.starts(with: prefix) && InputScanner.hasImageExtension(skip.path.lastComponent) {
            files[RawPath(bytes: Array(skip.path.bytes.dropFirst(prefix.count)))] = (skip.path, skip.reason)
        }
        return files
    }

}
