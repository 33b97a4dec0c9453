import CGIFBridge
import CodecCore
import Raster

/// A row-streaming decoder of a GIF's first frame (giflib, record by record; later frames are
/// never decoded), composited on its canvas (`GIFHeader.width` × `height`).
///
/// - Pixels: the frame's palette (local over global; with no palette at all, index *i* is
///   grey *i*, as Pillow reads it); indices past the palette are opaque black (Pillow);
///   the graphic control extension's transparent index is transparent.
/// - Canvas: pixels outside the first frame are transparent. Browsers do this; Pillow differs
///   only for a frame without a transparent index that leaves part of the canvas uncovered,
///   where it paints palette entry 0 instead. Masonry follows the browsers.
/// - Format: `.rgba8` (straight alpha) when any pixel can be transparent (a transparent index
///   the frame's code size can reach, a frame that leaves part of the canvas uncovered, or a
///   frame whose data the header walk found cut), else `.rgb8`. GIF has no shrink on load:
///   rows are always the canvas size, whatever the minimum asked.
/// - Memory: an interlaced frame is decoded whole into an index buffer (one byte a pixel,
///   within `limits` since the canvas is); a non-interlaced frame streams line by line.
/// - Damage in the frame's image data (a file cut mid-frame, as a download leaves it, or a bad
///   LZW code): the rows decoded so far are kept and the rest of the frame is transparent
///   (`.rgba8`), or the screen's background colour when the frame was expected to be opaque
///   (`.rgb8`, damage the header walk could not see); `trailingProblem` says what was wrong.
///   A user who opens such a file in a browser sees what arrived, and so does the sheet.
public final class GIFDecoder: RowSource {
    /// The library that decodes GIFs in this process ("giflib 5.2.1").
    public static let libraryVersion = "giflib \(String(cString: mgif_library_version()))"

    /// The header read before decoding.
    public let header: GIFHeader
    /// The canvas size (`header.width` × `header.height`).
    public let width: Int
    public let height: Int
    public let rowFormat: PixelFormat
    /// What broke in the first frame's data, once `nextRow()` met it (the rest of the frame
    /// is then transparent, or background colour in `.rgb8`); nil for an intact frame.
    public private(set) var trailingProblem: ImageError?
    public var rowsStarted: Bool { cursor.started }

    private let bridge: OpaquePointer
    /// Kept open while the bridge reads its descriptor.
    private let file: InputFile
    private let frame: GIFFrame
    private var cursor: RowCursor
    /// The colour of every palette index, 4 bytes each (RGBA), transparency applied.
    private let colors: [UInt8]
    /// The colour of pixels the damaged frame did not deliver.
    private let missingColor: [UInt8]
    private let row: UnsafeMutableBufferPointer<UInt8>
    /// One line of indices (non-interlaced), or the whole frame's (interlaced).
    private var indices: UnsafeMutableBufferPointer<UInt8>?
    /// Lines of the frame decoded so far, in stored (pass) order.
    private var linesDecoded = 0

