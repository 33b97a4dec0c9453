import BitmapText
import ColorManagement
import WaterfallLayout
import CodecCore
import PNGCodec
import Raster
import TileCache

/// Paints a tile's layers, bottom first, each by the painter for its kind.
struct TilePainter: Sendable {
    let plan: SheetPlan
    let limits: DecodeLimits
    let opener: InputOpener
    let cache: ThumbnailCache?
    /// The run's transforms to sRGB; nil with `--no-color-management`.
    var colors: ColorTransformCache? = nil

    /// Paints `tile` into `canvas` (already filled with the background); the outcome is the
    /// picture's (a tile without a picture is `.drawn`), with the thumbnail key each picture's
    /// file was read under, in layer order (nil where it had none).
    func paint(_ tile: TilePlan, into canvas: Canvas) -> (outcome: TileOutcome, keys: [ThumbnailKey?]) {
        var outcome = TileOutcome.drawn
        var keys: [ThumbnailKey?] = []
        let clip = Self.pixelRect(tile.frame)
        let row: (Int) -> UnsafeMutableBufferPointer<UInt8>? = { canvas.row($0) }
        for layer in tile.layers {
            switch layer {
            case .picture(let image, let rect):
                let painted = picturePainter(for: plan.images[image]).paintKeyed(rect, into: canvas)
                outcome = painted.outcome
                keys.append(painted.key)
                if case .failed(let reason) = outcome {
                    ErrorTile.paint(rect, reason: reason, clip: clip, canvas: canvas)
                }
            case .pairPanels(let panels):
                outcome = PairPanelsPainter(panels: panels, limits: limits, opener: opener, underlay: plan.underlay).paint(into: canvas)
            case .playMark(let rect):
                PlayMarkPainter.paint(over: Self.pixelRect(rect), clip: clip, channels: canvas.channels, row: row)
            case .fill(let rect, let color):
                BoxPainter.fill(Self.pixelRect(rect), color: color, clip: clip, channels: canvas.channels, row: row)
            case .frame(let rect, let width, let color):
                BoxPainter.stroke(Self.pixelRect(rect), lineWidth: width, color: color, clip: clip,
                                  channels: canvas.channels, row: row)
            case .text(let lines, let rect, let top, let size, let color, let inset):
                let font = BitmapFont.builtIn(size)
                for (number, line) in lines.enumerated() {
                    let x = rect.x + (inset ?? (rect.width - line.width(in: font)) / 2)
                    TextPainter.draw(line, font: font, color: color, x: x, y: rect.y + top + number * font.lineHeight,
                                     clip: Self.pixelRect(rect), channels: canvas.channels, row: row)
                }
            }
        }
        return (outcome, keys)
    }

    /// The painter of `image`'s pictures on this plan's sheet.
    func picturePainter(for image: PlannedImage) -> PicturePainter {
        PicturePainter(image: image, limits: limits, opener: opener, underlay: plan.underlay, enlarge: plan.enlarge,
                       cache: cache, colors: colors)
    }

    private static func pixelRect(_ rect: LayoutRect) -> PixelRect { (rect.x, rect.y, rect.width, rect.height) }
}
