import Digest
import ColorManagement
import ImageDiff
import CodecCore
import PNGCodec
import Raster
#if canImport(Glibc)
import Glibc
#endif

/// Why a pair could not be compared: one line naming the side ("baseline: truncated image data").
struct PairFailure: Error, Sendable, Hashable {
    /// The side that could not be read.
    let side: PairSide
    let reason: String

    /// `error` blamed on `side` (a `PairFailure` already names its side and is kept).
    init(side: PairSide, _ error: any Error) {
        if let failure = error as? PairFailure {
            self = failure
            return
        }
        self.side = side
        reason = "\(side.rawValue): \((error as? ImageError)?.reason ?? "\(error)")"
    }
}

/// One of the two folders of a compare.
enum PairSide: String, Sendable {
    case baseline, current
}

/// What a caller that draws a pair sees while it is decoded (`PairDecoding.compare`): every
/// row of each image, in its decoder's format, and every row of the difference's canvas.
protocol PairRowObserver: AnyObject {
    /// Whether canvas rows are wanted at all (a huge canvas is not visited pixel by pixel).
    var drawsCanvas: Bool { get }
    /// Called once both decoders are open, with the format of the rows that follow.
    func start(baseline: PixelFormat, current: PixelFormat)
    func baselineRow(_ y: Int, _ row: UnsafeBufferPointer<UInt8>)
    func currentRow(_ y: Int, _ row: UnsafeBufferPointer<UInt8>)
    /// Canvas row `y` of classes; `diff.paintPictureRow` may be called from here.
    func canvasRow(_ y: Int, classes: UnsafeBufferPointer<UInt8>, diff: CanvasDiff)
}

/// Reading both files of a pair: streaming SHA-256, headers, and the lockstep decode that feeds
/// `CanvasDiff`. Both images are decoded on the calling thread, a row of each pulled in turn
/// (`RowSource.nextRow()`), so each overlap row of both is at hand at once and memory stays a
/// row of each image (a whole Adam7 image), whatever their heights.
enum PairDecoding {
    /// The transforms of `compare --color-management`, shared by every pair of the process.
    static let compareTransforms = ColorTransformCache()

    /// The SHA-256 of the file's bytes, read in 64 KiB blocks, and its format and header,
    /// refused when over `limits`.
    static func digestAndHeader(of path: RawPath, limits: DecodeLimits, opener: InputOpener) throws -> ([UInt8], ImageFormat, SourceHeader) {
        try opener.withFile(path) { file in
            let digest = try sha256(of: file)
            let (format, header) = try ImageFormats.header(of: file, limits: limits)
            return (digest, format, header)
        }
    }

    private static func sha256(of file: InputFile) throws(ImageError) -> [UInt8] {
        var hasher = SHA256()
        let block = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { block.deallocate() }
        var offset = 0
        while true {
            let got = pread(file.descriptor, block.baseAddress, block.count, off_t(offset))
            if got < 0 {
                if errno == EINTR { continue }
                throw ImageError(.io, String(cString: strerror(errno)))
            }
            if got == 0 { break }
            offset += got
            hasher.update(UnsafeRawBufferPointer(rebasing: block[..<got]))
        }
        return hasher.finalize()
    }

