import MasonryLayout
import Raster

/// How a run is cut into pages and files (SPEC §6).
public struct PagingOptions: Sendable, Hashable {
    /// No page taller than this; 0 for one page. Default 16384, the texture limit of most GPUs.
    public var maxHeight: Int = 16384
    /// At most this many images a page; 0 for no limit.
    public var maxImagesPerPage: Int = 0

    public init(maxHeight: Int = 16384, maxImagesPerPage: Int = 0) {
        self.maxHeight = maxHeight
        self.maxImagesPerPage = maxImagesPerPage
    }
}

/// Turns images and options into a `SheetPlan`: pure computation, no file is read.
enum Planner {
    /// The plan for `images` (their sizes from the header pass), with page files named after `output`.
    static func plan(images: [PlannedImage], options: SheetOptions, output: RawPath) throws(SheetError) -> SheetPlan {
        let sizes = images.map { LayoutSize(width: $0.width, height: $0.height) }
        let limits = PageLimits(maxHeight: options.paging.maxHeight, maxTiles: options.paging.maxImagesPerPage)
        let layout: PagedLayout
        do {
            layout = try PagedLayout(configuration: options.layout, sizes: sizes, limits: limits)
        } catch {
            throw SheetError(.usage, "--page-height \(options.paging.maxHeight) is too small: \(error.description)")
        }
        let files = pageFiles(output: output, count: layout.pages.count)
        let pages = layout.pages.enumerated().map { number, page in
            let tiles = layout.tiles[page.tiles]
                .sorted { ($0.frame.y, $0.frame.x) < ($1.frame.y, $1.frame.x) }
                .map { tile in
                    TilePlan(index: tile.index, frame: tile.frame, layers: [.picture(image: tile.index, rect: tile.imageFrame)])
                }
            return PagePlan(number: number + 1, file: files[number], height: page.height, tiles: tiles)
        }
        return SheetPlan(width: options.layout.width, background: options.background, layout: layout,
                         images: images, pages: pages)
    }

    /// SPEC §6 file names: `output` itself for one page; otherwise its stem, `-`, the page
    /// number zero-padded to at least three digits, and its extension (`sheet-001.png`).
    static func pageFiles(output: RawPath, count: Int) -> [RawPath] {
        guard count > 1 else { return [output] }
        let name = output.lastComponent
        let dot = name.lastIndex(of: UInt8(ascii: ".")).flatMap { $0 > 0 ? $0 : nil }
        let stem = Array(output.bytes.dropLast(name.count - (dot ?? name.count)))
        let suffix = dot.map { Array(name[$0...]) } ?? []
        let digits = max(3, String(count).count)
        return (1...count).map { number in
            let text = String(number)
            let padded = String(repeating: "0", count: digits - text.count) + text
            return RawPath(bytes: stem + Array("-\(padded)".utf8) + suffix)
        }
    }
}
