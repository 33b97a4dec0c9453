import Foundation
import Testing
import TestSupport

/// `masonry compare` compares stored samples by default; `--color-management` converts both
/// sides first, so the same picture stored in two colour spaces is unchanged.
@Suite struct CompareColorTests {
    @Test func sameColoursInTwoSpacesAreUnchangedOnlyWithColorManagement() throws {
        let folder = TemporaryFolder("masonry-color-compare")
        let fixtures = SheetColorTests.fixtures
        for side in ["baseline", "current"] {
            try FileManager.default.createDirectory(atPath: folder.file(side), withIntermediateDirectories: true)
        }
        // The same strawberry: as sRGB (the golden) and as Display P3 with cICP, named alike.
        try Data(fixtures.bytes("strawberry-cicp-p3.golden.png")).write(to: URL(fileURLWithPath: folder.file("baseline/berry.png")))
        try Data(fixtures.bytes("strawberry-cicp-p3.png")).write(to: URL(fileURLWithPath: folder.file("current/berry.png")))
        let report = folder.file("report.json")
        let stored = try MasonryExecutable.run(["compare", "baseline", "current", "-o", "review.png", "--report", report,
                                                "--threshold", "0.02"], in: folder.path)
        #expect(stored.status == 1, "stored samples differ: \(stored.standardError)")
        let converted = try MasonryExecutable.run(["compare", "baseline", "current", "-o", "review.png", "--report", report,
                                                   "--threshold", "0.02", "--color-management"], in: folder.path)
        #expect(converted.status == 0, "\(converted.standardError)")
        let text = try String(contentsOfFile: report, encoding: .utf8)
        #expect(text.contains("\"status\": \"unchanged\""), "\(text)")
        #expect(text.contains("\"colorManagement\": true}"), "the report says the sides were converted: \(text.prefix(200))")
    }
}
