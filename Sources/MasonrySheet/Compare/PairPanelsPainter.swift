import BitmapText
import ImageDiff
import MasonryLayout
import PNGCodec
import Raster

/// A compare tile's content (the `Layer.pairPanels` layer): baseline | current | difference side
/// by side, each picture at the same scale (the pair's canvas fitted to a panel), a caption below,
/// and a frame in the colour of the pair's status.
struct PairPanels: Sendable {
    /// The sides to draw (nil when absent or unreadable), with where each picture goes.
    let baseline: (image: PlannedImage, rect: LayoutRect)?
    let current: (image: PlannedImage, rect: LayoutRect)?
    /// Where the difference picture goes, when both sides are drawn.
    let difference: LayoutRect?
    /// A box around the differing pixels in the difference panel, so a change of a few pixels is
    /// found at a glance on a shrunk panel (nil without differing pixels).
    let highlight: LayoutRect?
    /// The three panel boxes, outlined so white pictures stand out from the sheet.
    let panels: [LayoutRect]
    let caption: [TextLine]
    /// The caption's first line's top-left; lines follow every `font.lineHeight` px.
    let captionOrigin: (x: Int, y: Int)
    let frame: LayoutRect
    let frameColor: RGBA8Color
    let frameWidth: Int
    let options: DiffOptions
    /// A canvas with more pixels than this is not drawn pixel by pixel: the panel is filled red
    /// (the counts never need it; see `CanvasDiff.finish`).
    let maxCanvasPixels: Int

    static let font = BitmapFont.builtIn(.small)
    static let outline = RGBA8Color(r: 0xC8, g: 0xC8, b: 0xC8)
    static let highlightColor = RGBA8Color(r: 0xFF, g: 0x00, b: 0xFF, a: 0xC0)
    static let captionColor = RGBA8Color(r: 0x20, g: 0x20, b: 0x20)
}

/// Paints `PairPanels`: decodes each drawn side once, both in lockstep when there are two (so the
/// baseline and current panels and the difference come from the same pass), shrinking each
/// picture straight into its panel and the difference through `DiffPanelReducer`, so single
/// differing pixels stay visible.
struct PairPanelsPainter {
    let panels: PairPanels
    let limits: PNGLimits
    let background: RGBA8Color

    func paint(into canvas: Canvas) -> TileOutcome {
        var outcome = TileOutcome.drawn
        switch (panels.baseline, panels.current) {
        case let (baseline?, current?):
            do {
                let painter = LockstepPanels(panels: panels, baseline: baseline, current: current,
                                             background: background, canvas: canvas)
                _ = try PairDecoding.compare(baseline: baseline.image.path, current: current.image.path, limits: limits,
                                             options: panels.options, observer: painter)
                if !painter.drawsCanvas, let rect = panels.difference { fill(rect, DiffPicture.differingColor, canvas) }
            } catch {
                for rect in panels.panels { fill(rect, (background.r, background.g, background.b), canvas) }
                outcome = .failed(error.reason)
            }
        case let (baseline?, nil):
            outcome = PicturePainter(image: baseline.image, limits: limits, background: background).paint(baseline.rect, into: canvas)
        case let (nil, current?):
            outcome = PicturePainter(image: current.image, limits: limits, background: background).paint(current.rect, into: canvas)
        case (nil, nil):
            break
        }
        drawDecorations(canvas)
        return outcome
    }

    /// Panel outlines, the caption and the frame.
    private func drawDecorations(_ canvas: Canvas) {
        let frame = panels.frame
        let clip = (frame.x, frame.y, frame.width, frame.height)
        let row: (Int) -> UnsafeMutableBufferPointer<UInt8>? = { y in canvas.row(y) }
        for panel in panels.panels {
            BoxPainter.stroke((panel.x - 1, panel.y - 1, panel.width + 2, panel.height + 2), lineWidth: 1,
                              color: PairPanels.outline, clip: clip, channels: canvas.channels, row: row)
        }
        if let box = panels.highlight, let difference = panels.difference {
            BoxPainter.stroke((box.x, box.y, box.width, box.height), lineWidth: 2, color: PairPanels.highlightColor,
                              clip: (difference.x, difference.y, difference.width, difference.height),
                              channels: canvas.channels, row: row)
        }
        for (number, line) in panels.caption.enumerated() {
            TextPainter.draw(line, font: PairPanels.font, color: PairPanels.captionColor, x: panels.captionOrigin.x,
                             y: panels.captionOrigin.y + number * PairPanels.font.lineHeight, clip: clip,
                             channels: canvas.channels, row: row)
        }
        BoxPainter.stroke(clip, lineWidth: panels.frameWidth, color: panels.frameColor, clip: clip,
                          channels: canvas.channels, row: row)
    }

