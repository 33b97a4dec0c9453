import BitmapText
import ImageDiff
import WaterfallLayout
import Raster

/// The review sheet's look. Two columns on an 1800 px sheet give each panel 289 px: a 1280×800
/// screenshot is drawn at 289×181 (1:4.4), large enough to recognise the screen, and the
/// difference panel keeps every differing pixel visible however far it is shrunk
/// (`DiffPanelReducer`), so a 1 px change shows as a red dot. Three columns would halve the
/// panels to ~190 px and make captions too short for real paths; one column wastes the width.
enum ReviewSheetStyle {
    static let width = 1800
    static let columns = 2
    static let gap = 8
    /// Space between the tile's frame and its content, and between two panels.
    static let padding = 6
    static let panelGap = 6
    /// A panel is at most this many times as tall as wide (full-page screenshots are narrowed).
    static let maxPanelAspect = 3
    static let captionLines = 3
    static let captionGap = 4
    static let font = FontSize.small
    static var captionHeight: Int { captionLines * BitmapFont.builtIn(font).lineHeight }

    static let outlineColor = RGBA8Color(r: 0xC8, g: 0xC8, b: 0xC8)
    static let highlightColor = RGBA8Color(r: 0xFF, g: 0x00, b: 0xFF, a: 0xC0)
    static let captionColor = RGBA8Color(r: 0x20, g: 0x20, b: 0x20)

    static let failedColor = RGBA8Color(r: 0xD6, g: 0x27, b: 0x28)
    static let passingChangeColor = RGBA8Color(r: 0xE8, g: 0xA2, b: 0x02)
    static let addedColor = RGBA8Color(r: 0x2C, g: 0xA0, b: 0x2C)
    static let removedColor = RGBA8Color(r: 0x75, g: 0x4A, b: 0xB8)
    static let unchangedColor = RGBA8Color(r: 0xB0, g: 0xB0, b: 0xB0)

    static func frameColor(_ verdict: PairVerdict) -> RGBA8Color {
        switch verdict.status {
        case .added: addedColor
        case .removed: removedColor
        case .unchanged: unchangedColor
        case .error, .changed, .resized: verdict.failed ? failedColor : passingChangeColor
        }
    }
}

/// Plans the review sheet of a compare: one tile per shown pair, in the order given, laid out
/// and paged like a render (SPEC §6) on the style's fixed columns.
enum ComparePlanner {
    /// The order of the sheet and the report (SPEC §9): failing pairs first, then passing
    /// changes, added, removed, unchanged; by status within each group (error, changed, resized,
    /// added, removed), then by path in natural order (the input is already in that order).
    static func sheetOrder(_ results: [PairResult]) -> [PairResult] {
        let rank: [PairStatus: Int] = [.error: 0, .changed: 1, .resized: 2, .added: 3, .removed: 4, .unchanged: 5]
        return results.enumerated().sorted { a, b in
            let keyA = (a.element.verdict.failed ? 0 : 1, rank[a.element.verdict.status]!, a.offset)
            let keyB = (b.element.verdict.failed ? 0 : 1, rank[b.element.verdict.status]!, b.offset)
            return keyA < keyB
        }.map(\.element)
    }

