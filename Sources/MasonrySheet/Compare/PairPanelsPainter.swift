import ImageDiff
import WaterfallLayout
import CodecCore
import PNGCodec
import Raster

/// The pictures of a compare tile (the `Layer.pairPanels` layer): baseline, current and difference
/// side by side, each at the same scale (the pair's canvas fitted to a panel). The caption, panel
/// outlines and frame are `.text` and `.frame` layers above it.
struct PairPanels: Sendable {
    /// The sides to draw (nil when absent or unreadable), with where each picture goes.
    let baseline: (image: PlannedImage, rect: LayoutRect)?
    let current: (image: PlannedImage, rect: LayoutRect)?
    /// Where the difference picture goes, when both sides are drawn.
    let difference: LayoutRect?
    let options: DiffOptions
    /// The pair's ignored regions (`PairMasking`), hatched in the difference panel.
    let ignore: [PixelRect]
    let maskFile: RawPath?
    /// A canvas with more pixels than this is not drawn pixel by pixel: the panel is filled red
    /// (the counts never need it; see `CanvasDiff.finish`).
    let maxCanvasPixels: Int
}

/// Paints `PairPanels`: decodes each drawn side once, both in lockstep when there are two (so the
/// baseline and current panels and the difference come from the same pass), shrinking each
/// picture straight into its panel and the difference through `DiffPanelReducer`, so single
/// differing pixels stay visible.
struct PairPanelsPainter {
    let panels: PairPanels
    let limits: DecodeLimits
    let opener: InputOpener
    let underlay: RGBA8Color

    func paint(into canvas: Canvas) -> TileOutcome {
        switch (panels.baseline, panels.current) {
        case let (baseline?, current?):
            let painter = LockstepPanels(panels: panels, baseline: baseline, current: current, underlay: underlay, canvas: canvas)
            do {
                let mask = try PairMasking.mask(width: max(baseline.image.width, current.image.width),
                                                height: max(baseline.image.height, current.image.height),
                                                rectangles: panels.ignore, maskFile: panels.maskFile, limits: limits, opener: opener)
                _ = try PairDecoding.compare(baseline: baseline.image, current: current.image, limits: limits,
                                             options: panels.options, ignore: mask, opener: opener, observer: painter)
            } catch {
                for rect in [baseline.rect, current.rect] + (panels.difference.map { [$0] } ?? []) { fill(rect, underlay, canvas) }
                return .failed((error as? PairFailure)?.reason ?? (error as? MaskFailure)?.reason ?? "\(error)")
            }
            if !painter.drawsCanvas, let rect = panels.difference {
                let red = DiffPicture.differingColor
                fill(rect, RGBA8Color(r: red.r, g: red.g, b: red.b), canvas)
            }
            return .drawn
        case let (side?, nil), let (nil, side?):
            return PicturePainter(image: side.image, limits: limits, opener: opener, underlay: underlay, enlarge: .smooth,
                                  cache: nil, colors: panels.options.colorManagement ? PairDecoding.compareTransforms : nil)
                .paint(side.rect, into: canvas)
        case (nil, nil):
            return .drawn
        }
    }

    private func fill(_ rect: LayoutRect, _ color: RGBA8Color, _ canvas: Canvas) {
        for line in 0..<rect.height {
            fillRow(canvas.pixels(y: rect.y + line, x: rect.x, width: rect.width), with: color, channels: canvas.channels)
        }
    }
}

/// The row observer that draws the three panels while `PairDecoding.compare` runs.
private final class LockstepPanels: PairRowObserver {
    private let canvas: Canvas
    private let underlay: RGBA8Color
    private let baselineRect: LayoutRect, currentRect: LayoutRect, differenceRect: LayoutRect
    private let baseline: PlannedImage, current: PlannedImage
    private var baselineResampler: StreamingResampler?
    private var currentResampler: StreamingResampler?
    private let reducer: DiffPanelReducer?
    private var pictureRow: [UInt8]
    let drawsCanvas: Bool

    init(panels: PairPanels, baseline: (image: PlannedImage, rect: LayoutRect), current: (image: PlannedImage, rect: LayoutRect),
         underlay: RGBA8Color, canvas: Canvas) {
        self.canvas = canvas
        self.underlay = underlay
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

    func start(baseline format: PixelFormat, current currentFormat: PixelFormat) {
        baselineResampler = Self.resampler(baseline, format, into: baselineRect)
        currentResampler = Self.resampler(current, currentFormat, into: currentRect)
    }

    /// A resampler for the decoder's rows (compact: RGB8 for opaque images, grey8 for grey ones).
    private static func resampler(_ image: PlannedImage, _ format: PixelFormat,
                                  into rect: LayoutRect) -> StreamingResampler {
        StreamingResampler(sourceWidth: image.width, sourceHeight: image.height, targetWidth: rect.width,
                           targetHeight: rect.height, sourceFormat: format)
    }

    func baselineRow(_ y: Int, _ row: UnsafeBufferPointer<UInt8>) { push(row, baselineResampler, baselineRect) }
    func currentRow(_ y: Int, _ row: UnsafeBufferPointer<UInt8>) { push(row, currentResampler, currentRect) }

    private func push(_ row: UnsafeBufferPointer<UInt8>, _ resampler: StreamingResampler?, _ rect: LayoutRect) {
        resampler?.push(row: row) { targetRow, pixels in
            compositeOver(background: underlay, source: pixels,
                          into: canvas.pixels(y: rect.y + targetRow, x: rect.x, width: rect.width), channels: canvas.channels)
        }
    }

    func canvasRow(_ y: Int, classes: UnsafeBufferPointer<UInt8>, diff: CanvasDiff) {
        guard let reducer else { return }
        pictureRow.withUnsafeMutableBufferPointer { picture in
            diff.paintPictureRow(y, classes: classes, into: picture)
            reducer.push(picture: UnsafeBufferPointer(picture), classes: classes) { targetRow, pixels in
                compositeOver(background: underlay, source: pixels,
                              into: canvas.pixels(y: differenceRect.y + targetRow, x: differenceRect.x, width: differenceRect.width),
                              channels: canvas.channels)
            }
        }
    }
}
