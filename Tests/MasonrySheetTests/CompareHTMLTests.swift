import Foundation
import Testing
import TestSupport

/// `masonry compare --html` (SPEC §11) through the built command: the review page is written with
/// the report, links both sides of every pair relative to itself, and places each drawn pair's
/// difference panel on the review sheet.
@Suite struct CompareHTMLTests {
    @Test func theReviewPageListsEveryPairWithItsFilesAndPanel() throws {
        let folder = TemporaryFolder()
        try CompareEndToEndTests.makeSuite(in: folder)
        try FileManager.default.createDirectory(atPath: folder.file("out"), withIntermediateDirectories: true)
        let result = try MasonryExecutable.run(["compare", "base", "cur", "-o", "out/review.png", "--report", "out/r.json",
                                                "--html", "out/review.html"], in: folder.path)
        #expect(result.status == 1, "\(result.standardError)")
        let page = try String(contentsOfFile: folder.file("out/review.html"), encoding: .utf8)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.file("out/r.json"))))
                                  as? [String: Any])
        let items = try #require(report["items"] as? [[String: Any]])
        #expect(!items.isEmpty)
        // One entry per pair, in the report's order.
        let entries = page.components(separatedBy: "\n").filter { $0.hasPrefix("{\"p\":") }
        #expect(entries.count == items.count)
        for (entry, item) in zip(entries, items) {
            let status = try #require(item["status"] as? String)
            #expect(entry.contains("\"s\":\"\(status)\""), "\(entry)")
            if item["baseline"] is [String: Any] { #expect(entry.contains("\"b\":[\"../base/"), "\(entry)") }
            if item["current"] is [String: Any] { #expect(entry.contains("\"c\":[\"../cur/"), "\(entry)") }
            // A drawn pair with both sides has its difference panel on a page.
            if item["tile"] is [String: Any], item["baseline"] is [String: Any], item["current"] is [String: Any] {
                #expect(entry.contains("\"x\":["), "\(entry)")
            }
        }
        #expect(page.contains("\"review.png\"") || page.contains("\"review-001.png\""))
        #expect(!page.contains("http://") && !page.contains("https://"))
    }
}
