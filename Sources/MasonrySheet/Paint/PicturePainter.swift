import ColorManagement
import WaterfallLayout
import CodecCore
import PNGCodec
import Raster
import TileCache

/// Paints one source image into its rectangle: decodes it once, row by row, resamples it
/// straight into the rectangle and composites it over the underlay (the background, or the
/// tile background over it). A file that fails while decoding leaves the rectangle as
/// underlay and reports why.
///
/// With a thumbnail cache, the resampled rows (premultiplied RGBA8, before compositing) are
/// looked up by the file's identity and the rectangle's size first; a hit replaces decoding
/// and resampling and nothing else, so the sheet's bytes are the same either way.
///
/// Colour (with `colors`, the run's shared transforms): a picture with a profile (embedded,
/// or made from CICP or PNG chunks) is converted to sRGB after resampling, on the tile's
/// premultiplied rows, as libvips `thumbnail` does: the transform then runs on the tile's
/// pixels, not the decoded ones (4 to 64 times fewer), and stays within the quality bar
/// (Notes/DESIGN.md). CMYK JPEGs go through their profile while decoding (their rows are RGB).
/// Untagged and sRGB pictures are not transformed at all.
struct PicturePainter {
    let image: PlannedImage
    let limits: DecodeLimits
    let opener: InputOpener
    let underlay: RGBA8Color
    let enlarge: TileStyle.EnlargeMode
    let cache: ThumbnailCache?
    /// The run's transforms to sRGB; nil with `--no-color-management` (samples as stored).
    var colors: ColorTransformCache? = nil

    /// The version of everything of ours that decides a thumbnail's pixels (resampler, scaler
    /// choice); change it whenever any of them changes. The decoder's library version is part
    /// of every key too (`variant`).
    static let thumbnailVersion: UInt64 = 3   // 3: a DCT-scaled JPEG is resampled from its exact extent

    /// The cache key's variant: everything besides the file and the size that decides the
    /// thumbnail (our version, the decoding library's, the enlargement mode), as FNV-1a.
    var thumbnailVariant: UInt64 {
        var text = "\(Self.thumbnailVersion) \(image.format.name) \(image.format.decoderVersion) \(enlarge == .pixelated ? "pixelated" : "smooth")"
        // The colour decision: pictures drawn as stored keep the keys they had before colour management.
        if colors != nil, image.source.color.fingerprint != 0 {
            text += " color \(image.source.color.fingerprint) intent \(ColorTransform.intent) lcms \(ColorTransform.libraryVersion)"
        }
        return text.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }

    func paint(_ rect: LayoutRect, into canvas: Canvas) -> TileOutcome { paintKeyed(rect, into: canvas).outcome }

    /// Paints the picture and says under which thumbnail key its file was read (nil without a
    /// cache, or when the file cannot be keyed): the page cache keeps rows only for the keys it planned.
    func paintKeyed(_ rect: LayoutRect, into canvas: Canvas) -> (outcome: TileOutcome, key: ThumbnailKey?) {
        var key: ThumbnailKey?
        do {
            let outcome = try opener.withFile(image.path) { file in try paint(file, into: rect, of: canvas, key: &key) }
            return (outcome, key)
        } catch {
            for line in 0..<rect.height {
                fillRow(canvas.pixels(y: rect.y + line, x: rect.x, width: rect.width), with: underlay,
                        channels: canvas.channels)
            }
            return (.failed((error as? ImageError)?.reason ?? "\(error)"), key)
        }
    }

    /// The thumbnail key of `file` for `rect`, or nil when it cannot be cached.
    func thumbnailKey(of file: InputFile, for rect: LayoutRect) -> ThumbnailKey? {
        try? ThumbnailKey(fileDescriptor: file.descriptor, targetWidth: rect.width, targetHeight: rect.height,
                          variant: thumbnailVariant)
    }

