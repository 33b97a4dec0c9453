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

    var json: String {
        let configuration = layout.configuration
        let insets = configuration.insets
        let sheet: JSON = .object([
            ("width", .int(layout.width)), ("height", .int(layout.height)),
            ("columns", .int(configuration.columns)), ("columnGap", .int(configuration.columnGap)),
            ("rowGap", .int(configuration.rowGap)),
            ("insets", .object([("top", .int(insets.top)), ("right", .int(insets.right)),
                                ("bottom", .int(insets.bottom)), ("left", .int(insets.left))])),
            ("background", .string(background.hexString)),
        ])
        let items = drawn.map { tile -> JSON in
            let source = sourceSizes[tile.index]
            return .object([
                ("index", .int(tile.index)), ("path", .string(Self.text(paths[tile.index]))),
                ("sourceWidth", .int(source.width)), ("sourceHeight", .int(source.height)),
                ("column", .int(tile.column)), ("x", .int(tile.frame.x)), ("y", .int(tile.frame.y)),
                ("width", .int(tile.frame.width)), ("height", .int(tile.frame.height)),
                ("image", .object([("x", .int(tile.imageFrame.x)), ("y", .int(tile.imageFrame.y)),
                                   ("width", .int(tile.imageFrame.width)), ("height", .int(tile.imageFrame.height))])),
            ])
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

    /// One-line form with a space after each colon and comma.
    var compact: String {
        switch self {
        case .int(let value): String(value)
        case .string(let value): Self.quoted(value)
        case .object(let members): "{" + members.map { Self.quoted($0.0) + ": " + $0.1.compact }.joined(separator: ", ") + "}"
        }
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
