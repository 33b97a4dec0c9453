import CBridgeSupport
import CSVGBridge
import CodecCore
import Raster

/// An SVG drawn by librsvg at exactly the size asked for (`ShrinkOnLoad.vector`): the tile's own
/// size when a sheet paints it (no raster is resampled: the resampler's Lanczos window at a
/// ratio of 1 passes the rows through), the intrinsic size (`SVGHeader`) when asked for 0 × 0 or
/// the full size (compare). The document is scaled on each axis to the rows' size, as
/// rsvg-convert `--width --height` does, over a transparent canvas; rows are straight-alpha RGBA.
///
/// Before librsvg sees a byte, Masonry reads the header (`SVGHeader`) and scans the whole file
/// (`SVGDocumentScan`), at most `SVGHeader.maxFileBytes`. In the command, librsvg draws in a
/// child process with a deadline and a memory bound (`SVGDrawingProcess`); elsewhere (a library
/// user, the tests, the fuzz harness) in this process.
public final class SVGDecoder: RowSource {
    public let header: SVGHeader
    public let width: Int
    public let height: Int
    public let rowFormat = PixelFormat.rgba8
    public let trailingProblem: ImageError? = nil

    private let pixels: [UInt8]
    private var cursor: RowCursor

    /// Reads `file` and draws it at `width` × `height` (each 0: the header's size).
    public init(file: InputFile, limits: DecodeLimits, width requestedWidth: Int, height requestedHeight: Int) throws(ImageError) {
        let bytes = try SVGFile(file).document()
        header = try SVGHeader(bytes: bytes[...])
        if let refusal = limits.refusal(width: header.width, height: header.height) { throw refusal }
        width = requestedWidth > 0 ? requestedWidth : header.width
        height = requestedHeight > 0 ? requestedHeight : header.height
        if let refusal = limits.refusal(width: width, height: height) { throw refusal }
        _ = try SVGDocumentScan(bytes: bytes[...], rootOffset: header.rootOffset, entities: header.entities)
        if let executable = SVGDrawingProcess.executable {
            let drawing = try SVGDrawingProcess.draw(bytes, executable: executable, naturalWidth: header.naturalWidth, naturalHeight: header.naturalHeight,
                                                     width: width, height: height)
            try Self.check(librsvgSize: drawing.intrinsic.naturalSize, header: header)
            pixels = drawing.pixels
        } else {
            let document = try SVGLibrary.Document(bytes: bytes)
            try Self.check(librsvgSize: document.naturalSize, header: header)
            pixels = try document.render(naturalWidth: header.naturalWidth, naturalHeight: header.naturalHeight, width: width, height: height)
        }
        cursor = RowCursor(height: height)
    }

    public func nextRow() throws(ImageError) -> UnsafeBufferPointer<UInt8>? {
        let rowBytes = width * 4
        return try cursor.next(read: { y throws(ImageError) in
            pixels.withUnsafeBufferPointer { UnsafeBufferPointer(rebasing: $0[(y * rowBytes)..<((y + 1) * rowBytes)]) }
        }, finish: {})
    }

    public var rowsStarted: Bool { cursor.started }

    /// librsvg must lay the document out at the size the header read (the sheet planned with it).
    private static func check(librsvgSize: SVGNaturalSize, header: SVGHeader) throws(ImageError) {
        guard librsvgSize == header.naturalSize else {
            throw ImageError(.unsupported, "librsvg reads the SVG's size as \(librsvgSize), Masonry's header as \(header.naturalSize)")
        }
    }

    /// librsvg's version as it runs, for the thumbnail cache key (loads librsvg).
    public static var libraryVersion: String { "librsvg \(String(cString: msvg_library_version()))" }
}

extension SVGHeader {
    /// The natural size, compared with librsvg's reading of the same root.
    public var naturalSize: SVGNaturalSize { SVGNaturalSize(width: naturalWidth, height: naturalHeight) }
}

/// A natural size in pixels, equal within a millionth of a pixel (librsvg computes in f64 too,
/// in another order).
public struct SVGNaturalSize: Equatable, CustomStringConvertible, Sendable {
    public let width: Double
    public let height: Double
    public static func == (a: Self, b: Self) -> Bool {
        abs(a.width - b.width) <= 1e-6 * max(1, a.width) && abs(a.height - b.height) <= 1e-6 * max(1, a.height)
    }
    public var description: String { "\(width)×\(height)" }
}