    private func paint(_ file: InputFile, into rect: LayoutRect, of canvas: Canvas, key usedKey: inout ThumbnailKey?) throws -> TileOutcome {
        let rowBytes = rect.width * 4
        func composite(_ targetRow: Int, _ pixels: UnsafeBufferPointer<UInt8>) {
            compositeOver(background: underlay, source: pixels,
                          into: canvas.pixels(y: rect.y + targetRow, x: rect.x, width: rect.width), channels: canvas.channels)
        }
        let key = cache == nil ? nil : thumbnailKey(of: file, for: rect)
        usedKey = key
        if let cache, let key, let pixels = cache.lookup(key) {
            pixels.withUnsafeBufferPointer { all in
                for row in 0..<rect.height { composite(row, UnsafeBufferPointer(rebasing: all[(row * rowBytes)..<((row + 1) * rowBytes)])) }
            }
            return .drawn
        }

        var kept = key == nil ? [] : [UInt8](repeating: 0, count: rowBytes * rect.height)
        let orientation = image.orientation
        // The size the rows are resampled to: the rectangle's, turned back for a picture shown turned.
        let target = orientation.displaySize(width: rect.width, height: rect.height)
        var color = ColorSteps(profile: colors == nil ? nil : image.source.color.profile, colors: colors)
        let source = color.converting(try ImageFormats.decoder(for: file, format: image.format, expected: image.source,
                                                               limits: limits, minimumWidth: target.width,
                                                               minimumHeight: target.height, decodeTransform: color.whileDecoding))
        var resampledScratch: [UInt8] = []
        // Rows already at the tile's size (an SVG drawn at it) pass through premultiplied: the
        // resampler's own bytes there (SameSizePassThroughTests), without its two filter passes.
        let sameSize = target.width == source.width && target.height == source.height
            && source.extent == (Double(source.width), Double(source.height))
        let scaler: any RowScaler = sameSize || (enlarge == .pixelated && target.width >= source.width && target.height >= source.height)
            ? NearestNeighbourScaler(sourceWidth: source.width, sourceHeight: source.height, targetWidth: target.width,
                                     targetHeight: target.height, sourceFormat: source.rowFormat)
            : StreamingResampler(sourceWidth: source.width, sourceHeight: source.height, targetWidth: target.width,
                                 targetHeight: target.height, sourceFormat: source.rowFormat, sourceExtent: source.extent)
        if orientation == .up {
            // Streamed: each resampled row goes straight into the sheet.
            try source.readRows { _, row in
                scaler.push(row: row) { targetRow, resampled in
                    converting(resampled, by: color.afterResampling, scratch: &resampledScratch) { pixels in
                    composite(targetRow, pixels)
                    if !kept.isEmpty {
                        kept.withUnsafeMutableBufferPointer { all in
                            _ = UnsafeMutableBufferPointer(rebasing: all[(targetRow * rowBytes)...]).update(fromContentsOf: pixels)
                        }
                    }
                } }
            }
        } else {
            // Turned: each resampled row (a row of the stored picture) is composited on its own and
            // its pixels are put where the orientation shows them: compositing goes pixel by pixel,
            // so these are the bytes of compositing the turned tile, without a tile-sized buffer
            // (two of them, fresh pages each, cost a turned photo more than turning it).
            let channels = canvas.channels
            let shownRows = UnsafeMutableBufferPointer<UnsafeMutablePointer<UInt8>>.allocate(capacity: rect.height)
            defer { shownRows.deallocate() }
            for y in 0..<rect.height { shownRows[y] = canvas.pixels(y: rect.y + y, x: rect.x, width: rect.width).baseAddress! }
            let composited = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: target.width * channels)
            defer { composited.deallocate() }
            try source.readRows { _, row in
                scaler.push(row: row) { storedRow, resampled in
                    converting(resampled, by: color.afterResampling, scratch: &resampledScratch) { pixels in
                        compositeOver(background: underlay, source: pixels, into: composited, channels: channels)
                        // A stored row is a line in the shown tile: its start and its step per pixel.
                        let first = orientation.displayedPosition(x: 0, y: storedRow, width: target.width, height: target.height)
                        let second = orientation.displayedPosition(x: 1, y: storedRow, width: target.width, height: target.height)
                        let step = (x: second.x - first.x, y: second.y - first.y)
                        // Unsafe hot loop: every position is inside the tile (the orientation maps the
                        // stored tile onto the shown one), whose rows hold rect.width pixels.
                        var x = first.x, y = first.y, from = UnsafePointer(composited.baseAddress!)
                        for _ in 0..<target.width {
                            let to = shownRows[y] + x &* channels
                            to[0] = from[0]
                            to[1] = from[1]
                            to[2] = from[2]
                            if channels == 4 { to[3] = from[3] }
                            from += channels
                            x &+= step.x
                            y &+= step.y
                        }
                        if !kept.isEmpty {
                            kept.withUnsafeMutableBufferPointer { all in
                                for storedColumn in 0..<target.width {
                                    let x = first.x + storedColumn * step.x, y = first.y + storedColumn * step.y
                                    for byte in 0..<4 { all[(y * rect.width + x) * 4 + byte] = pixels[storedColumn * 4 + byte] }
                                }
                            }
                        }
                    }
                }
            }
        }
        if let problem = source.trailingProblem { return .drawnWithWarning(problem.reason) }
        if let problem = color.problem { return .drawnWithWarning(problem.reason + "; drawn as stored") }
        // Only clean decodes are kept: a warm run must warn exactly where a cold one does.
        if let cache, let key { kept.withUnsafeBufferPointer { cache.store(key, pixels: $0) } }
        return .drawn
    }

}

