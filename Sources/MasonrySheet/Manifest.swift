import MasonryLayout
import Raster

/// The `--manifest` JSON of SPEC §4: keys in a fixed order, one item per
/// line, so manifests diff cleanly and are byte-identical for identical runs.
struct Manifest {
    let layout: MasonryLayout
    let background: RGBA8Color
    /// The tiles whose pictures were drawn, in index order.
    let drawn: [PlacedTile]
    /// Every laid-out image's path and source size, by index.
    let paths: [RawPath]
    let sourceSizes: [LayoutSize]
    let skipped: [SkippedInput]

    /// The manifest's text. The geometry comes from `LayoutDescription`, in its key order;
    /// the manifest adds the background, each item's path and source size, and the skips.
    func json() throws -> String {
        let sheet = try JSON(encoding: LayoutDescription.Sheet(layout))
            .inserting([("background", .string(background.hexString))], after: "insets")
        let items = try drawn.map { tile -> JSON in
            let source = sourceSizes[tile.index]
            return try JSON(encoding: LayoutDescription.Item(tile)).inserting(
                [("path", .string(Self.text(paths[tile.index]))),
                 ("sourceWidth", .int(source.width)), ("sourceHeight", .int(source.height))],
                after: "index")
        }
        let skips = skipped.map { JSON.object([("path", .string(Self.text($0.path))), ("reason", .string($0.reason))]) }
        var out = "{\n  \"version\": 1,\n  \"sheet\": \(sheet.compact),\n"
        out += "  \"items\": " + Self.lines(items) + ",\n"
        out += "  \"skipped\": " + Self.lines(skips) + "\n}\n"
        return out
    }

    /// A path as JSON text: itself when it is valid UTF-8, else its escaped display form.
    private static func text(_ path: RawPath) -> String {
        String(validating: path.bytes, as: UTF8.self) ?? path.displayName
    }

    private static func lines(_ values: [JSON]) -> String {
        values.isEmpty ? "[]" : "[\n" + values.map { "    " + $0.compact }.joined(separator: ",\n") + "\n  ]"
    }
}

/// The few JSON shapes the manifest needs, with keys kept in the given order.
public enum JSON {
    case int(Int)
    case string(String)
    case object([(String, JSON)])
    case array([JSON])

    /// One-line form with a space after each colon and comma.
    public var compact: String {
        switch self {
        case .int(let value): String(value)
        case .string(let value): Self.quoted(value)
        case .object(let members): "{" + members.map { Self.quoted($0.0) + ": " + $0.1.compact }.joined(separator: ", ") + "}"
        case .array(let elements): "[" + elements.map(\.compact).joined(separator: ", ") + "]"
        }
    }

    /// An object with `members` added after the member named `key` (at the end without one);
    /// any other value is returned unchanged.
    func inserting(_ members: [(String, JSON)], after key: String) -> JSON {
        guard case .object(var existing) = self else { return self }
        let position = existing.firstIndex { $0.0 == key }.map { $0 + 1 } ?? existing.count
        existing.insert(contentsOf: members, at: position)
        return .object(existing)
    }

    /// `text` as a JSON string literal (quotes, backslashes and control characters escaped).
    public static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
