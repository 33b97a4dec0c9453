import MasonryLayout
import PNGCodec
import Raster

/// Paints a tile's layers, bottom first, each by the painter for its kind.
struct TilePainter: Sendable {
    let plan: SheetPlan
    let limits: PNGLimits

    /// Paints `tile` into `canvas` (already filled with the background); the outcome is the
    /// picture's (a tile without a picture is `.drawn`).
    func paint(_ tile: TilePlan, into canvas: Canvas) -> TileOutcome {
        var outcome = TileOutcome.drawn
        for layer in tile.layers {
            switch layer {
            case .picture(let image, let rect):
                let painter = PicturePainter(image: plan.images[image], limits: limits, background: plan.background)
                outcome = painter.paint(rect, into: canvas)
            case .pairPanels(let panels):
                outcome = PairPanelsPainter(panels: panels, limits: limits, background: plan.background).paint(into: canvas)
            }
        }
        return outcome
    }
}
