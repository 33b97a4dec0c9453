import MasonryLayout
import PNGCodec
import Raster

/// Paints one source image into its rectangle: decodes it once, row by row, resamples it
/// straight into the rectangle and composites it over the underlay (the background, or the
/// tile background over it). A file that fails while decoding leaves the rectangle as
/// underlay and reports why.
struct PicturePainter {
    let image: PlannedImage
    let limits: PNGLimits
    let opener: InputOpener
    let underlay: RGBA8Color
    let enlarge: TileStyle.EnlargeMode

    func paint(_ rect: LayoutRect, into canvas: Canvas) -> TileOutcome {
        do {
            return try opener.withFile(image.path) { file in try paint(file, into: rect, of: canvas) }
        } catch {
            for line in 0..<rect.height {
                fillRow(canvas.pixels(y: rect.y + line, x: rect.x, width: rect.width), with: underlay,
                        channels: canvas.channels)
            }
            return .failed((error as? PNGError)?.reason ?? "\(error)")
        }
    }

    private func paint(_ file: InputFile, into rect: LayoutRect, of canvas: Canvas) throws -> TileOutcome {
            let decoder = try PNGDecoder(file: file, limits: limits, compactOpaqueRows: true)
            guard decoder.header.width == image.width, decoder.header.height == image.height else {
                throw PNGError(.io, "file changed while it was being read")
            }
            let format = StreamingResampler.SourceFormat(decoder)
            let scaler: any RowScaler = enlarge == .pixelated && rect.width >= image.width && rect.height >= image.height
                ? NearestNeighbourScaler(sourceWidth: image.width, sourceHeight: image.height, targetWidth: rect.width,
                                         targetHeight: rect.height, sourceFormat: format)
                : StreamingResampler(sourceWidth: image.width, sourceHeight: image.height, targetWidth: rect.width,
                                     targetHeight: rect.height, sourceFormat: format)
            try decoder.readRows { _, row in
                scaler.push(row: row) { targetRow, pixels in
                    compositeOver(background: underlay, source: pixels,
                                  into: canvas.pixels(y: rect.y + targetRow, x: rect.x, width: rect.width),
                                  channels: canvas.channels)
                }
            }
            if let problem = decoder.trailingProblem { return .drawnWithWarning(problem.reason) }
            return .drawn
    }
}

extension StreamingResampler.SourceFormat {
    /// The resampler's name for a decoder's rows.
    public init(_ decoder: PNGDecoder) {
        switch decoder.rowFormat {
        case .rgb8: self = .rgb8
        case .grey8: self = .grey8
        case .rgba8: self = decoder.isOpaque ? .opaqueRGBA8 : .rgba8
        }
    }
}