/// `row` converted by `transform` in a copy (`scratch`), or `row` itself without a transform.
private func converting(_ row: UnsafeBufferPointer<UInt8>, by transform: ColorTransform?, scratch: inout [UInt8],
                        _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
    guard let transform else { return body(row) }
    if scratch.count != row.count { scratch = [UInt8](repeating: 0, count: row.count) }
    scratch.withUnsafeMutableBufferPointer { copy in
        _ = copy.update(fromContentsOf: row)
        transform.apply(copy)
        body(UnsafeBufferPointer(copy))
    }
}

/// Where a picture's conversion to sRGB happens: nowhere (untagged, sRGB, no colour management);
/// while decoding (CMYK: the rows come out RGB); on the decoded rows (wide-gamut RGB profiles,
/// whose resampled samples would miss the quality bar); or, for every other profile, on the
/// resampled tile rows (the cheapest place: a tile has 4 to 64 times fewer pixels than the
/// decoded picture). `problem` says why a profile lcms refused is not applied.
private struct ColorSteps {
    let profile: ICCProfile?
    let colors: ColorTransformCache?
    private(set) var whileDecoding: ColorTransform?
    private(set) var afterResampling: ColorTransform?
    private(set) var problem: ColorProblem?

    init(profile: ICCProfile?, colors: ColorTransformCache?) {
        self.profile = profile
        self.colors = colors
        if profile?.colorModel == .cmyk { whileDecoding = transform(.invertedCMYK8) }
    }

    /// Chooses the step once the decoder is open: its rows converted (wide gamut), or as they
    /// are with `afterResampling` set.
    mutating func converting(_ source: any RowSource) -> any RowSource {
        guard let profile, let colors, profile.colorModel != .cmyk else { return source }
        if profile.isWideGamut && source.rowFormat != .grey8 {
            let (rows, refusal) = ColorConvertedRows.converting(source, through: profile, colors: colors)
            problem = refusal
            return rows
        }
        afterResampling = transform(.premultipliedRGBA8)
        return source
    }

    private mutating func transform(_ layout: ColorLayout) -> ColorTransform? {
        guard let profile, let colors else { return nil }
        switch colors.transform(for: profile, layout: layout) {
        case .success(let transform): return transform
        case .failure(let refusal):
            problem = refusal
            return nil
        }
    }
}