    /// Decodes both images in lockstep and compares them by pixelmatch's rule (SPEC §9). With an
    /// `observer`, it also receives every row of both images and (if it draws the canvas) of the
    /// canvas; without one, only counts are made (rows below the overlap are not visited).
    static func compare(baseline: PlannedImage, current: PlannedImage, limits: DecodeLimits, options: DiffOptions, ignore: IgnoreMask? = nil,
                        opener: InputOpener, observer: PairRowObserver? = nil) throws(PairFailure) -> CanvasDiff {
        /// A full-size decoder (compare sees every stored pixel), converted to sRGB with
        /// `--color-management` (a profile lcms refuses leaves the samples as stored).
        func open(_ image: PlannedImage, _ file: InputFile) throws(ImageError) -> any RowSource {
            let profile = options.colorManagement ? image.source.color.profile : nil
            let cmyk = profile?.colorModel == .cmyk ? try? compareTransforms.transform(for: profile!, layout: .invertedCMYK8).get() : nil
            let rows = try ImageFormats.decoder(for: file, format: image.format, expected: image.source, limits: limits,
                                                minimumWidth: image.source.width, minimumHeight: image.source.height,
                                                decodeTransform: cmyk)
            guard let profile, profile.colorModel != .cmyk else { return rows }
            return ColorConvertedRows.converting(rows, through: profile, colors: compareTransforms).rows
        }
        do {
            return try opener.withFile(baseline.path) { baselineFile in
                let baselineDecoder: any RowSource
                do {
                    baselineDecoder = try open(baseline, baselineFile)
                } catch { throw PairFailure(side: .baseline, error) }
                do {
                    return try opener.withFile(current.path) { currentFile in
                        let currentDecoder = try open(current, currentFile)
                        return try lockstep(baselineDecoder, currentDecoder, options: options, ignore: ignore, observer: observer)
                    }
                } catch {
                    throw PairFailure(side: .current, error)   // a PairFailure from the lockstep is kept
                }
            }
        } catch {
            throw PairFailure(side: .baseline, error)   // a PairFailure from inside is kept
        }
    }

    private static func lockstep(_ baselineDecoder: any RowSource, _ currentDecoder: any RowSource, options: DiffOptions,
                                 ignore: IgnoreMask?, observer: PairRowObserver?) throws(PairFailure) -> CanvasDiff {
        let diff = CanvasDiff(baselineWidth: baselineDecoder.width, baselineHeight: baselineDecoder.height,
                              currentWidth: currentDecoder.width, currentHeight: currentDecoder.height, options: options,
                              ignore: ignore)
        let baselineRows = DiffRowFormat(baselineDecoder), currentRows = DiffRowFormat(currentDecoder)
        let canvasObserver = observer?.drawsCanvas == true ? observer : nil
        let emit: (Int, UnsafeBufferPointer<UInt8>) -> Void = { y, classes in
            canvasObserver?.canvasRow(y, classes: classes, diff: diff)
        }
        observer?.start(baseline: baselineDecoder.rowFormat, current: currentDecoder.rowFormat)
        func next(_ side: PairSide, _ decoder: any RowSource) throws(PairFailure) -> UnsafeBufferPointer<UInt8>? {
            do { return try decoder.nextRow() } catch { throw PairFailure(side: side, error) }
        }
        // The same order as decoding each image whole: every baseline row, each overlap row followed
        // by the current image's row, then the current image's remaining rows.
        var currentY = 0
        var baselineY = 0
        while let row = try next(.baseline, baselineDecoder) {
            observer?.baselineRow(baselineY, row)
            if baselineY < diff.overlapHeight {
                guard let other = try next(.current, currentDecoder) else {
                    throw PairFailure(side: .current, ImageError(.malformed, "too few rows"))
                }
                observer?.currentRow(currentY, other)
                currentY += 1
                diff.push(baseline: baselineRows.diffRow(row), current: currentRows.diffRow(other), emit: emit)
            }
            baselineY += 1
        }
        while let other = try next(.current, currentDecoder) {
            observer?.currentRow(currentY, other)
            currentY += 1
        }
        diff.finish(emit: canvasObserver == nil ? { _, _ in } : emit)
        return diff
    }
}

/// Rows as `CanvasDiff` takes them (RGBA8 or opaque RGB8): grey rows are widened to RGB8 in a
/// buffer of one row; other rows pass through.
private final class DiffRowFormat {
    private let wide: UnsafeMutableBufferPointer<UInt8>?

    init(_ decoder: any RowSource) {
        wide = decoder.rowFormat == .grey8 ? .allocate(capacity: 3 * decoder.width) : nil
    }

    deinit { wide?.deallocate() }

    func diffRow(_ row: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        guard let wide else { return row }
        for x in 0..<row.count {
            let v = row[x]
            wide[3 &* x] = v; wide[3 &* x &+ 1] = v; wide[3 &* x &+ 2] = v
        }
        return UnsafeBufferPointer(wide)
    }
}
