import ImageDiff
import CodecCore
import PNGCodec
import Raster

/// The pixels a pair ignores (SPEC §9): its `--ignore` rectangles and, with `--mask-dir DIR`,
/// the non-transparent pixels of `DIR/<the pair's relative path>` when that file exists. Both
/// are in the canvas's coordinates (both images at its top left), clipped to the canvas: a mask
/// image larger than the pair is cut, a smaller one ignores only what it covers.
enum PairMasking {
    /// The mask image of `pair` under `maskDirectory`, or nil when there is none.
    static func maskFile(for pair: ComparePair, in maskDirectory: RawPath?) -> RawPath? {
        guard let maskDirectory else { return nil }
        let file = maskDirectory.appending(pair.relativePath.bytes)
        return file.status() == nil ? nil : file
    }

    /// The mask of a `width × height` canvas; a mask image that cannot be read throws a reason
    /// naming it ("mask: truncated image data").
    static func mask(width: Int, height: Int, rectangles: [PixelRect], maskFile: RawPath?, limits: DecodeLimits,
                     opener: InputOpener) throws(MaskFailure) -> IgnoreMask {
        guard let maskFile else { return IgnoreMask(width: width, height: height, rectangles: rectangles) }
        do {
            return try opener.withFile(maskFile) { file in
                let decoder = try PNGDecoder(file: file, limits: limits)
                let maskWidth = decoder.header.width
                return try IgnoreMask(width: width, height: height, rectangles: rectangles, maskHeight: decoder.header.height) { _ in
                    guard let row = try decoder.nextRow() else { throw ImageError(.malformed, "too few rows") }
                    return opaqueRuns(row, width: maskWidth, format: decoder.rowFormat)
                }
            }
        } catch {
            throw MaskFailure(reason: "mask: \((error as? ImageError)?.reason ?? "\(error)")")
        }
    }

    /// The runs of pixels whose alpha is not 0 in one mask row.
    static func opaqueRuns(_ row: UnsafeBufferPointer<UInt8>, width: Int, format: PixelFormat) -> [Range<Int>] {
        guard format == .rgba8 else { return [0 ..< width] }
        var runs: [Range<Int>] = []
        var start: Int?
        for x in 0..<width {
            if row[4 &* x &+ 3] != 0 {
                if start == nil { start = x }
            } else if let open = start {
                runs.append(open ..< x)
                start = nil
            }
        }
        if let open = start { runs.append(open ..< width) }
        return runs
    }
}

/// A mask image that cannot be read: the pair is an `error` with this reason.
struct MaskFailure: Error {
    let reason: String
}