    /// The plan drawing `shown` (in order); tile i is `shown[i]`.
    /// With nothing to show, the one page is a band that says so: `no differences in N pairs`
    /// (`pairs`: how many were compared), never an empty sheet.
    static func plan(_ shown: [PairResult], pairs: Int, options: CompareOptions, output: RawPath) throws(SheetError) -> SheetPlan {
        let configuration: LayoutConfiguration
        do {
            configuration = try LayoutConfiguration(width: ReviewSheetStyle.width, columns: ReviewSheetStyle.columns,
                                                    columnGap: ReviewSheetStyle.gap, rowGap: ReviewSheetStyle.gap,
                                                    insets: LayoutInsets(all: ReviewSheetStyle.gap))
        } catch {
            preconditionFailure("the review sheet's style is a valid layout: \(error)")
        }
        let columnWidth = configuration.columnWidths.min()!
        let sizes = shown.map { LayoutSize(width: columnWidth, height: tileHeight($0, columnWidth: columnWidth)) }
        let layout: PagedLayout
        do {
            layout = try PagedLayout(configuration: configuration, sizes: sizes,
                                     limits: PageLimits(maxHeight: options.paging.maxHeight, maxTiles: options.paging.maxImagesPerPage))
        } catch {
            throw SheetError(.usage, "--page-height \(options.paging.maxHeight) is too small: \(error.description)")
        }
        let files = Planner.pageFiles(output: output, count: layout.pages.count)
        var pages = layout.pages.enumerated().map { number, page in
            let tiles = layout.tiles[page.tiles]
                .sorted { ($0.frame.y, $0.frame.x) < ($1.frame.y, $1.frame.x) }
                .map { tile in
                    TilePlan(index: tile.index, frame: tile.frame, layers: layers(shown[tile.index], frame: tile.frame, options: options))
                }
            return PagePlan(number: number + 1, file: files[number], height: page.height, tiles: tiles)
        }
        if shown.isEmpty {
            let font = BitmapFont.builtIn(.large), padding = 6, inset = ReviewSheetStyle.gap
            let band = LayoutRect(x: inset, y: inset, width: configuration.width - 2 * inset, height: font.lineHeight + 2 * padding)
            let text = pairs == 0 ? "no pairs to compare" : "no differences in \(pairs) \(pairs == 1 ? "pair" : "pairs")"
            let tile = TilePlan(index: nil, frame: band, layers: [
                .text(lines: [TextLine(text).fitted(toWidth: band.width, in: font)], rect: band, top: padding, font: .large,
                      color: ReviewSheetStyle.captionColor, inset: nil),
                .frame(rect: band, width: 2, color: ReviewSheetStyle.unchangedColor),
            ])
            pages = [PagePlan(number: 1, file: files.first ?? output, height: band.height + 2 * inset, tiles: [tile])]
        }
        // `images[i]` stands for pair i: the band scheduler's memory estimate reads its width, and
        // a drawn pair runs two decoders at once, so it is both sides' widths together.
        let images = shown.map { result in
            PlannedImage(standingIn: result.relativePath, width: max(1, (result.baseline?.width ?? 0) + (result.current?.width ?? 0)),
                         height: max(1, result.baseline?.height ?? 0, result.current?.height ?? 0))
        }
        return SheetPlan(width: configuration.width, background: .white, layout: layout, images: images, pages: pages,
                         underlay: .white, enlarge: .smooth, captions: [], sections: [], headerTexts: [])
    }

    private static func panelWidth(tileWidth: Int) -> Int {
        max(1, (tileWidth - 2 * ReviewSheetStyle.padding - 2 * ReviewSheetStyle.panelGap) / 3)
    }

    /// The pair's canvas size (both sides at the top left), or nil when neither side was read.
    private static func canvas(_ result: PairResult) -> (width: Int, height: Int)? {
        let sides = [result.baseline, result.current].compactMap { $0 }
        guard !sides.isEmpty else { return nil }
        return (sides.map(\.width).max()!, sides.map(\.height).max()!)
    }

    /// The panels' height for this column width: the canvas's aspect, capped; 5:8 without one.
    private static func panelHeight(_ result: PairResult, panelWidth: Int) -> Int {
        guard let canvas = canvas(result) else { return max(1, panelWidth * 5 / 8) }
        return min(ReviewSheetStyle.maxPanelAspect * panelWidth, scaled(canvas.height, panelWidth, canvas.width))
    }

    private static func tileHeight(_ result: PairResult, columnWidth: Int) -> Int {
        2 * ReviewSheetStyle.padding + panelHeight(result, panelWidth: panelWidth(tileWidth: columnWidth))
            + ReviewSheetStyle.captionGap + ReviewSheetStyle.captionHeight
    }

    /// `value × numerator / denominator`, rounded half up, at least 1.
    private static func scaled(_ value: Int, _ numerator: Int, _ denominator: Int) -> Int {
        max(1, (2 * value * numerator + denominator) / (2 * denominator))
    }

