import GalleryPage
import ImageDiff

/// What a CI report (and `--verbose`) says about one pair: the numbers its failure message carries.
public enum PairNumbers {
    /// `143 px differ (0.286%), 3 anti-aliased, 40 ignored; limits 0 px, 0.000%`, or the reason.
    public static func text(_ item: PairResult) -> String {
        if let reason = item.reason { return reason }
        switch item.verdict.status {
        case .added: return "only in the current folder"
        case .removed: return "only in the baseline folder"
        default: break
        }
        var text = "\(item.diffPixels ?? 0) px differ (\(ComparePlanner.percent(item.diffRatio ?? 0)))"
        if let aa = item.aaPixels, aa > 0 { text += ", \(aa) anti-aliased" }
        if let ignored = item.ignoredPixels, ignored > 0 { text += ", \(ignored) ignored" }
        if item.verdict.status == .resized { text += ", size \(sizes(item))" }
        let limits = item.options.limits
        return text + "; limits \(limits.maxDiffPixels) px, \(ComparePlanner.percent(limits.maxDiffRatio))"
    }

    /// `1280×800 → 1280×840`, `none → 1280×800`.
    static func sizes(_ item: PairResult) -> String {
        func size(_ info: PairSideInfo?) -> String { info.map { "\($0.width)×\($0.height)" } ?? "none" }
        return "\(size(item.baseline)) → \(size(item.current))"
    }

    /// A path as text a report can hold: valid UTF-8 without control characters as it is,
    /// anything else in its escaped display form (`caf\xe9 \x01.png`).
    static func printable(_ path: RawPath) -> String {
        if let text = String(validating: path.bytes, as: UTF8.self),
           !text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0.value == 0xFFFE || $0.value == 0xFFFF }) {
            return text
        }
        return path.displayName
    }
}

/// `--junit FILE.xml` (SPEC §9): one `testsuite`, one `testcase` per pair (in the report's order)
/// named by its path; a failing pair has a `failure` whose message carries its numbers, an
/// unreadable one an `error`; added and removed pairs pass unless `--fail-on-missing`. Valid
/// against the Apache Ant JUnit schema CI readers follow (`Tests/MasonrySheetTests/Fixtures/JUnit.xsd`):
/// so its required `timestamp`, `hostname` and `time` are fixed values (the file is
/// byte-identical for identical runs) and `properties`, `system-out`, `system-err` are present.
enum JUnitReport {
    static func xml(items: [PairResult], baseline: RawPath, current: RawPath) -> String {
        let errors = items.filter { $0.verdict.status == .error }.count
        let failures = items.filter { $0.verdict.failed && $0.verdict.status != .error }.count
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\(OwnOutput.commentMark)\n"
        out += "<testsuite name=\"masonry compare\" timestamp=\"1970-01-01T00:00:00\" hostname=\"localhost\" "
            + "tests=\"\(items.count)\" failures=\"\(failures)\" errors=\"\(errors)\" skipped=\"0\" time=\"0\">\n"
        out += "  <properties>\n"
        out += "    <property name=\"baseline\" value=\"\(escaped(PairNumbers.printable(baseline)))\"/>\n"
        out += "    <property name=\"current\" value=\"\(escaped(PairNumbers.printable(current)))\"/>\n"
        out += "  </properties>\n"
        for item in items {
            let path = PairNumbers.printable(item.relativePath)
            let folder = item.relativePath.bytes.contains(UInt8(ascii: "/")) ? PairNumbers.printable(item.relativePath.parent) : "."
            out += "  <testcase name=\"\(escaped(path))\" classname=\"\(escaped(folder))\" time=\"0\""
            let status = item.verdict.status.rawValue
            let message = escaped("\(status): \(PairNumbers.text(item))")
            if item.verdict.status == .error {
                out += ">\n    <error message=\"\(message)\" type=\"unreadable\">\(escaped(PairNumbers.sizes(item)))</error>\n  </testcase>\n"
            } else if item.verdict.failed {
                out += ">\n    <failure message=\"\(message)\" type=\"\(status)\">\(escaped(PairNumbers.sizes(item)))</failure>\n  </testcase>\n"
            } else {
                out += "/>\n"
            }
        }
        out += "  <system-out></system-out>\n  <system-err></system-err>\n</testsuite>\n"
        return out
    }