    private func fill(_ rect: LayoutRect, _ colour: (r: UInt8, g: UInt8, b: UInt8), _ canvas: Canvas) {
        BoxPainter.fill((rect.x, rect.y, rect.width, rect.height), color: RGBA8Color(r: colour.r, g: colour.g, b: colour.b),
                        clip: (rect.x, rect.y, rect.width, rect.height), channels: canvas.channels) { canvas.row($0) }
    }
}

/// The row observer that draws the three panels while `PairDecoding.compare` runs.
private final class LockstepPanels: PairRowObserver {
    private let canvas: Canvas
    private let background: RGBA8Color
    private let baselineRect: LayoutRect, currentRect: LayoutRect, differenceRect: LayoutRect
    private let baseline: PlannedImage, current: PlannedImage
    private var baselineResampler: StreamingResampler?
    private var currentResampler: StreamingResampler?
    private let reducer: DiffPanelReducer?
    private var pictureRow: [UInt8]
    let drawsCanvas: Bool

    init(panels: PairPanels, baseline: (image: PlannedImage, rect: LayoutRect), current: (image: PlannedImage, rect: LayoutRect),
         background: RGBA8Color, canvas: Canvas) {
        self.canvas = canvas
        self.background = background
        baselineRect = baseline.rect
        currentRect = current.rect
        differenceRect = panels.difference ?? baseline.rect
        self.baseline = baseline.image
        self.current = current.image
        let width = max(baseline.image.width, current.image.width), height = max(baseline.image.height, current.image.height)
        let (area, overflow) = width.multipliedReportingOverflow(by: height)
        let drawn = !overflow && area <= panels.maxCanvasPixels
        drawsCanvas = drawn
        reducer = drawn ? DiffPanelReducer(sourceWidth: width, sourceHeight: height, targetWidth: differenceRect.width,
                                           targetHeight: differenceRect.height, includeAA: panels.options.includeAA) : nil
        pictureRow = [UInt8](repeating: 0, count: drawn ? 4 * width : 0)
    }

    func start(baseline format: StreamingResampler.SourceFormat, current currentFormat: StreamingResampler.SourceFormat) {
        baselineResampler = Self.resampler(baseline, format, into: baselineRect)
        currentResampler = Self.resampler(current, currentFormat, into: currentRect)
    }

    /// A resampler for the decoder's rows (compact: RGB8 for opaque images, grey8 for grey ones).
    private static func resampler(_ image: PlannedImage, _ format: StreamingResampler.SourceFormat,
                                  into rect: LayoutRect) -> StreamingResampler {
        StreamingResampler(sourceWidth: image.width, sourceHeight: image.height, targetWidth: rect.width,
                           targetHeight: rect.height, sourceFormat: format)
    }

    func baselineRow(_ y: Int, _ row: UnsafeBufferPointer<UInt8>) { push(row, baselineResampler, baselineRect) }
    func currentRow(_ y: Int, _ row: UnsafeBufferPointer<UInt8>) { push(row, currentResampler, currentRect) }

    private func push(_ row: UnsafeBufferPointer<UInt8>, _ resampler: StreamingResampler?, _ rect: LayoutRect) {
        resampler?.push(row: row) { targetRow, pixels in
            compositeOver(background: background, source: pixels,
                          into: canvas.pixels(y: rect.y + targetRow, x: rect.x, width: rect.width), channels: canvas.channels)
        }
    }

    func canvasRow(_ y: Int, classes: UnsafeBufferPointer<UInt8>, diff: CanvasDiff) {
        guard let reducer else { return }
        pictureRow.withUnsafeMutableBufferPointer { picture in
            diff.paintPictureRow(y, classes: classes, into: picture)
            reducer.push(picture: UnsafeBufferPointer(picture), classes: classes) { targetRow, pixels in
                compositeOver(background: background, source: pixels,
                              into: canvas.pixels(y: differenceRect.y + targetRow, x: differenceRect.x, width: differenceRect.width),
                              channels: canvas.channels)
            }
        }
    }
}
