import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import CodecCore
import PNGCodec
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `--update-baseline`, `--junit` and `--markdown` on CompareEndToEndTests' suite.
@Suite struct CompareCIEndToEndTests {
    typealias Suite = CompareEndToEndTests

    static func bytes(_ path: String) -> [UInt8]? { (try? Data(contentsOf: URL(fileURLWithPath: path))).map { [UInt8]($0) } }

    @Test func everyUpdateModeWithPathsAndDryRun() throws {
        let folder = TemporaryFolder()
        try Suite.makeSuite(in: folder)
        let baseBefore = try CompareMaskEndToEndTests.tree(folder.file("base"))
        let current = try CompareMaskEndToEndTests.tree(folder.file("cur"))

        // --dry-run: the lines, nothing changed, the exit status of the suite as it is.
        let dry = try Suite.compare(["--update-baseline=all", "--dry-run"], in: folder)
        #expect(dry.result.status == 1)
        let dryLines = dry.result.errorLines.filter { $0.hasPrefix("masonry: baseline: would ") }
        #expect(dryLines.count == 3 + 1 + 2 + 2, "\(dry.result.errorLines)")   // changed, resized, added, removed
        #expect(dryLines.contains("masonry: baseline: would delete ui/gone.png (removed)"))
        #expect(dry.result.errorLines.last == "masonry: baseline: 8 files would change; 2 would fail after the update")
        #expect(try CompareMaskEndToEndTests.tree(folder.file("base")) == baseBefore)
        let narrow = try Suite.compare(["--update-baseline=missing", "--paths", "ui/n*", "--paths", "screens/s1?.png", "--dry-run"], in: folder)
        #expect(narrow.result.errorLines.filter { $0.hasPrefix("masonry: baseline: ") }
                == ["masonry: baseline: would write ui/new.png (added)", "masonry: baseline: 1 file would change; 0 would fail after the update"])
        #expect(narrow.items.compactMap { $0["path"] as? String }.sorted() == ["screens/s10.png", "screens/s11.png", "screens/s12.png", "ui/new.png"])
        #expect(try CompareMaskEndToEndTests.tree(folder.file("base")) == baseBefore)

