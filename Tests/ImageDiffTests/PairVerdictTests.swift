import ImageDiff
import Testing

@Suite struct PairVerdictTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var findings: PairFindings
        var limits: CompareLimits
        var status: PairStatus
        var failed: Bool
        /// Findings and limits only: a passing run must not print the word of a failing status.
        var testDescription: String {
            "\(findings) with limits \(limits.maxDiffPixels) px, ratio \(limits.maxDiffRatio), "
                + "resize \(limits.allowResize ? "allowed" : "not allowed"), a missing side \(limits.failOnMissing ? "counts" : "is ignored")"
        }
    }

    static let defaults = CompareLimits()
    static let cases: [Case] = [
        // Missing sides fail only with failOnMissing.
        Case(findings: .onlyCurrent, limits: defaults, status: .added, failed: false),
        Case(findings: .onlyBaseline, limits: defaults, status: .removed, failed: false),
        Case(findings: .onlyCurrent, limits: CompareLimits(failOnMissing: true), status: .added, failed: true),
        Case(findings: .onlyBaseline, limits: CompareLimits(failOnMissing: true), status: .removed, failed: true),
        // Errors always fail; identical bytes never do.
        Case(findings: .unreadable, limits: CompareLimits(maxDiffPixels: 1000, allowResize: true), status: .error, failed: true),
        Case(findings: .identicalBytes, limits: defaults, status: .unchanged, failed: false),
        // Same size: no counted pixel is unchanged (anti-aliased ones do not count).
        Case(findings: .compared(diffPixels: 0, area: 100, resized: false), limits: defaults, status: .unchanged, failed: false),
        Case(findings: .compared(diffPixels: 1, area: 100, resized: false), limits: defaults, status: .changed, failed: true),
        // A changed pair passes within either limit, and each works alone.
        Case(findings: .compared(diffPixels: 5, area: 100, resized: false), limits: CompareLimits(maxDiffPixels: 5), status: .changed, failed: false),
        Case(findings: .compared(diffPixels: 6, area: 100, resized: false), limits: CompareLimits(maxDiffPixels: 5), status: .changed, failed: true),
        Case(findings: .compared(diffPixels: 5, area: 100, resized: false), limits: CompareLimits(maxDiffRatio: 0.05), status: .changed, failed: false),
        Case(findings: .compared(diffPixels: 6, area: 100, resized: false), limits: CompareLimits(maxDiffRatio: 0.05), status: .changed, failed: true),
        Case(findings: .compared(diffPixels: 50, area: 100, resized: false), limits: CompareLimits(maxDiffPixels: 60, maxDiffRatio: 0.01), status: .changed, failed: false),
        Case(findings: .compared(diffPixels: 50, area: 100, resized: false), limits: CompareLimits(maxDiffPixels: 10, maxDiffRatio: 0.6), status: .changed, failed: false),
        Case(findings: .compared(diffPixels: 50, area: 100, resized: false), limits: CompareLimits(maxDiffPixels: 10, maxDiffRatio: 0.4), status: .changed, failed: true),
        // Resized fails unless allowed, and is then judged as a changed pair.
        Case(findings: .compared(diffPixels: 3, area: 100, resized: true), limits: CompareLimits(maxDiffPixels: 50), status: .resized, failed: true),
        Case(findings: .compared(diffPixels: 3, area: 100, resized: true), limits: CompareLimits(allowResize: true), status: .resized, failed: true),
        Case(findings: .compared(diffPixels: 3, area: 100, resized: true), limits: CompareLimits(maxDiffPixels: 3, allowResize: true), status: .resized, failed: false),
        Case(findings: .compared(diffPixels: 3, area: 100, resized: true), limits: CompareLimits(maxDiffRatio: 0.03, allowResize: true), status: .resized, failed: false),
    ]

    @Test(arguments: cases)
    func spec9Rule(_ c: Case) {
        #expect(PairVerdict(c.findings, limits: c.limits) == PairVerdict(status: c.status, failed: c.failed))
    }

    /// Every status is reachable.
    @Test func everyStatusOccurs() {
        #expect(Set(Self.cases.map(\.status)) == Set(PairStatus.allCases))
    }
}
