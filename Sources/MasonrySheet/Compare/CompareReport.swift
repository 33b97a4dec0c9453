import CompareConfig
import ImageDiff
import WaterfallLayout

/// The `--report` JSON of a compare (SPEC §9): keys in a fixed order, one item per line, so
/// reports diff cleanly and are byte-identical for identical runs.
struct CompareReport {
    let options: CompareOptions
    let summary: CompareSummary
    /// The plan of the review sheet (its pages, and the tile of each shown item).
    let plan: SheetPlan
    /// Every pair in the sheet's order; the first `plan.layout.tiles.count` are drawn.
    let items: [PairResult]

    func json() -> String {
        let optionsJSON = JSON.object([
            ("threshold", .number(options.diff.threshold)), ("includeAA", .bool(options.diff.includeAA)),
            ("maxDiffPixels", .int(options.limits.maxDiffPixels)), ("maxDiffRatio", .number(options.limits.maxDiffRatio)),
            ("colorManagement", .bool(options.diff.colorManagement)),
        ])
        let counts = PairStatus.allCases.map { ($0.rawValue, JSON.int(summary.counts[$0] ?? 0)) }
        let summaryJSON = JSON.object(counts + [("failed", .int(summary.failed))])
        let pages = plan.pages.map { page in
            JSON.object([("file", .string(Manifest.text(page.file))), ("width", .int(plan.width)), ("height", .int(page.height))])
        }
        let itemsJSON = items.enumerated().map { index, result in itemJSON(result, tile: index < plan.layout.tiles.count ? index : nil) }
        var out = "{\n  \"version\": 1,\n  \(OwnOutput.jsonMark),\n"
        out += "  \"options\": \(optionsJSON.compact),\n"
        out += "  \"summary\": \(summaryJSON.compact),\n"
        out += "  \"pages\": " + Manifest.lines(pages) + ",\n"
        out += "  \"items\": " + Manifest.lines(itemsJSON) + "\n}\n"
        return out
    }

    private func itemJSON(_ result: PairResult, tile index: Int?) -> JSON {
        func side(_ info: PairSideInfo?) -> JSON {
            guard let info else { return .null }
            return .object([("width", .int(info.width)), ("height", .int(info.height)), ("sha256", .string(info.sha256))])
        }
        func optional(_ value: Int?) -> JSON { value.map(JSON.int) ?? .null }
        let bounds: JSON = result.bounds.map { Self.rect($0.x, $0.y, $0.width, $0.height) } ?? .null
        var page: JSON = .null, tile: JSON = .null
        if let index {
            let frame = plan.layout.tiles[index].frame
            page = .int(plan.layout.page(ofTile: index) + 1)
            tile = Self.rect(frame.x, frame.y, frame.width, frame.height)
        }
        var members: [(String, JSON)] = [
            ("path", .string(Manifest.text(result.relativePath))), ("status", .string(result.verdict.status.rawValue)),
            ("failed", .bool(result.verdict.failed)), ("baseline", side(result.baseline)), ("current", side(result.current)),
            ("diffPixels", optional(result.diffPixels)), ("aaPixels", optional(result.aaPixels)),
            ("diffRatio", result.diffRatio.map(JSON.number) ?? .null), ("bounds", bounds), ("page", page), ("tile", tile),
        ]
        members.insert(("ignoredPixels", optional(result.ignoredPixels)), at: 8)
        members.append(("options", Self.options(result.options, maskFile: result.maskFile)))
        if let reason = result.reason { members.append(("reason", .string(reason))) }
        return .object(members)
    }

    /// A pair's effective options, with the report's (and the config file's) key names.
    static func options(_ options: PairOptions, maskFile: RawPath?) -> JSON {
        .object([
            ("threshold", .number(options.diff.threshold)), ("includeAA", .bool(options.diff.includeAA)),
            ("maxDiffPixels", .int(options.limits.maxDiffPixels)), ("maxDiffRatio", .number(options.limits.maxDiffRatio)),
            ("allowResize", .bool(options.limits.allowResize)), ("failOnMissing", .bool(options.limits.failOnMissing)),
            ("ignore", .array(options.ignore.map { .array([.int($0.x), .int($0.y), .int($0.width), .int($0.height)]) })),
            ("mask", maskFile.map { .string(Manifest.text($0)) } ?? .null),
        ])
    }

    private static func rect(_ x: Int, _ y: Int, _ width: Int, _ height: Int) -> JSON {
        .object([("x", .int(x)), ("y", .int(y)), ("width", .int(width)), ("height", .int(height))])
    }
}
