import Digest
import CompareConfig
import ImageDiff
import CodecCore
import PNGCodec

/// One side of a pair as the report shows it.
public struct PairSideInfo: Sendable, Hashable {
    public let width: Int
    public let height: Int
    /// Lower-case hex SHA-256 of the file's bytes.
    public let sha256: String
    /// The side's format and header, as the first pass read them.
    let format: ImageFormat
    let source: SourceHeader

    /// The side as a picture to decode at `path`: compare compares pictures as stored, so no
    /// orientation is applied.
    func planned(at path: RawPath) -> PlannedImage {
        PlannedImage(path: path, format: format, source: source, orientation: .up,
                     stamp: FileStamp(byteSize: 0, modificationTime: 0, inode: 0))
    }
}

/// What the first pass learnt about one pair: its sides, counts and verdict (SPEC §9).
public struct PairResult: Sendable {
    public let relativePath: RawPath
    let pair: ComparePair
    /// Nil when that side is absent or unreadable.
    public var baseline: PairSideInfo?
    public var current: PairSideInfo?
    /// Counts, for a pair whose pixels were compared or whose bytes are equal; nil otherwise.
    public var diffPixels: Int?
    public var aaPixels: Int?
    public var diffRatio: Double?
    /// Canvas pixels not compared (`--ignore`, `--mask-dir`), when both sides were read.
    public var ignoredPixels: Int?
    /// The options this pair was judged by (after the config file's rules).
    public let options: PairOptions
    /// The mask image applied (`--mask-dir`), if any.
    public let maskFile: RawPath?
    /// The box of the pixels counted in `diffPixels` (canvas coordinates), nil when there are none.
    public var bounds: ImageDiff.PixelRect?
    public var verdict: PairVerdict
    /// Why the pair is an `error`.
    public var reason: String?
}

/// The first pass over a pair: hash both files; equal bytes are `unchanged` without decoding;
/// otherwise decode both in lockstep and count (no picture is made). The ignore mask is made
/// for every pair with both sides, so `ignoredPixels` is known for byte-identical ones too.
enum PairJudging {
    static func judge(_ pair: ComparePair, pixelLimits: DecodeLimits, options: PairOptions, maskDirectory: RawPath?,
                      opener: InputOpener) -> PairResult {
        let limits = options.limits
        var result = PairResult(relativePath: pair.relativePath, pair: pair, options: options,
                                maskFile: PairMasking.maskFile(for: pair, in: maskDirectory), verdict: PairVerdict(.unreadable, limits: limits))
        var reasons: [String] = []
        func side(_ path: RawPath?, problem: String?, _ which: PairSide) -> (PairSideInfo, [UInt8])? {
            guard let path else { return nil }
            if let problem {
                reasons.append("\(which.rawValue): \(problem)")
                return nil
            }
            do {
                let (digest, format, header) = try PairDecoding.digestAndHeader(of: path, limits: pixelLimits, opener: opener)
                return (PairSideInfo(width: header.width, height: header.height, sha256: SHA256.hex(digest),
                                     format: format, source: header), digest)
            } catch {
                reasons.append(PairFailure(side: which, error).reason)
                return nil
            }
        }
        let b = side(pair.baseline, problem: pair.baselineProblem, .baseline)
        let c = side(pair.current, problem: pair.currentProblem, .current)
        result.baseline = b?.0
        result.current = c?.0
        guard reasons.isEmpty else {
            result.reason = reasons.joined(separator: "; ")
            return result
        }
        var mask: IgnoreMask?
        if let b, let c {
            do {
                mask = try PairMasking.mask(width: max(b.0.width, c.0.width), height: max(b.0.height, c.0.height),
                                            rectangles: options.ignore, maskFile: result.maskFile, limits: pixelLimits, opener: opener)
                result.ignoredPixels = mask?.ignoredPixels
            } catch {
                result.reason = error.reason
                return result
            }
        }
        let findings: PairFindings
        switch (b, c) {
        case (nil, _?): findings = .onlyCurrent
        case (_?, nil): findings = .onlyBaseline
        case let (b?, c?) where b.1 == c.1:
            findings = .identicalBytes
            (result.diffPixels, result.aaPixels, result.diffRatio) = (0, 0, 0)
        case let (b?, c?):
            do {
                let diff = try PairDecoding.compare(baseline: b.0.planned(at: pair.baseline!), current: c.0.planned(at: pair.current!),
                                                    limits: pixelLimits, options: options.diff, ignore: mask, opener: opener)
                findings = diff.findings
                (result.diffPixels, result.aaPixels, result.diffRatio) = (diff.diffPixels, diff.aaPixels, diff.diffRatio)
                result.bounds = diff.bounds
            } catch {
                result.reason = error.reason
                if error.side == .baseline { result.baseline = nil } else { result.current = nil }
                return result
            }
        case (nil, nil): preconditionFailure("a pair has at least one side")
        }
        result.verdict = PairVerdict(findings, limits: limits)
        return result
    }
}
