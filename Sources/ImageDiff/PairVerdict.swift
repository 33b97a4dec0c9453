/// The status of one pair of a compare (SPEC §9).
public enum PairStatus: String, Sendable, Hashable, CaseIterable {
    /// Byte-identical, or no pixel counted as differing (anti-aliased ones may remain).
    case unchanged
    /// Same size, some pixels differing.
    case changed
    /// The sizes differ.
    case resized
    /// Only in the current folder.
    case added
    /// Only in the baseline folder.
    case removed
    /// Either side unreadable.
    case error
}

/// When a pair fails (SPEC §9): the command's `--max-diff-pixels`, `--max-diff-ratio`,
/// `--allow-resize` and `--fail-on-missing`.
public struct CompareLimits: Sendable, Hashable {
    /// A changed pair passes with at most this many differing pixels...
    public var maxDiffPixels: Int
    /// ...or with at most this ratio of differing pixels to the canvas's area.
    public var maxDiffRatio: Double
    /// Judge resized pairs as changed ones instead of failing them.
    public var allowResize: Bool
    /// Fail added and removed pairs.
    public var failOnMissing: Bool

    public init(maxDiffPixels: Int = 0, maxDiffRatio: Double = 0, allowResize: Bool = false, failOnMissing: Bool = false) {
        self.maxDiffPixels = maxDiffPixels
        self.maxDiffRatio = maxDiffRatio
        self.allowResize = allowResize
        self.failOnMissing = failOnMissing
    }
}

/// What is known about one relative path after looking at both folders.
public enum PairFindings: Sendable, Hashable {
    /// Only the current folder has it.
    case onlyCurrent
    /// Only the baseline folder has it.
    case onlyBaseline
    /// Either side could not be read or decoded.
    case unreadable
    /// Both files have the same bytes (nothing decoded).
    case identicalBytes
    /// Both decoded and compared: `diffPixels` of the `area` pixels compared (the canvas less
    /// its ignored pixels); `resized` when the sizes differ.
    case compared(diffPixels: Int, area: Int, resized: Bool)
}

/// A pair's status and whether it fails the run.
public struct PairVerdict: Sendable, Hashable {
    public var status: PairStatus
    public var failed: Bool

    public init(status: PairStatus, failed: Bool) {
        self.status = status
        self.failed = failed
    }

    /// SPEC §9's rule: `error` fails; `resized` fails unless `allowResize`, and is then judged as
    /// `changed`; `changed` fails when it exceeds both limits (`diffPixels > maxDiffPixels` and
    /// `diffPixels / area > maxDiffRatio`); `added` and `removed` fail only with `failOnMissing`.
    public init(_ findings: PairFindings, limits: CompareLimits) {
        switch findings {
        case .onlyCurrent: self.init(status: .added, failed: limits.failOnMissing)
        case .onlyBaseline: self.init(status: .removed, failed: limits.failOnMissing)
        case .unreadable: self.init(status: .error, failed: true)
        case .identicalBytes: self.init(status: .unchanged, failed: false)
        case let .compared(diffPixels, area, resized):
            precondition(diffPixels >= 0 && area >= 0 && diffPixels <= area, "diffPixels is a part of the area")
            let ratio = area == 0 ? 0 : Double(diffPixels) / Double(area)
            let exceeds = diffPixels > limits.maxDiffPixels && ratio > limits.maxDiffRatio
            if resized {
                self.init(status: .resized, failed: !limits.allowResize || exceeds)
            } else {
                self.init(status: diffPixels > 0 ? .changed : .unchanged, failed: exceeds)
            }
        }
    }
}
