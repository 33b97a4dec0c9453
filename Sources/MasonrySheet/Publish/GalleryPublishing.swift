import GalleryPage

extension Gallery {
    /// The HTML gallery's model of `plan` (SPEC §11): its pages and, for every tile, where it
    /// is, the source file it links to and its caption as drawn. It needs the plan only, so
    /// `--plan-only` can write the page once for page-parallel runs.
    init(_ plan: SheetPlan, title: String?) {
        let pages = plan.pages.map { SheetPage(file: $0.file.bytes, width: plan.width, height: $0.height) }
        let tiles = plan.layout.tiles.map { tile in
            Gallery.Tile(page: plan.layout.page(ofTile: tile.index) + 1, x: tile.frame.x, y: tile.frame.y,
                         width: tile.frame.width, height: tile.frame.height, path: plan.images[tile.index].path.bytes,
                         caption: plan.captions.isEmpty ? nil : plan.captions[tile.index].map(\.string).joined(separator: "\n"))
        }
        self.init(title: title, pages: pages, tiles: tiles)
    }
}
