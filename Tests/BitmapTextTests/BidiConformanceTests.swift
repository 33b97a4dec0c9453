import CBidiBridge
import CLibZ
import Foundation
import Testing

/// The Unicode Consortium's bidi conformance test (Fixtures/BidiCharacterTest.txt.gz,
/// BidiCharacterTest-15.0.0; Fixtures/UNICODE-LICENSE) over CBidiBridge: every line's
/// resolved levels and visual order, all 91,707 lines (FriBidi 1.0.8 carries Unicode 10's
/// character data; every character of the 15.0 test file is that old).
@Suite struct BidiConformanceTests {
    struct Case {
        let line: Int
        let text: [UInt32]
        let direction: mb_bidi_direction
        let paragraphLevel: Int32
        /// nil where rule X9 removes the character.
        let levels: [UInt8?]
        let order: [Int32]
    }

    static func cases() throws -> [Case] {
        let path = fixturePath("BidiCharacterTest.txt.gz")
        guard let file = gzopen(path, "rb") else { throw CocoaError(.fileReadNoSuchFile) }
        defer { gzclose(file) }
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = gzread(file, &buffer, UInt32(buffer.count))
            guard count > 0 else { #expect(count == 0, "gzread failed"); break }
            data += buffer[0..<Int(count)]
        }
        var cases = [Case]()
        for (number, line) in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            let fields = line.split(separator: ";", omittingEmptySubsequences: false)
            guard fields.count == 5 else { Issue.record("line \(number + 1): \(fields.count) fields"); continue }
            cases.append(Case(line: number + 1,
                              text: fields[0].split(separator: " ").map { UInt32($0, radix: 16)! },
                              direction: mb_bidi_direction(rawValue: UInt32(fields[1])!),
                              paragraphLevel: Int32(fields[2])!,
                              levels: fields[3].split(separator: " ").map { $0 == "x" ? nil : UInt8($0)! },
                              order: fields[4].split(separator: " ").map { Int32($0)! }))
        }
        return cases
    }

    @Test func levelsAndVisualOrderMatchUnicodes() throws {
        let all = try Self.cases()
        #expect(all.count > 90_000, "only \(all.count) test lines")
        var failures = [Int]()
        for test in all {
            let count = test.text.count
            var visual = [UInt32](repeating: 0, count: count), order = [Int32](repeating: 0, count: count)
            var levels = [UInt8](repeating: 0, count: count)
            var paragraphLevel: Int32 = -1
            let status = mb_bidi_layout(test.text, Int32(count), test.direction, 0, &visual, &order, &levels, &paragraphLevel)
            let shown = order.filter { mb_bidi_is_removed_by_x9(test.text[Int($0)]) == 0 }
            let levelsMatch = zip(levels, test.levels).allSatisfy { $1 == nil || $0 == $1 }
            if status != MB_OK || paragraphLevel != test.paragraphLevel || !levelsMatch || shown != test.order {
                failures.append(test.line)
            }
        }
        #expect(failures.isEmpty, "\(failures.count) lines differ, the first: \(failures.prefix(10))")
    }
}
