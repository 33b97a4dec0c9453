import WaterfallLayout
@testable import MasonrySheet
import Testing

/// The manifest's geometry comes from `LayoutDescription` through `JSON(encoding:)`, which
/// keeps the order `encode(to:)` wrote the keys in (SPEC §4).
@Suite struct ManifestEncodingTests {
    @Test func layoutDescriptionKeepsSpecKeyOrder() throws {
        let configuration = try LayoutConfiguration(width: 340, columns: 3, columnGap: 10, rowGap: 10, insets: .init(all: 10))
        let layout = MasonryLayout(configuration: configuration,
                                   sizes: [LayoutSize(width: 100, height: 50), LayoutSize(width: 1, height: 20000)])
        // Tile 1: 1x20000 in column 1, capped to 400 with a 1 px picture at 120 + 49.
        #expect(try JSON(encoding: LayoutDescription(layout)).compact == #"""
            {"sheet": {"width": 340, "height": 420, "columns": 3, "columnGap": 10, "rowGap": 10, \#
            "insets": {"top": 10, "right": 10, "bottom": 10, "left": 10}}, \#
            "items": [{"index": 0, "column": 0, "x": 10, "y": 10, "width": 100, "height": 50, \#
            "image": {"x": 10, "y": 10, "width": 100, "height": 50}}, \#
            {"index": 1, "column": 1, "x": 120, "y": 10, "width": 100, "height": 400, \#
            "image": {"x": 169, "y": 10, "width": 1, "height": 400}}]}
            """#)
        #expect(try JSON(encoding: LayoutInsets(top: 1, right: 2, bottom: 3, left: 4)).compact
                == #"{"top": 1, "right": 2, "bottom": 3, "left": 4}"#)
    }

    @Test func insertsAfterTheNamedKey() {
        let object = JSON.object([("a", .int(1)), ("b", .int(2))])
        #expect(object.inserting([("x", .string("y"))], after: "a").compact == #"{"a": 1, "x": "y", "b": 2}"#)
        #expect(object.inserting([("x", .int(3))], after: "none").compact == #"{"a": 1, "b": 2, "x": 3}"#)
    }

    /// Values the manifest never holds are refused, not written wrongly (and never recurse).
    @Test func refusesWhatItCannotWrite() throws {
        struct Flags: Encodable { let on = true }
        struct Ratio: Encodable { let value = 0.5 }
        struct Small: Encodable { let value: UInt8 = 1 }
        struct Missing: Encodable {
            let value: Int? = nil
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encodeNil(forKey: .value)
            }
            enum CodingKeys: CodingKey { case value }
        }
        #expect(throws: EncodingError.self) { try JSON(encoding: Flags()) }
        #expect(throws: EncodingError.self) { try JSON(encoding: Ratio()) }
        #expect(throws: EncodingError.self) { try JSON(encoding: Small()) }
        #expect(throws: EncodingError.self) { try JSON(encoding: Missing()) }
        #expect(try JSON(encoding: ["a", "b"]).compact == #"["a", "b"]"#)
    }
}
