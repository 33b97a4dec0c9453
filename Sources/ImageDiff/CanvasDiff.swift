/// The difference of two images whose sizes may differ (SPEC §9), streamed: both are placed at
/// the top left of a canvas `max(widths) × max(heights)`; their overlap is compared by
/// pixelmatch's rule (`StreamingPixelmatch` on the overlap, so the anti-aliasing test sees the
/// overlap's edges as image edges), and every canvas pixel outside either image is differing.
/// Pixels of `ignore` (canvas coordinates) are neither compared nor counted: their class is
/// `ignored`, and `diffRatio` divides by the pixels compared.
///
/// Push the overlap's rows (`overlapHeight` of them, each the full row of its image), then call
/// `finish`; canvas rows of classes (`canvasWidth` bytes) are emitted in order as they become final.
public final class CanvasDiff {
    public let canvasWidth: Int
    public let canvasHeight: Int
    public let overlapWidth: Int
    public let overlapHeight: Int
    private let baselineWidth: Int
    private let currentWidth: Int
    private let overlap: StreamingPixelmatch
    public let ignore: IgnoreMask
    /// One canvas row: the overlap's classes then `differing` up to the canvas width.
    private var canvasRow: [UInt8]
    private var finished = false

    public init(baselineWidth: Int, baselineHeight: Int, currentWidth: Int, currentHeight: Int,
                options: DiffOptions = DiffOptions(), ignore: IgnoreMask? = nil) {
        canvasWidth = max(baselineWidth, currentWidth)
        canvasHeight = max(baselineHeight, currentHeight)
        overlapWidth = min(baselineWidth, currentWidth)
        overlapHeight = min(baselineHeight, currentHeight)
        self.baselineWidth = baselineWidth
        self.currentWidth = currentWidth
        let ignore = ignore ?? IgnoreMask(width: canvasWidth, height: canvasHeight)
        precondition(ignore.width == canvasWidth && ignore.height == canvasHeight, "the mask is the canvas's size")
        self.ignore = ignore
        overlap = StreamingPixelmatch(width: overlapWidth, height: overlapHeight, options: options, ignore: ignore)
        canvasRow = [UInt8](repeating: PixelClass.differing, count: canvasWidth)
    }

    public var options: DiffOptions { overlap.options }
    /// Whether the two sizes differ.
    public var isResized: Bool { canvasWidth != overlapWidth || canvasHeight != overlapHeight }
    /// The canvas's pixels outside the overlap and not ignored, all differing.
    private var outsidePixels: Int {
        let ignoredOutside = ignore.ignoredPixels - ignore.ignoredPixels(in: PixelRect(x: 0, y: 0, width: overlapWidth, height: overlapHeight))
        return canvasWidth * canvasHeight - overlapWidth * overlapHeight - ignoredOutside
    }
    /// Canvas pixels in ignored regions.
    public var ignoredPixels: Int { ignore.ignoredPixels }
    /// Canvas pixels compared (not ignored).
    public var comparedPixels: Int { canvasWidth * canvasHeight - ignore.ignoredPixels }

    /// Differing pixels of the canvas (final after `finish`).
    public var diffPixels: Int { overlap.diffPixels + outsidePixels }
    /// Anti-aliased pixels of the overlap.
    public var aaPixels: Int { overlap.aaPixels }
    /// `diffPixels` divided by the pixels compared (0 when every pixel is ignored).
    public var diffRatio: Double { comparedPixels == 0 ? 0 : Double(diffPixels) / Double(comparedPixels) }
    /// What the verdict needs (see `PairVerdict`), once finished.
    public var findings: PairFindings {
        .compared(diffPixels: diffPixels, area: comparedPixels, resized: isResized)
    }
    /// The bounding box of the pixels counted in `diffPixels`, or nil when there are none.
    public var bounds: PixelRect? {
        var outside: PixelRect?
        if canvasWidth > overlapWidth {
            outside = ignore.bounds(ofComparedPixelsIn: PixelRect(x: overlapWidth, y: 0, width: canvasWidth - overlapWidth,
                                                                  height: canvasHeight))
        }
        if canvasHeight > overlapHeight {
            outside = PixelRect.union(outside, ignore.bounds(ofComparedPixelsIn: PixelRect(x: 0, y: overlapHeight, width: canvasWidth,
                                                                                           height: canvasHeight - overlapHeight)))
        }
        return PixelRect.union(overlap.bounds, outside)
    }

    /// Pushes the next overlap row: row y of the baseline and of the current image, each RGBA8
    /// (`4 ×` its width bytes) or opaque RGB8 (`3 ×` its width). Only the first `overlapWidth`
    /// pixels are read.
    public func push(baseline: UnsafeBufferPointer<UInt8>, current: UnsafeBufferPointer<UInt8>,
                     emit: (Int, UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
        try overlap.push(baseline: Self.overlapPart(of: baseline, width: baselineWidth, overlapWidth: overlapWidth),
                         current: Self.overlapPart(of: current, width: currentWidth, overlapWidth: overlapWidth)) { y, classes in
            if overlapWidth == canvasWidth { return try emit(y, classes) }
            try canvasRow.withUnsafeMutableBufferPointer { row in
                _ = row.update(fromContentsOf: classes)
                if !ignore.isEmpty {
                    UnsafeMutableBufferPointer(rebasing: row[overlapWidth...]).update(repeating: PixelClass.differing)
                    ignore.mark(row: y, in: row)
                }
                try emit(y, UnsafeBufferPointer(row))
            }
        }
    }

    /// The first `overlapWidth` pixels of a row of an image `width` pixels wide.
    private static func overlapPart(of row: UnsafeBufferPointer<UInt8>, width: Int, overlapWidth: Int) -> UnsafeBufferPointer<UInt8> {
        precondition(row.count == 4 * width || row.count == 3 * width, "a row is 4 × (RGBA8) or 3 × (RGB8) its image's width bytes")
        return UnsafeBufferPointer(rebasing: row[..<(row.count / width * overlapWidth)])
    }

    /// Paints canvas row `y` of the difference picture (`DiffPicture`, `4 × canvasWidth` bytes)
    /// from the row of classes just emitted; call it from `emit`, where the baseline's row is
    /// still held.
    public func paintPictureRow(_ y: Int, classes: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>) {
        DiffPicture.paintRow(classes: classes, baseline: y < overlapHeight ? overlap.baselineRow(y) : nil,
                             includeAA: options.includeAA, into: output)
    }

    /// After the last overlap row: emits the canvas rows below the overlap (all differing).
    /// Counts never depend on `emit`; the canvas of two small images can be huge (W×1 beside
    /// 1×H is W×H), so a caller that will not draw it may pass `{ _, _ in }`, which costs one
    /// call per row, not per pixel.
    public func finish(emit: (Int, UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
        precondition(overlap.isComplete, "every overlap row is pushed before finish")
        precondition(!finished, "finish is called once")
        finished = true
        guard canvasHeight > overlapHeight else { return }
        try canvasRow.withUnsafeMutableBufferPointer { row in
            row.update(repeating: PixelClass.differing)
            for y in overlapHeight..<canvasHeight {
                if !ignore.isEmpty {
                    row.update(repeating: PixelClass.differing)
                    ignore.mark(row: y, in: row)
                }
                try emit(y, UnsafeBufferPointer(row))
            }
        }
    }
}
