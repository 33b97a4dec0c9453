#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// pixelmatch's comparison of two images of the same size, streamed: both images are pushed row
/// by row in lockstep and each row of pixel classes is emitted as soon as it is final.
///
/// The window: a differing pixel at (x, y) is tested for anti-aliasing on its 3×3 neighbourhood
/// (rows y-1...y+1), and then the neighbourhoods of that neighbourhood's darkest and brightest
/// pixels are searched for equal siblings in both images (rows y-2...y+2). So row y is final once
/// row y+2 has been pushed (or the last row has), and each image needs a ring of 5 rows:
/// memory is `10 × width × 4` bytes plus one row of classes, whatever the height.
public final class StreamingPixelmatch {
    public let width: Int
    public let height: Int
    public let options: DiffOptions
    /// Pixels neither counted nor judged (their class is `ignored`); the anti-aliasing test of
    /// their neighbours still reads their colours, so every other pixel keeps the class it has
    /// without a mask.
    public let ignore: IgnoreMask

    /// Pixels counted as differing so far (final once every row has been pushed).
    public private(set) var diffPixels = 0
    /// Differing pixels found to be anti-aliasing so far.
    public private(set) var aaPixels = 0
    /// The bounding box of the pixels counted in `diffPixels`, or nil when there are none.
    public var bounds: PixelRect? {
        maxX < 0 ? nil : PixelRect(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1)
    }
    /// Rows pushed so far.
    public private(set) var rowsPushed = 0
    /// Whether every row has been pushed (and so every row emitted).
    public var isComplete: Bool { rowsPushed == height }

    /// Rows kept per image: the one being classified and two on either side.
    static let ringRows = 5

    private let rowBytes: Int
    private let maxDelta: Double
    private let baselineRows: UnsafeMutablePointer<UInt8>
    private let currentRows: UnsafeMutablePointer<UInt8>
    private let classes: UnsafeMutablePointer<UInt8>
    /// Where rows y-2...y+2 of each image are while row y is classified.
    private let baselineWindow: UnsafeMutablePointer<UnsafePointer<UInt8>>
    private let currentWindow: UnsafeMutablePointer<UnsafePointer<UInt8>>
    private var rowsEmitted = 0
    private var minX = Int.max, minY = Int.max, maxX = -1, maxY = -1

    /// `ignore` may be larger than the images (a canvas's mask); its columns and rows beyond
    /// them are not read.
    public init(width: Int, height: Int, options: DiffOptions = DiffOptions(), ignore: IgnoreMask? = nil) {
        precondition(width > 0 && height > 0, "an image has at least one pixel")
        self.width = width
        self.height = height
        self.options = options
        self.ignore = ignore ?? IgnoreMask(width: width, height: height)
        precondition(self.ignore.width >= width && self.ignore.height >= height, "the mask covers the images")
        rowBytes = 4 * width
        maxDelta = PixelmatchRule.maxDelta(threshold: options.threshold)
        baselineRows = .allocate(capacity: Self.ringRows * rowBytes)
        currentRows = .allocate(capacity: Self.ringRows * rowBytes)
        classes = .allocate(capacity: width)
        baselineWindow = .allocate(capacity: Self.ringRows)
        baselineWindow.initialize(repeating: UnsafePointer(baselineRows), count: Self.ringRows)
        currentWindow = .allocate(capacity: Self.ringRows)
        currentWindow.initialize(repeating: UnsafePointer(currentRows), count: Self.ringRows)
    }

    deinit {
        baselineRows.deallocate()
        currentRows.deallocate()
        classes.deallocate()
        baselineWindow.deallocate()
        currentWindow.deallocate()
    }