    /// Opens `file` (the header walk first, then giflib up to the first frame). Throws
    /// `ImageError` with a one-line reason for a file that is not a readable GIF or whose canvas
    /// is over `limits`; the canvas is checked before anything is allocated. `minimumWidth`
    /// and `minimumHeight` are accepted for the decoder contract; GIF never shrinks on load.
    public init(file: InputFile, limits: DecodeLimits, minimumWidth: Int = 0, minimumHeight: Int = 0) throws(ImageError) {
        let header = try GIFHeader(file: file)
        if let refusal = limits.refusal(width: header.width, height: header.height) { throw refusal }
        guard let bridge = mgif_decoder_create_fd(file.descriptor) else { throw ImageError(.outOfMemory) }
        var info = mgif_first_frame()
        let status = mgif_decoder_open(bridge, &info)
        guard status == MB_OK else {
            let error = Self.openError(status, bridge)
            mgif_decoder_destroy(bridge)
            throw error
        }
        let frame = header.firstFrame
        guard Int(info.left) == frame.left, Int(info.top) == frame.top, Int(info.width) == frame.width,
              Int(info.height) == frame.height, (info.interlaced != 0) == frame.isInterlaced else {
            mgif_decoder_destroy(bridge)
            throw ImageError(.malformed, "malformed GIF file (the first frame changed while it was read)")
        }
        self.bridge = bridge
        self.file = file
        self.header = header
        self.frame = frame
        width = header.width
        height = header.height
        cursor = RowCursor(height: height)

        let coversCanvas = frame.left == 0 && frame.top == 0 && frame.width == width && frame.height == height
        let reachableTransparency = header.transparentIndex.map { $0 < 1 << frame.lzwCodeSize } ?? false
        let opaque = coversCanvas && !reachableTransparency && header.isFirstFrameComplete
        rowFormat = opaque ? .rgb8 : .rgba8
        let colors = Self.colorTable(info, transparentIndex: header.transparentIndex)
        self.colors = colors
        let background = Int(info.background_index) * 4
        missingColor = opaque ? Array(colors[background ..< background + 3]) + [255] : [0, 0, 0, 0]
        row = .allocate(capacity: width * rowFormat.bytesPerPixel)
        if !opaque { row.initialize(repeating: 0) }
    }

    deinit {
        row.deallocate()
        indices?.deallocate()
        mgif_decoder_destroy(bridge)
    }

    /// Returns the next canvas row, top to bottom, in `rowFormat` (`width * bytesPerPixel`
    /// bytes), valid until the next call or until the decoder is released; nil after the last
    /// row. Damage in the frame's data is not thrown (see `trailingProblem`); a failed read of
    /// the file is thrown, and again on any later call.
    public func nextRow() throws(ImageError) -> UnsafeBufferPointer<UInt8>? {
        try cursor.next(read: { y throws(ImageError) in try canvasRow(y) }, finish: {})
    }

    private func canvasRow(_ y: Int) throws(ImageError) -> UnsafeBufferPointer<UInt8> {
        let frameRow = y - frame.top
        guard frameRow >= 0, frameRow < frame.height else {
            // Outside the frame: only in `.rgba8`, whose row buffer is transparent outside it.
            clearFrameSpan()
            return UnsafeBufferPointer(row)
        }
        if let line = try frameLine(frameRow) {
            paint(line)
        } else {
            paintMissing()
        }
        return UnsafeBufferPointer(row)
    }

    /// The indices of row `frameRow` of the frame, or nil when the damaged data did not reach it.
    private func frameLine(_ frameRow: Int) throws(ImageError) -> UnsafeBufferPointer<UInt8>? {
        if frame.isInterlaced {
            if indices == nil { try decodeInterlacedFrame() }
            guard Self.storedLine(of: frameRow, height: frame.height) < linesDecoded else { return nil }
            return UnsafeBufferPointer(rebasing: indices![frameRow * frame.width ..< (frameRow + 1) * frame.width])
        }
        let line = indices ?? .allocate(capacity: frame.width)
        indices = line
        guard trailingProblem == nil, try decodeLine(into: line.baseAddress!) else { return nil }
        return UnsafeBufferPointer(line)
    }