    /// Text for an XML attribute or element: the five special characters as entities.
    static func escaped(_ text: String) -> String { PageText.html(text) }
}

/// `--markdown FILE.md` (SPEC §9): a GitHub-flavoured summary for `$GITHUB_STEP_SUMMARY` or a
/// PR comment: the verdict line, the counts, a table of failing pairs, and the passing changes
/// folded in `<details>`. Paths are escaped so no name can break the table or inject markup:
/// every ASCII punctuation character but `/` gets a backslash, and names that are not printable UTF-8
/// are shown escaped (`caf\xe9.png`). With `--link-base URL`, each path links to
/// `URL#pair-N`, the pair's place on the review page (N: its 1-based place in the report).
enum MarkdownReport {
    static func text(items: [PairResult], summary: CompareSummary, linkBase: String?) -> String {
        let failing = items.enumerated().filter { $0.element.verdict.failed }
        let passing = items.enumerated().filter { !$0.element.verdict.failed && $0.element.verdict.status != .unchanged }
        var out = summary.failed == 0
            ? "## ✅ masonry compare: no pair failed (\(items.count) pairs)\n\n"
            : "## ❌ masonry compare: \(summary.failed) of \(items.count) pairs failed\n\n"
        out += "\(summary.line)\n\n"
        out += "| status | pairs |\n|---|---:|\n"
        for status in PairStatus.allCases { out += "| \(status.rawValue) | \(summary.counts[status] ?? 0) |\n" }
        out += "| **failed** | **\(summary.failed)** |\n"
        if !failing.isEmpty {
            out += "\n### Failing pairs\n\n" + table(failing, linkBase: linkBase)
        }
        if !passing.isEmpty {
            out += "\n<details><summary>Passing changes (\(passing.count))</summary>\n\n" + table(passing, linkBase: linkBase) + "\n</details>\n"
        }
        // Hidden when rendered; tells the next run this file is Masonry's to replace.
        return out + "\n\(OwnOutput.commentMark)\n"
    }

    private static func table(_ rows: [(offset: Int, element: PairResult)], linkBase: String?) -> String {
        var out = "| path | status | differing pixels | ratio | baseline | current |\n|---|---|---:|---:|---|---|\n"
        for (index, item) in rows {
            var path = escaped(PairNumbers.printable(item.relativePath))
            if let linkBase { path = "[\(path)](\(linkDestination(linkBase, pair: index + 1)))" }
            func size(_ info: PairSideInfo?) -> String { info.map { "\($0.width)×\($0.height)" } ?? "–" }
            let status = item.verdict.status == .error ? "error: " + escaped(item.reason ?? "unreadable") : item.verdict.status.rawValue
            out += "| \(path) | \(status) | \(item.diffPixels.map(String.init) ?? "–") | "
                + "\(item.diffRatio.map(ComparePlanner.percent) ?? "–") | \(size(item.baseline)) | \(size(item.current)) |\n"
        }
        return out
    }

    /// Markdown text showing `text` literally, also inside a table cell: a backslash before
    /// every ASCII punctuation character but `/`, which starts nothing (CommonMark escapes any
    /// of them; GFM tables take `\|`; an escaped `.` or `:` stops GFM's autolinks).
    static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.isASCII, let byte = UInt8(exactly: scalar.value),
               ((0x21...0x2E).contains(byte)) || (0x3A...0x40).contains(byte) || (0x5B...0x60).contains(byte) || (0x7B...0x7E).contains(byte) {
                out += "\\"
            }
            out.unicodeScalars.append(scalar)
        }
        return out
    }

    /// `base#pair-N` with every byte a link destination cannot hold as it is percent-encoded
    /// (spaces, parentheses, `|`, `<`, `>`, backslashes, quotes, controls, non-ASCII).
    static func linkDestination(_ base: String, pair: Int) -> String {
        var out = ""
        for byte in base.utf8 {
            let plain = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || Array("-._~:/?#[]@!$&*+,;=%".utf8).contains(byte)
            out += plain ? String(UnicodeScalar(byte)) : "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
        }
        return out + "#pair-\(pair)"
    }
}