    /// The layers of one pair's tile: the pictures side by side at the top, their outlines, a box
    /// around the differing pixels, the caption below, and the frame in the status's colour.
    static func layers(_ result: PairResult, frame: LayoutRect, options: CompareOptions) -> [Layer] {
        let style = ReviewSheetStyle.self
        let width = panelWidth(tileWidth: frame.width)
        let height = max(1, frame.height - 2 * style.padding - style.captionGap - style.captionHeight)
        let boxes = (0..<3).map { n in
            LayoutRect(x: frame.x + style.padding + n * (width + style.panelGap), y: frame.y + style.padding,
                       width: width, height: height)
        }
        // Every picture at the scale that fits the canvas in a panel, at the panel's top left.
        var place: (Int, Int, LayoutRect) -> LayoutRect = { _, _, box in box }
        var scale: (Int) -> Int = { $0 }
        if let canvas = canvas(result) {
            let byWidth = scaled(canvas.height, width, canvas.width) <= height
            let (numerator, denominator) = byWidth ? (width, canvas.width) : (height, canvas.height)
            scale = { value in value * numerator / denominator }
            place = { w, h, box in
                LayoutRect(x: box.x, y: box.y, width: min(box.width, scaled(w, numerator, denominator)),
                           height: min(box.height, scaled(h, numerator, denominator)))
            }
        }
        // A side is drawn when it was read; so a pair with one unreadable side shows the other
        // side's picture beside the reason.
        func side(_ info: PairSideInfo?, _ path: RawPath?, _ box: LayoutRect) -> (image: PlannedImage, rect: LayoutRect)? {
            guard let info, let path else { return nil }
            return (info.planned(at: path), place(info.width, info.height, box))
        }
        let baseline = side(result.baseline, result.pair.baseline, boxes[0])
        let current = side(result.current, result.pair.current, boxes[1])
        var difference: LayoutRect?, highlight: LayoutRect?
        if baseline != nil, current != nil, result.verdict.status != .error, let canvas = canvas(result) {
            let panel = place(canvas.width, canvas.height, boxes[2])
            difference = panel
            if let bounds = result.bounds {
                // The bounds scaled into the panel with some room around them, kept inside the panel.
                let margin = 6
                let x0 = max(panel.x, panel.x + scale(bounds.x) - margin), y0 = max(panel.y, panel.y + scale(bounds.y) - margin)
                let x1 = min(panel.x + panel.width, panel.x + scale(bounds.x + bounds.width - 1) + 1 + margin)
                let y1 = min(panel.y + panel.height, panel.y + scale(bounds.y + bounds.height - 1) + 1 + margin)
                highlight = LayoutRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
            }
        }
        let captionRect = LayoutRect(x: frame.x + style.padding, y: frame.y + style.padding + height + style.captionGap,
                                     width: frame.width - 2 * style.padding, height: style.captionHeight)
        let font = BitmapFont.builtIn(style.font)
        // An error pair with both sides read (a mask that cannot be read) draws neither: its
        // difference was never made.
        let drawnSides = result.verdict.status == .error && baseline != nil && current != nil ? (nil, nil) : (baseline, current)
        var layers: [Layer] = [.pairPanels(PairPanels(baseline: drawnSides.0, current: drawnSides.1, difference: difference,
                                                      options: result.options.diff, ignore: result.options.ignore,
                                                      maskFile: result.maskFile, maxCanvasPixels: options.maxPixels))]
        layers += boxes.map { .frame(rect: LayoutRect(x: $0.x - 1, y: $0.y - 1, width: $0.width + 2, height: $0.height + 2),
                                     width: 1, color: style.outlineColor) }
        if let highlight { layers.append(.frame(rect: highlight, width: 2, color: style.highlightColor)) }
        layers.append(.text(lines: caption(result).map { $0.fitted(toWidth: captionRect.width, in: font) }, rect: captionRect,
                            top: 0, font: style.font, color: style.captionColor, inset: 0))
        layers.append(.frame(rect: frame, width: result.verdict.failed ? 4 : 2, color: style.frameColor(result.verdict)))
        return layers
    }

    /// Path; status and counts; sizes (or, for an error, the reason).
    static func caption(_ result: PairResult) -> [TextLine] {
        let verdict = result.verdict
        var status = verdict.status.rawValue.uppercased() + (verdict.failed ? " (failed)" : "")
        if let diffPixels = result.diffPixels, let ratio = result.diffRatio {
            status += "   \(diffPixels) px differ (\(percent(ratio)))"
            if let aa = result.aaPixels, aa > 0 { status += ", \(aa) anti-aliased" }
        }
        let third: String
        if let reason = result.reason {
            third = reason
        } else {
            func size(_ info: PairSideInfo?) -> String { info.map { "\($0.width)×\($0.height)" } ?? "none" }
            third = "baseline \(size(result.baseline))   current \(size(result.current))"
        }
        return [TextLine(bytes: result.relativePath.bytes), TextLine(status), TextLine(third)]
    }

    /// A ratio as a percentage with three decimals ("0.012%"), the same text on every machine.
    static func percent(_ ratio: Double) -> String {
        let thousandths = Int((ratio * 100_000).rounded())
        let fraction = String(thousandths % 1000)
        return "\(thousandths / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)%"
    }
}
