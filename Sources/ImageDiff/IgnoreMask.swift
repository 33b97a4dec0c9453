/// The pixels of a pair's canvas that are not compared (SPEC §9, `--ignore` and `--mask-dir`),
/// row by row as sorted, disjoint spans `x0 ..< x1` clipped to the canvas. Coordinates are the
/// canvas's, which are both images' own (both sit at its top left).
///
/// Memory: one integer per row plus two per span, so a few rectangles cost a few KB whatever
/// the picture, and a mask image costs its runs of non-transparent pixels.
public struct IgnoreMask: Sendable, Hashable {
    public let width: Int
    public let height: Int
    /// Row y's spans are `spans[rowStart[y] ..< rowStart[y + 1]]`, each two values (x0, x1).
    private var rowStart: [Int32]
    private var spans: [Int32]
    /// Ignored pixels of the canvas.
    public private(set) var ignoredPixels: Int

    /// No pixel ignored.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
        rowStart = []
        spans = []
        ignoredPixels = 0
    }

    /// The union of `rectangles`, clipped to the canvas (parts off its edges are dropped).
    public init(width: Int, height: Int, rectangles: [PixelRect]) {
        self.init(width: width, height: height, rectangles: rectangles, maskHeight: 0) { _ in [] }
    }

    /// The union of `rectangles` and `maskRow(y)`, the spans of row y of a mask image
    /// (`maskHeight` rows of any width, asked for in order, only those inside the canvas), all
    /// clipped to the canvas.
    public init(width: Int, height: Int, rectangles: [PixelRect], maskHeight: Int,
                maskRow: (Int) throws -> [Range<Int>]) rethrows {
        self.init(width: width, height: height)
        let clipped = rectangles.compactMap { $0.clipped(width: width, height: height) }
        guard !clipped.isEmpty || maskHeight > 0 else { return }
        rowStart.reserveCapacity(height + 1)
        rowStart.append(0)
        var row: [Range<Int>] = []
        for y in 0..<height {
            row.removeAll(keepingCapacity: true)
            for rect in clipped where rect.y <= y && y < rect.y + rect.height { row.append(rect.x ..< rect.x + rect.width) }
            if y < maskHeight {
                for span in try maskRow(y) where span.lowerBound < width && !span.isEmpty {
                    row.append(max(0, span.lowerBound) ..< min(width, span.upperBound))
                }
            }
            row.sort { $0.lowerBound < $1.lowerBound }
            var last: Range<Int>?
            for span in row {
                if let open = last, span.lowerBound <= open.upperBound {
                    last = open.lowerBound ..< max(open.upperBound, span.upperBound)
                } else {
                    if let open = last { append(open) }
                    last = span
                }
            }
            if let open = last { append(open) }
            rowStart.append(Int32(spans.count / 2))
        }
        if spans.isEmpty { self = IgnoreMask(width: width, height: height) }
    }

    private mutating func append(_ span: Range<Int>) {
        spans.append(Int32(span.lowerBound))
        spans.append(Int32(span.upperBound))
        ignoredPixels += span.count
    }

    /// Whether no pixel is ignored.
    public var isEmpty: Bool { spans.isEmpty }

    /// Row y's spans, as ranges.
    public func spans(row y: Int) -> [Range<Int>] {
        guard !isEmpty else { return [] }
        return (Int(rowStart[y]) ..< Int(rowStart[y + 1])).map { Int(spans[2 * $0]) ..< Int(spans[2 * $0 + 1]) }
    }

    /// Calls `body` with row y's spans as a flat buffer (x0, x1, x0, x1, ...), empty when none.
    @inline(__always)
    func withSpans<T>(row y: Int, _ body: (UnsafeBufferPointer<Int32>) throws -> T) rethrows -> T {
        guard !isEmpty else { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
        let start = Int(rowStart[y]), end = Int(rowStart[y + 1])
        return try spans.withUnsafeBufferPointer { all in
            try body(UnsafeBufferPointer(rebasing: all[(2 * start) ..< (2 * end)]))
        }
    }

    /// Ignored pixels inside `rect`.
    public func ignoredPixels(in rect: PixelRect) -> Int {
        guard !isEmpty else { return 0 }
        var count = 0
        for y in max(0, rect.y) ..< min(height, rect.y + rect.height) {
            for span in spans(row: y) {
                count += max(0, min(span.upperBound, rect.x + rect.width) - max(span.lowerBound, rect.x))
            }
        }
        return count
    }

    /// The bounding box of the pixels of `rect` (inside the canvas) that are not ignored, or nil.
    public func bounds(ofComparedPixelsIn rect: PixelRect) -> PixelRect? {
        guard let rect = rect.clipped(width: width, height: height) else { return nil }
        guard !isEmpty else { return rect }
        var box: PixelRect?
        for y in rect.y ..< rect.y + rect.height {
            // The first and last pixels of the row's part of `rect` outside every span.
            var first: Int?, last: Int?
            var x = rect.x
            let spans = spans(row: y)
            for span in spans where span.upperBound > x && span.lowerBound < rect.x + rect.width {
                if span.lowerBound > x { first = first ?? x; last = span.lowerBound - 1 }
                x = max(x, span.upperBound)
            }
            if x < rect.x + rect.width { first = first ?? x; last = rect.x + rect.width - 1 }
            if let first, let last { box = PixelRect.union(box, PixelRect(x: first, y: y, width: last - first + 1, height: 1)) }
        }
        return box
    }

    /// Sets the classes of row y's ignored pixels to `PixelClass.ignored`; `classes` covers
    /// canvas columns `0 ..< classes.count`.
    func mark(row y: Int, in classes: UnsafeMutableBufferPointer<UInt8>) {
        withSpans(row: y) { spans in
            var k = 0
            while k < spans.count {
                let x0 = Int(spans[k]), x1 = min(Int(spans[k + 1]), classes.count)
                if x0 < x1 { UnsafeMutableBufferPointer(rebasing: classes[x0 ..< x1]).update(repeating: PixelClass.ignored) }
                k += 2
            }
        }
    }
}

extension PixelRect {
    /// The part inside a `width × height` canvas, or nil when none (or the rectangle is empty).
    public func clipped(width canvasWidth: Int, height canvasHeight: Int) -> PixelRect? {
        let x0 = max(0, x), y0 = max(0, y)
        let (x1, o1) = x.addingReportingOverflow(width), (y1, o2) = y.addingReportingOverflow(height)
        let right = o1 ? canvasWidth : min(canvasWidth, x1), bottom = o2 ? canvasHeight : min(canvasHeight, y1)
        guard width > 0, height > 0, right > x0, bottom > y0 else { return nil }
        return PixelRect(x: x0, y: y0, width: right - x0, height: bottom - y0)
    }
}
