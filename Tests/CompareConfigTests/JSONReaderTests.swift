@testable import CompareConfig
import Testing

@Suite struct JSONReaderTests {
    @Test func readsValuesWithTheirPositions() throws {
        let text = "{\n  \"a\": [1, -2.5e3, true, null],\n  \"b\": {\"c\": \"x\\u00e9\\ud83d\\ude00\\n\"}\n}"
        let root = try JSONReader.read(Array(text.utf8))
        guard case .object(let members) = root.value else { Issue.record("not an object"); return }
        #expect(members.map(\.key) == ["a", "b"])
        #expect((members[0].keyLine, members[0].keyColumn) == (2, 3))
        guard case .array(let list) = members[0].value.value else { Issue.record("not a list"); return }
        #expect(list.map(\.value) == [.number("1"), .number("-2.5e3"), .bool(true), .null])
        #expect((list[1].line, list[1].column) == (2, 12))
        guard case .object(let inner) = members[1].value.value else { Issue.record("not an object"); return }
        #expect(inner[0].value.value == .string("xé😀\n"))
        #expect((inner[0].value.line, inner[0].value.column) == (3, 14))
    }

    @Test(arguments: [
        ("", 1, 1, "expected a value, found the end of the file"),
        ("{\"a\": 1,}", 1, 9, "expected a key in double quotes"),
        ("[1 2]", 1, 4, "expected ',' or ']', found '2'"),
        ("{\"a\": 1, \"a\": 2}", 1, 10, "the key \"a\" appears twice"),
        ("\"\\ud800\"", 1, 8, "a lone UTF-16 surrogate in \\u escapes"),
        ("\"a\u{1}\"", 1, 3, "a control character inside a string (escape it)"),
        ("01", 1, 2, "unexpected text after the value"),
        ("-", 1, 2, "expected a digit"),
        ("1.", 1, 3, "expected a digit after '.'"),
        ("tru", 1, 1, "unexpected text (expected true)"),
        ("// comment\n{}", 1, 1, "unexpected character '/'"),
        ("{}\n  x", 2, 3, "unexpected text after the value"),
    ]) func refusesMalformedText(text: String, line: Int, column: Int, reason: String) {
        #expect(throws: JSONReadError(reason: reason, line: line, column: column)) { try JSONReader.read(Array(text.utf8)) }
    }

    @Test func refusesInvalidUTF8AndDeepNesting() {
        #expect(throws: JSONReadError.self) { try JSONReader.read([0x22, 0xC3, 0x28, 0x22]) }
        let deep = String(repeating: "[", count: JSONReader.maxDepth + 1) + String(repeating: "]", count: JSONReader.maxDepth + 1)
        #expect(throws: JSONReadError(reason: "nested deeper than 64 levels", line: 1, column: 65)) { try JSONReader.read(Array(deep.utf8)) }
        let fine = String(repeating: "[", count: JSONReader.maxDepth) + String(repeating: "]", count: JSONReader.maxDepth)
        #expect(throws: Never.self) { try JSONReader.read(Array(fine.utf8)) }
    }
}