    /// Pushes the next row of both images: straight RGBA8 (`4 × width` bytes) or opaque RGB8
    /// (`3 × width` bytes, as `PNGDecoder` gives with compact opaque rows), each side either way.
    /// `emit(y, classes)` is called, in row order, for each row that became final; `classes`
    /// holds one `PixelClass` byte per pixel and is valid only during the call. Pushing the last
    /// row emits every remaining row.
    public func push(baseline: UnsafeBufferPointer<UInt8>, current: UnsafeBufferPointer<UInt8>,
                     emit: (Int, UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
        precondition(rowsPushed < height, "every row has already been pushed")
        let slot = (rowsPushed % Self.ringRows) * rowBytes
        store(baseline, into: baselineRows + slot)
        store(current, into: currentRows + slot)
        rowsPushed += 1
        let finalRows = rowsPushed == height ? height : rowsPushed - 2
        while rowsEmitted < finalRows {
            classify(row: rowsEmitted)
            try emit(rowsEmitted, UnsafeBufferPointer(start: classes, count: width))
            rowsEmitted += 1
        }
    }

    /// Row `y` of the baseline as RGBA8, while it is still held: from the row being emitted (or
    /// two rows before it) to the last row pushed. For painting the `DiffPicture` during `emit`.
    public func baselineRow(_ y: Int) -> UnsafeBufferPointer<UInt8> {
        precondition(y < rowsPushed && y >= rowsPushed - Self.ringRows, "row \(y) is not held")
        return UnsafeBufferPointer(start: baselineRows + (y % Self.ringRows) * rowBytes, count: rowBytes)
    }

    /// Copies a pushed row into the ring as RGBA8.
    private func store(_ row: UnsafeBufferPointer<UInt8>, into target: UnsafeMutablePointer<UInt8>) {
        if row.count == rowBytes {
            target.update(from: row.baseAddress!, count: rowBytes)
            return
        }
        precondition(row.count == 3 * width, "a row is 4 × width (RGBA8) or 3 × width (RGB8) bytes")
        let source = UnsafeRawPointer(row.baseAddress!), pixels = UnsafeMutableRawPointer(target)
        let opaque = UInt32(0xFF00_0000).littleEndian, rgb = UInt32(0x00FF_FFFF).littleEndian
        // 4 bytes read per 3-byte pixel, so the last pixel is copied byte by byte.
        for x in 0..<(width - 1) {
            let word = source.loadUnaligned(fromByteOffset: 3 &* x, as: UInt32.self)
            pixels.storeBytes(of: word & rgb | opaque, toByteOffset: 4 &* x, as: UInt32.self)
        }
        let last = width - 1
        for c in 0..<3 { target[4 * last + c] = row[3 * last + c] }
        target[4 * last + 3] = 255
    }

    /// Classifies row `y` into `classes`; rows y-2...y+2 (those that exist) are in the rings.
    private func classify(row y: Int) {
        for k in 0..<Self.ringRows where (0..<rowsPushed).contains(y - 2 + k) {
            let slot = (y - 2 + k) % Self.ringRows * rowBytes
            baselineWindow[k] = UnsafePointer(baselineRows + slot)
            currentWindow[k] = UnsafePointer(currentRows + slot)
        }
        let base = RowWindow(rows: baselineWindow, firstRow: y - 2)
        let current = RowWindow(rows: currentWindow, firstRow: y - 2)
        let baseRow = base.row(y), currentRow = current.row(y)
        let rowClasses = UnsafeMutableBufferPointer(start: classes, count: width)
        if memcmp(baseRow, currentRow, rowBytes) == 0 {
            rowClasses.update(repeating: PixelClass.same)
            ignore.mark(row: y, in: rowClasses)
            return
        }
        ignore.withSpans(row: y) { spans in
            // The span at or after x (spans are sorted): only looked at for differing pixels.
            var span = 0
            var x = 0
            while x < width {
                let p = baseRow + 4 * x, q = currentRow + 4 * x
                var pixelClass = PixelClass.same
                if PixelmatchRule.load32(p) != PixelmatchRule.load32(q),
                   PixelmatchRule.colorDelta(p, q) > maxDelta {
                    while span < spans.count && Int(spans[span + 1]) <= x { span += 2 }
                    if span < spans.count && Int(spans[span]) <= x {
                        pixelClass = PixelClass.ignored
                    } else {
                        let isAA = PixelmatchRule.antialiased(base, current, x: x, y: y, width: width, height: height)
                            || PixelmatchRule.antialiased(current, base, x: x, y: y, width: width, height: height)
                        pixelClass = isAA ? PixelClass.antialiased : PixelClass.differing
                        if isAA { aaPixels += 1 }
                        if !isAA || options.includeAA {
                            diffPixels += 1
                            minX = min(minX, x); maxX = max(maxX, x)
                            minY = min(minY, y); maxY = y
                        }
                    }
                }
                classes[x] = pixelClass
                x += 1
            }
        }
        ignore.mark(row: y, in: rowClasses)
    }
}