    /// Decodes every line of an interlaced frame into its rows, pass by pass, until the data ends.
    private func decodeInterlacedFrame() throws(ImageError) {
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: frame.width * frame.height)
        indices = buffer
        for (start, step) in [(0, 8), (4, 8), (2, 4), (1, 2)] {
            for frameRow in stride(from: start, to: frame.height, by: step) {
                guard try decodeLine(into: buffer.baseAddress! + frameRow * frame.width) else { return }
            }
        }
    }

    /// Decodes the next stored line; false (with `trailingProblem` set) when the frame's data
    /// is damaged there. A failed read of the file throws.
    private func decodeLine(into target: UnsafeMutablePointer<UInt8>) throws(ImageError) -> Bool {
        let status = mgif_decoder_read_line(bridge, target)
        switch status {
        case MB_OK:
            linesDecoded += 1
            return true
        case MB_IO:
            throw ImageError(.io, Self.message(bridge))
        case MB_TRUNCATED:
            trailingProblem = ImageError(.truncatedImageData)
        case MB_LIMIT:
            throw ImageError(.outOfMemory)
        default:
            trailingProblem = ImageError(.malformed, "corrupt image data (\(Self.lowercasedFirst(Self.message(bridge))))")
        }
        return false
    }

    /// The position of frame row `row` in an interlaced frame's stored order.
    static func storedLine(of row: Int, height: Int) -> Int {
        let pass1 = (height + 7) / 8, pass2 = (height + 3) / 8, pass3 = (height + 1) / 4
        switch row % 8 {
        case 0: return row / 8
        case 4: return pass1 + row / 8
        case 2, 6: return pass1 + pass2 + row / 4
        default: return pass1 + pass2 + pass3 + row / 2
        }
    }

    private func paint(_ line: UnsafeBufferPointer<UInt8>) {
        let channels = rowFormat.bytesPerPixel
        colors.withUnsafeBytes { colors in
            let table = colors.bindMemory(to: UInt32.self)
            var target = UnsafeMutableRawPointer(row.baseAddress! + frame.left * channels)
            if channels == 4 {
                for index in line {
                    target.storeBytes(of: table[Int(index)], as: UInt32.self)
                    target += 4
                }
            } else {
                // Three bytes a pixel: the colour's RGB without its alpha.
                for index in line {
                    let color = colors.baseAddress! + Int(index) * 4
                    target.copyMemory(from: color, byteCount: 3)
                    target += 3
                }
            }
        }
    }

    private func paintMissing() {
        let channels = rowFormat.bytesPerPixel
        for x in frame.left ..< frame.left + frame.width {
            for channel in 0..<channels { row[x * channels + channel] = missingColor[channel] }
        }
    }

    /// Makes the frame's columns transparent again (rows above and below the frame).
    private func clearFrameSpan() {
        let channels = rowFormat.bytesPerPixel
        row[frame.left * channels ..< (frame.left + frame.width) * channels].initialize(repeating: 0)
    }

    /// RGBA for each of the 256 indices: the palette, black past its end (grey ramp without
    /// one), alpha 0 at the transparent index.
    private static func colorTable(_ info: mgif_first_frame, transparentIndex: Int?) -> [UInt8] {
        var table = [UInt8](repeating: 0, count: 256 * 4)
        let count = Int(info.color_count)
        withUnsafeBytes(of: info.palette) { palette in
            for index in 0..<256 {
                let rgb: (UInt8, UInt8, UInt8) = count == 0 ? (UInt8(index), UInt8(index), UInt8(index))
                    : index < count ? (palette[3 * index], palette[3 * index + 1], palette[3 * index + 2]) : (0, 0, 0)
                table[4 * index] = rgb.0
                table[4 * index + 1] = rgb.1
                table[4 * index + 2] = rgb.2
                table[4 * index + 3] = index == transparentIndex ? 0 : 255
            }
        }
        return table
    }

    private static func openError(_ status: mb_status, _ bridge: OpaquePointer) -> ImageError {
        let message = Self.message(bridge)
        return switch status {
        case MB_LIMIT: ImageError(.outOfMemory)
        case MB_TRUNCATED: ImageError(bridge: status, reason: "truncated GIF file (before the image data)")
        case MB_MALFORMED: ImageError(bridge: status, reason: "malformed GIF file (\(lowercasedFirst(message)))")
        default: ImageError(bridge: status, reason: message)
        }
    }

    private static func message(_ bridge: OpaquePointer) -> String {
        String(cString: mgif_decoder_message(bridge))
    }

    private static func lowercasedFirst(_ text: String) -> String {
        guard let first = text.first else { return "giflib gave no reason" }
        return first.lowercased() + text.dropFirst()
    }
}
