import CBridgeSupport
import CRAWBridge
import CodecCore
import JPEGCodec
import Raster

/// A camera RAW's picture, preview first: the smallest embedded JPEG preview at least twice the
/// tile on both sides, decoded by `JPEGDecoder` over its byte range (DCT scaling, its colour
/// handling); else LibRaw's half-size demosaic (its full size when even half is less than twice
/// the tile: compare, and tiles larger than half the sensor). Rows come in the stored orientation; the
/// header's orientation (the RAW's, never the preview's EXIF) turns the tile.
public final class RAWDecoder: RowSource {
    public let header: RAWHeader
    /// Which picture the rows are.
    public let source: RAWSource
    public let width: Int
    public let height: Int
    public let rowFormat: PixelFormat
    public private(set) var trailingProblem: ImageError?

    private let preview: JPEGDecoder?
    private let demosaic: RAWLibrary.Demosaic?
    private var cursor: RowCursor

    /// Opens `file` for rows at least twice `minimumWidth` × `minimumHeight` (stored orientation).
    /// `drawing` overrides the choice of source (the benchmark's and tests' demosaic of a file
    /// with previews); a preview index past the header's previews is a usage error.
    public init(file: InputFile, limits: DecodeLimits, minimumWidth: Int, minimumHeight: Int,
                drawing: RAWSource? = nil) throws(ImageError) {
        header = try RAWHeader(file: file)
        if let refusal = limits.refusal(width: header.width, height: header.height) { throw refusal }
        let target = DecodeTarget(minimumWidth: minimumWidth, minimumHeight: minimumHeight)
        source = drawing ?? header.source(for: target)
        if case .preview(let index) = source, !header.previews.indices.contains(index) {
            throw ImageError(.misuse("RAW preview \(index) of \(header.previews.count)"))
        }
        switch source {
        case .preview(let index):
            let chosen = header.previews[index]
            let jpeg = try JPEGDecoder(file: file, range: chosen.range, limits: limits,
                                       minimumWidth: minimumWidth, minimumHeight: minimumHeight)
            preview = jpeg
            demosaic = nil
            width = jpeg.width
            height = jpeg.height
            rowFormat = jpeg.rowFormat
        case .demosaic:
            guard file.size <= RAWHeader.maxFileBytes else {
                throw ImageError(.limitExceeded, "RAW file of \(file.size) bytes is over the \(RAWHeader.maxFileBytes)-byte limit")
            }
            let pixels = try RAWLibrary.Demosaic(file: file, shown: (header.width, header.height), limits: limits, target: target)
            preview = nil
            demosaic = pixels
            width = pixels.width
            height = pixels.height
            rowFormat = .rgb8
            trailingProblem = pixels.warning
        }
        cursor = RowCursor(height: height)
    }

    public var extent: (width: Double, height: Double) { preview?.extent ?? (Double(width), Double(height)) }

    public func nextRow() throws(ImageError) -> UnsafeBufferPointer<UInt8>? {
        if let preview {
            let row = try preview.nextRow()
            if row == nil { trailingProblem = preview.trailingProblem }
            return row
        }
        guard let demosaic else { return nil }
        return try cursor.next(read: { y throws(ImageError) in demosaic.row(y) }, finish: {})
    }

    public var rowsStarted: Bool { preview?.rowsStarted ?? cursor.started }

    /// LibRaw's version as it runs, with libjpeg-turbo's (the previews' decoder), for the cache key.
    public static var libraryVersion: String { "LibRaw \(RAWLibrary.version) + \(JPEGDecoder.libraryVersion)" }
}
