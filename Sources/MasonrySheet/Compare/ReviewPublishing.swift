import GalleryPage
import ImageDiff

extension Review {
    /// The HTML review page's model of a compare run (SPEC §11): the summary, the sheet's pages,
    /// and every pair with its numbers, both sides' files and where its difference panel sits
    /// on a page (the page shows it by cropping the sheet, so no extra picture is written).
    init(plan: SheetPlan, summary: CompareSummary, items: [PairResult]) {
        var panels: [Int: Review.Panel] = [:]
        for page in plan.pages {
            for tile in page.tiles {
                guard let index = tile.index else { continue }
                for case .pairPanels(let pair) in tile.layers {
                    if let rect = pair.difference {
                        panels[index] = Review.Panel(page: page.number, x: rect.x, y: rect.y, width: rect.width, height: rect.height)
                    }
                }
            }
        }
        let pairs = items.enumerated().map { index, item in
            func side(_ path: RawPath?, _ info: PairSideInfo?) -> Review.Side? {
                guard let path, let info else { return nil }
                return Review.Side(path: path.bytes, width: info.width, height: info.height)
            }
            return Review.Pair(path: item.relativePath.bytes, status: item.verdict.status.rawValue, failed: item.verdict.failed,
                               diffPixels: item.diffPixels ?? 0, aaPixels: item.aaPixels ?? 0, diffRatio: item.diffRatio ?? 0,
                               baseline: side(item.pair.baseline, item.baseline), current: side(item.pair.current, item.current),
                               diffPanel: panels[index], reason: item.reason)
        }
        self.init(summary: PairStatus.allCases.map { Review.StatusCount(status: $0.rawValue, count: summary.counts[$0] ?? 0) },
                  failed: summary.failed,
                  pages: plan.pages.map { SheetPage(file: $0.file.bytes, width: plan.width, height: $0.height) }, pairs: pairs)
    }
}