        // missing: only added files; the changed ones still fail.
        let missing = try Suite.compare(["--update-baseline=missing"], in: folder)
        #expect(missing.result.status == 1)
        #expect(missing.result.errorLines.filter { $0.hasPrefix("masonry: baseline: wrote ") }
                == ["masonry: baseline: wrote ui/case.png (added)", "masonry: baseline: wrote ui/new.png (added)"])
        #expect(Self.bytes(folder.file("base/ui/new.png")) == Self.bytes(folder.file("cur/ui/new.png")))
        #expect(Self.bytes(folder.file("base/ui/shift.png")) != Self.bytes(folder.file("cur/ui/shift.png")))

        // changed (bare), restricted by --paths: only ui/ is touched.
        let changed = try Suite.compare(["--update-baseline", "--paths", "ui/**"], in: folder)
        #expect(changed.items.allSatisfy { ($0["path"] as? String ?? "").hasPrefix("ui/") }, "--paths restricts the comparison")
        #expect(changed.result.errorLines.filter { $0.hasPrefix("masonry: baseline: wrote ") }
                == ["masonry: baseline: wrote ui/badge.png (changed)", "masonry: baseline: wrote ui/shift.png (changed)",
                    "masonry: baseline: wrote ui/resized.png (resized)"])
        #expect(changed.result.status == 0, "removed files pass: \(changed.result.errorLines)")
        for name in ["ui/badge.png", "ui/shift.png", "ui/resized.png"] {
            #expect(Self.bytes(folder.file("base/" + name)) == Self.bytes(folder.file("cur/" + name)), "\(name)")
        }
        let oddBase = Array(folder.file("base").utf8) + [0x2F] + Suite.oddName, oddCurrent = Array(folder.file("cur").utf8) + [0x2F] + Suite.oddName
        #expect(Self.rawBytes(oddBase) != Self.rawBytes(oddCurrent), "outside --paths: untouched")

        // all: the odd name too, and removed files deleted; errors are never touched.
        let all = try Suite.compare(["--update-baseline=all", "--fail-on-missing"], in: folder)
        #expect(all.result.errorLines.contains("masonry: baseline: deleted ui/gone.png (removed)"))
        #expect(all.result.errorLines.contains("masonry: baseline: deleted ui/CASE.PNG (removed)"))
        #expect(!FileManager.default.fileExists(atPath: folder.file("base/ui/gone.png")))
        #expect(Self.rawBytes(oddBase) == Self.rawBytes(oddCurrent))
        #expect(all.result.status == 1 && all.result.errorLines.last == "masonry: baseline: 3 files changed; 2 failed after the update")
        let after = try Suite.compare(["--fail-on-missing"], in: folder)
        #expect(after.items.filter { $0["failed"] as? Bool == true }.compactMap { $0["status"] as? String } == ["error", "error"])
        #expect(try CompareMaskEndToEndTests.tree(folder.file("cur")) == current, "the current folder is never written")
        #expect(try CompareMaskEndToEndTests.tree(folder.file("base"))["broken/base-corrupt.png"] == baseBefore["broken/base-corrupt.png"])
    }

    static func rawBytes(_ path: [UInt8]) -> [UInt8]? {
        let descriptor = (path + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_RDONLY) } }
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var out: [UInt8] = [], block = [UInt8](repeating: 0, count: 65536)
        while true {
            let got = block.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if got <= 0 { return out }
            out += block[..<got]
        }
    }

    /// Links in the baseline that lead out of it are never written through: a linked folder is
    /// refused, a linked file is replaced by a regular file; the outside files stay as they were.
    @Test func symbolicLinksOutOfTheBaselineAreNeverFollowedForWriting() throws {
        let folder = TemporaryFolder()
        for path in ["base", "cur/linked", "cur/ui", "outside", "base/ui"] {
            try FileManager.default.createDirectory(atPath: folder.file(path), withIntermediateDirectories: true)
        }
        let old = try Suite.png(Suite.screen(seed: 1)), new = try Suite.png(Suite.screen(seed: 1, badge: true))
        try Suite.write(old, to: Array(folder.file("outside/x.png").utf8))
        try Suite.write(old, to: Array(folder.file("outside/y.png").utf8))
        try FileManager.default.createSymbolicLink(atPath: folder.file("base/linked"), withDestinationPath: "../outside")
        try FileManager.default.createSymbolicLink(atPath: folder.file("base/ui/y.png"), withDestinationPath: "../../outside/y.png")
        try Suite.write(new, to: Array(folder.file("cur/linked/x.png").utf8))
        try Suite.write(new, to: Array(folder.file("cur/ui/y.png").utf8))
        let run = try Suite.compare(["--update-baseline=all"], in: folder)
        #expect(run.result.errorLines.contains(
            "masonry: baseline: not updated linked/x.png: linked in the baseline is a symbolic link or not a folder (never followed for writing)"),
                "\(run.result.errorLines)")
        #expect(run.result.errorLines.contains { $0.hasPrefix("masonry: baseline: wrote ui/y.png (") })
        #expect(Self.bytes(folder.file("outside/x.png")) == old && Self.bytes(folder.file("outside/y.png")) == old)
        let link = try FileManager.default.attributesOfItem(atPath: folder.file("base/ui/y.png"))[.type] as? FileAttributeType
        #expect(link == .typeRegular && Self.bytes(folder.file("base/ui/y.png")) == new)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: folder.file("base/linked")) == "../outside")
        // The refused pair still fails if it failed: the exit status is the suite's after the update.
        let refused = try #require(run.item("linked/x.png"))
        #expect(run.result.status == (refused["failed"] as? Bool == true ? 1 : 0))
    }

    @Test func stoppedRunLeavesTheBaselineUntouched() throws {
        let folder = TemporaryFolder()
        try Suite.makeSuite(in: folder)
        let before = try CompareMaskEndToEndTests.tree(folder.file("base"))
        let run = try MasonryExecutable.run(["compare", "base", "cur", "-o", "nowhere/review.png", "--update-baseline=all"], in: folder.path)
        // A missing output folder is the same usage error as in a render, found before any picture is read.
        #expect(run.status == 64 && run.errorLines == ["masonry: error: cannot write nowhere/review.png: folder nowhere does not exist"])
        #expect(try CompareMaskEndToEndTests.tree(folder.file("base")) == before)
        let usage = try MasonryExecutable.run(["compare", "base", "cur", "--dry-run"], in: folder.path)
        #expect(usage.status == 64 && usage.errorLines.first == "masonry: error: '--dry-run' needs '--update-baseline'")
        let mode = try MasonryExecutable.run(["compare", "base", "cur", "--update-baseline=some"], in: folder.path)
        #expect(mode.status == 64 && mode.errorLines.first == "masonry: error: invalid value 'some' for '--update-baseline <mode>': expected changed, missing or all")
    }

    /// The JUnit file: structure, counts and names; valid against the schema CI readers follow
    /// (`Fixtures/JUnitSchema/JUnit.xsd`) when xmllint is installed (scripts/debian-packages.txt).
    @Test func junitReportIsValidAndCountsEveryPair() throws {
        let folder = TemporaryFolder()
        try Suite.makeSuite(in: folder)
        let run = try Suite.compare(["--junit", "out/junit.xml"], in: folder)
        #expect(run.result.status == 1)
        let xml = try #require(Self.bytes(folder.file("out/junit.xml")))
        let cases = JUnitCollector()
        let parser = XMLParser(data: Data(xml))
        parser.delegate = cases
        #expect(parser.parse(), "well-formed XML")
        #expect(cases.suite["tests"] == "24" && cases.suite["failures"] == "4" && cases.suite["errors"] == "2")
        #expect(cases.cases.count == 24 && cases.elements.first == "testsuite")
        #expect(cases.cases["broken/base-corrupt.png"] == "error")
        #expect(cases.cases["ui/shift.png"] == "failure" && cases.cases["ui/new.png"] == "pass" && cases.cases["ui/gone.png"] == "pass")
        #expect(cases.cases["odd/caf\\xe9 \\x01.png"] == "failure")
        let shift = try #require(run.item("ui/shift.png"))
        #expect(cases.messages["ui/shift.png"]?.hasPrefix("changed: \(shift["diffPixels"]!) px differ (") == true)
        let missing = try Suite.compare(["--junit", "out/junit.xml", "--fail-on-missing"], in: folder)
        let strict = JUnitCollector()
        let again = XMLParser(data: Data(try #require(Self.bytes(folder.file("out/junit.xml")))))
        again.delegate = strict
        #expect(again.parse() && missing.result.status == 1 && strict.cases["ui/new.png"] == "failure" && strict.suite["failures"] == "8")

        let schema = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/JUnitSchema/JUnit.xsd").path
        guard let xmllint = ["/usr/bin/xmllint", "/usr/local/bin/xmllint"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            TestLog.verbose("xmllint not installed (apt-get install libxml2-utils): JUnit schema check skipped")
            return
        }
        for file in ["out/junit.xml"] {
            let check = Process()
            check.executableURL = URL(fileURLWithPath: xmllint)
            check.arguments = ["--noout", "--schema", schema, folder.file(file)]
            let errors = Pipe()
            check.standardError = errors
            check.standardOutput = Pipe()
            try check.run()
            check.waitUntilExit()
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(check.terminationStatus == 0, "xmllint: \(text)")
        }
        // And the first run's file, with errors and the odd name.
        let first = folder.file("first.xml")
        try Data(xml).write(to: URL(fileURLWithPath: first))
        let check = Process()
        check.executableURL = URL(fileURLWithPath: xmllint)
        check.arguments = ["--noout", "--schema", schema, first]
        check.standardError = Pipe()
        try check.run()
        check.waitUntilExit()
        #expect(check.terminationStatus == 0)
    }

    /// Names with `|`, backticks, markup and bytes that are not UTF-8 never break the table.
    @Test func markdownEscapesNamesAndFoldsPassingChanges() throws {
        let folder = TemporaryFolder()
        for side in ["base", "cur"] { try FileManager.default.createDirectory(atPath: folder.file(side), withIntermediateDirectories: true) }
        let names: [[UInt8]] = [Array("a|b.png".utf8), Array("`code` *x* _y_.png".utf8), Array("<b>[l](u)&amp;.png".utf8),
                                Array("caf".utf8) + [0xE9, 0x0A] + Array(".png".utf8), Array("www.example.com.png".utf8)]
        for (index, name) in names.enumerated() {
            try Suite.write(try Suite.png(Suite.screen(seed: UInt64(index))), to: Array(folder.file("base").utf8) + [0x2F] + name)
            try Suite.write(try Suite.png(Suite.screen(seed: UInt64(index), badge: true)), to: Array(folder.file("cur").utf8) + [0x2F] + name)
        }
        try "{\"rules\": [{\"paths\": [\"www.*\"], \"maxDiffPixels\": 1000}]}".write(toFile: folder.file("c.json"), atomically: true, encoding: .utf8)
        let run = try Suite.compare(["--markdown", "out/summary.md", "--link-base", "https://ci.example/job 7/review.html",
                                     "--config", "c.json"], in: folder)
        #expect(run.result.status == 1)
        let text = String(decoding: try #require(Self.bytes(folder.file("out/summary.md"))), as: UTF8.self)
        #expect(text.hasPrefix("## ❌ masonry compare: 4 of 5 pairs failed\n"))
        let rows = text.split(separator: "\n").filter { $0.hasPrefix("| [") }
        #expect(rows.count == 5)
        for row in rows {
            // 6 cells: 7 pipes that are not escaped.
            var pipes = 0, escaped = false
            for character in row { if character == "|" && !escaped { pipes += 1 }; escaped = character == "\\" && !escaped }
            #expect(pipes == 7, "\(row)")
            #expect(!row.contains("\n") && !row.contains("<b>"), "\(row)")
        }
        #expect(text.contains("[a\\|b\\.png](https://ci.example/job%207/review.html#pair-"))
        #expect(text.contains("[\\`code\\` \\*x\\* \\_y\\_\\.png]("))
        #expect(text.contains("[\\<b\\>\\[l\\]\\(u\\)\\&amp\\;\\.png]("))
        #expect(text.contains("[caf\\\\xe9\\\\n\\.png]("))
        let details = try #require(text.range(of: "<details><summary>Passing changes (1)</summary>"))
        #expect(text[details.upperBound...].contains("[www\\.example\\.com\\.png]("))
        // The link points at the pair's place on the review page: its 1-based place in the report.
        let index = try #require(run.items.firstIndex { $0["path"] as? String == "a|b.png" })
        #expect(text.contains("review.html#pair-\(index + 1))"))
    }
}

/// Collects a JUnit file's suite attributes and each testcase's outcome.
final class JUnitCollector: NSObject, XMLParserDelegate {
    var suite: [String: String] = [:]
    var cases: [String: String] = [:]
    var messages: [String: String] = [:]
    var elements: [String] = []
    private var currentCase: String?

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        elements.append(name)
        switch name {
        case "testsuite": suite = attributes
        case "testcase":
            currentCase = attributes["name"]
            if let current = currentCase { cases[current] = "pass" }
        case "failure", "error":
            if let current = currentCase { cases[current] = name; messages[current] = attributes["message"] }
        default: break
        }
    }
}
