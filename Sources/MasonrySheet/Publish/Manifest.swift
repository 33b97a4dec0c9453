import CodecCore
import WaterfallLayout
import Raster

/// The `--manifest` JSON: the plan written out, plus what happened while painting. Keys in a
/// fixed order, one item per line, so manifests diff cleanly and are byte-identical for
/// identical runs.
///
/// - Version 1 (SPEC §4), for a one-page run without pages, captions or sections in play:
///   `items` lists the tiles whose pictures were drawn.
/// - Version 2 (SPEC §8): `pages`, and every item gains `page`; `items` lists every tile of the
///   plan (a tile whose file failed while decoding shows the background, and its file is also
///   in `skipped`), so `--plan-only`, `--page K` and a full run give the same items.
struct Manifest {
    let plan: SheetPlan
    let version: Int
    /// The tiles to list, in index order.
    let items: [PlacedTile]
    let skipped: [SkippedInput]

    /// The manifest's text. The geometry comes from `LayoutDescription`, in its key order;
    /// the manifest adds the background, pages, each item's path, source size and page, and the skips.
    func json() throws -> String {
        let layout = plan.layout
        let tallest = plan.pages.map(\.height).max() ?? 0
        let sheet = try JSON(encoding: LayoutDescription.Sheet(configuration: layout.configuration, height: tallest))
            .inserting([("background", .string(plan.background.hexString))], after: "insets")
        let items = try items.map { tile -> JSON in
            let image = plan.images[tile.index]
            var added: [(String, JSON)] = [("path", .string(Self.text(image.path))),
                                           ("sourceWidth", .int(image.width)), ("sourceHeight", .int(image.height)),
                                           ("format", .string(image.format.name))]
            if image.source.frameCount > 1 { added.append(("frames", .int(image.source.frameCount))) }
            if let seconds = image.source.durationSeconds { added.append(("duration", .int(seconds))) }
            if let fields = image.format.manifestFields {
                let shown = tile.imageFrame
                let target = image.orientation.displaySize(width: shown.width, height: shown.height)
                let decodeTarget = DecodeTarget(minimumWidth: target.width, minimumHeight: target.height)
                added += fields(image.source, decodeTarget).map { ($0.key, .string($0.value)) }
            }
            // The source's colour space as its file describes it (with or without --no-color-management).
            added.append(("color", .string(image.colorName)))
            if version >= 2 { added.append(("page", .int(layout.page(ofTile: tile.index) + 1))) }
            var item = try JSON(encoding: LayoutDescription.Item(tile)).inserting(added, after: "index")
            if !plan.captions.isEmpty {
                let band = tile.bandFrame
                let text = plan.captions[tile.index].map(\.string).joined(separator: "\n")
                item = item.inserting([("caption", .object([("x", .int(band.x)), ("y", .int(band.y)), ("width", .int(band.width)),
                                                            ("height", .int(band.height)), ("text", .string(text))]))],
                                      after: "image")
            }
            return item
        }
        let skips = skipped.map { JSON.object([("path", .string(Self.text($0.path))), ("reason", .string($0.reason))]) }
        var out = "{\n  \"version\": \(version),\n  \(OwnOutput.jsonMark),\n  \"sheet\": \(sheet.compact),\n"
        if version >= 2 {
            let pages = plan.pages.map { page in
                JSON.object([("file", .string(Self.text(page.file))), ("width", .int(plan.width)), ("height", .int(page.height))])
            }
            out += "  \"pages\": " + Self.lines(pages) + ",\n"
        }
        if !plan.sections.isEmpty {
            let headers = zip(layout.headers, plan.headerTexts).map { header, text in
                JSON.object([("section", .int(header.section)), ("page", .int(header.page + 1)),
                             ("x", .int(header.frame.x)), ("y", .int(header.frame.y)), ("width", .int(header.frame.width)),
                             ("height", .int(header.frame.height)), ("text", .string(text.string))])
            }
            out += "  \"sections\": " + Self.lines(headers) + ",\n"
        }
        out += "  \"items\": " + Self.lines(items) + ",\n"
        out += "  \"skipped\": " + Self.lines(skips) + "\n}\n"
        return out
    }

    /// A path as JSON text: itself when it is valid UTF-8, else its escaped display form.
    static func text(_ path: RawPath) -> String {
        String(validating: path.bytes, as: UTF8.self) ?? path.displayName
    }

    /// One value a line, indented as the manifest's lists (also the compare report's).
    static func lines(_ values: [JSON]) -> String {
        values.isEmpty ? "[]" : "[\n" + values.map { "    " + $0.compact }.joined(separator: ",\n") + "\n  ]"
    }
}

/// The few JSON shapes the manifest needs, with keys kept in the given order.
public enum JSON {
    case int(Int)
    case string(String)
    case object([(String, JSON)])
    case array([JSON])
    /// A finite number, written in Swift's shortest round-trip form (`0.25`, `1e-06`).
    case number(Double)
    case bool(Bool)
    case null

    /// One-line form with a space after each colon and comma.
    public var compact: String {
        switch self {
        case .int(let value): String(value)
        case .string(let value): Self.quoted(value)
        case .object(let members): "{" + members.map { Self.quoted($0.0) + ": " + $0.1.compact }.joined(separator: ", ") + "}"
        case .array(let elements): "[" + elements.map(\.compact).joined(separator: ", ") + "]"
        case .number(let value): value.description
        case .bool(let value): value ? "true" : "false"
        case .null: "null"
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