/// The calls into CSVGBridge.
public enum SVGLibrary {
    /// The bytes of straight RGBA rows of `width` × `height`, refused past cairo's sides.
    static func canvasBytes(width: Int, height: Int) throws(ImageError) -> Int {
        let (count, overflow) = width.multipliedReportingOverflow(by: height * 4)
        guard !overflow, width <= SVGHeader.maxSide, height <= SVGHeader.maxSide else {
            throw ImageError(.limitExceeded, "cannot render an SVG at \(width)×\(height)")
        }
        return count
    }

    /// One librsvg document, parsed from bytes Masonry read; freed on deinit.
    public final class Document {
        private let document: OpaquePointer
        /// The root's size as librsvg read it.
        public let intrinsic: msvg_intrinsic

        public init(bytes: [UInt8]) throws(ImageError) {
            if let failure = msvg_library_failure() {
                throw ImageError(.unsupported, "librsvg is not available: \(String(cString: failure))")
            }
            guard let document = msvg_document_create() else { throw ImageError(.outOfMemory) }
            self.document = document
            var intrinsic = msvg_intrinsic()
            let status = bytes.withUnsafeBufferPointer { msvg_document_load(document, $0.baseAddress, $0.count, &intrinsic) }
            guard status == MB_OK else {
                let error = ImageError(bridge: status, message: msvg_document_message(document).pointee, fallback: "librsvg cannot read the SVG")
                msvg_document_destroy(document)
                throw error
            }
            self.intrinsic = intrinsic
        }

        deinit { msvg_document_destroy(document) }

        /// The root's width, height and viewBox as librsvg read them, in Masonry's types.
        public var rootWidth: SVGLength? { intrinsic.rootWidth }
        public var rootHeight: SVGLength? { intrinsic.rootHeight }
        /// `rsvg_handle_get_intrinsic_size_in_pixels`, nil when librsvg cannot tell.
        public var sizeInPixels: (width: Double, height: Double)? { intrinsic.sizeInPixels }
        /// The size librsvg lays the document out at (`msvg_intrinsic.naturalSize`).
        public var naturalSize: SVGNaturalSize { intrinsic.naturalSize }

        /// The document drawn at `width` × `height`: straight RGBA, top row first.
        public func render(naturalWidth: Double, naturalHeight: Double, width: Int, height: Int) throws(ImageError) -> [UInt8] {
            var pixels = [UInt8](repeating: 0, count: try SVGLibrary.canvasBytes(width: width, height: height))
            let status = pixels.withUnsafeMutableBufferPointer { buffer in
                msvg_document_render(document, naturalWidth, naturalHeight, UInt32(width), UInt32(height), buffer.baseAddress)
            }
            guard status == MB_OK else {
                throw ImageError(bridge: status, message: msvg_document_message(document).pointee, fallback: "librsvg cannot draw the SVG")
            }
            return pixels
        }
    }
}

/// librsvg's reading of the root (in this process or a drawing process), in Masonry's types.
extension msvg_intrinsic {
    public var rootWidth: SVGLength? { Self.length(has_width, width) }
    public var rootHeight: SVGLength? { Self.length(has_height, height) }
    /// `rsvg_handle_get_intrinsic_size_in_pixels`, nil when librsvg cannot tell.
    public var sizeInPixels: (width: Double, height: Double)? {
        has_pixel_size != 0 ? (pixel_width, pixel_height) : nil
    }

    private static func length(_ present: Int32, _ length: msvg_length) -> SVGLength? {
        guard present != 0, let unit = SVGLength.Unit(rawValue: Int(length.unit)) else { return nil }
        return SVGLength(value: length.value, unit: unit)
    }

    /// The size librsvg lays the document out at: its size in pixels, else rsvg-convert's
    /// viewBox fallback (`SVGHeader.intrinsicSize` over librsvg's reading of the root), else
    /// `SVGHeader.defaultSize`.
    public var naturalSize: SVGNaturalSize {
        if let pixels = sizeInPixels { return SVGNaturalSize(width: pixels.width, height: pixels.height) }
        let box = has_viewbox != 0 ? SVGViewBox(x: viewbox_x, y: viewbox_y, width: viewbox_width, height: viewbox_height) : nil
        let size = SVGHeader.intrinsicSize(width: rootWidth, height: rootHeight, viewBox: box) ?? SVGHeader.defaultSize
        return SVGNaturalSize(width: size.width, height: size.height)
    }
}
