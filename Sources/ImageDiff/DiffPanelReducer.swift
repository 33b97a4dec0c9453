/// Shrinks (or enlarges) a `DiffPicture` for a small panel without losing single pixels: a target
/// pixel is red if any source pixel of its block is differing, else yellow if any is
/// anti-aliased, else the rounded average of the block's (faded) pixels; a block holding ignored
/// pixels (and none differing) is hatched: diagonal stripes of `DiffPicture.hatchColor` every
/// `hatchPeriod` target pixels, so what was not checked shows at any scale.
///
/// Blocks: target column `t` covers source columns `⌊t·sw/tw⌋ ..< max(⌊t·sw/tw⌋+1, ⌊(t+1)·sw/tw⌋)`,
/// rows likewise; so blocks tile the source when shrinking and repeat pixels when enlarging.
/// Rows are pushed in order; each target row is emitted as soon as its last source row arrives.
/// Memory: a few integers per target column.
public final class DiffPanelReducer {
    public let sourceWidth: Int, sourceHeight: Int, targetWidth: Int, targetHeight: Int
    public let includeAA: Bool
    private let columnStart: [Int], columnEnd: [Int]
    private var sums: [UInt64]        // 4 per target column
    private var seen: [UInt8]         // per target column, bit c set when class c was seen
    private var output: [UInt8]
    private var nextSourceRow = 0
    private var nextTargetRow = 0
    private var blockRows = 0

    public init(sourceWidth: Int, sourceHeight: Int, targetWidth: Int, targetHeight: Int, includeAA: Bool = false) {
        precondition(sourceWidth > 0 && sourceHeight > 0 && targetWidth > 0 && targetHeight > 0,
                     "pictures have at least one pixel")
        self.sourceWidth = sourceWidth; self.sourceHeight = sourceHeight
        self.targetWidth = targetWidth; self.targetHeight = targetHeight
        self.includeAA = includeAA
        let spans = (0..<targetWidth).map { Self.span($0, source: sourceWidth, target: targetWidth) }
        columnStart = spans.map(\.start)
        columnEnd = spans.map(\.end)
        sums = [UInt64](repeating: 0, count: 4 * targetWidth)
        seen = [UInt8](repeating: 0, count: targetWidth)
        output = [UInt8](repeating: 0, count: 4 * targetWidth)
    }

    /// The source block of target index `t`.
    static func span(_ t: Int, source: Int, target: Int) -> (start: Int, end: Int) {
        let start = t * source / target
        return (start, max(start + 1, (t + 1) * source / target))
    }

    /// Pushes the next source row: its picture (`4 × sourceWidth` bytes) and its classes
    /// (`sourceWidth` bytes). `emit(y, row)` receives each finished target row (RGBA8).
    public func push(picture: UnsafeBufferPointer<UInt8>, classes: UnsafeBufferPointer<UInt8>,
                     emit: (Int, UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
        precondition(nextSourceRow < sourceHeight, "every source row has already been pushed")
        precondition(picture.count == 4 * sourceWidth && classes.count == sourceWidth, "rows match the source width")
        let y = nextSourceRow
        nextSourceRow += 1
        while nextTargetRow < targetHeight {
            let rows = Self.span(nextTargetRow, source: sourceHeight, target: targetHeight)
            guard rows.start <= y else { return }
            accumulate(picture: picture, classes: classes)
            blockRows += 1
            guard y == rows.end - 1 else { return }
            try emitRow(nextTargetRow, emit: emit)
            nextTargetRow += 1
        }
    }

    private func accumulate(picture: UnsafeBufferPointer<UInt8>, classes: UnsafeBufferPointer<UInt8>) {
        let pixels = picture.baseAddress!, kinds = classes.baseAddress!
        sums.withUnsafeMutableBufferPointer { sums in
            seen.withUnsafeMutableBufferPointer { seen in
                columnStart.withUnsafeBufferPointer { starts in
                    columnEnd.withUnsafeBufferPointer { ends in
                        for t in 0..<targetWidth {
                            // One row of a block is at most 2^20 pixels (PNG width limit): its
                            // channel sums fit 32 bits.
                            var sum = SIMD4<UInt32>()
                            var classesSeen: UInt8 = 0
                            var s = starts[t]
                            let end = ends[t]
                            while s < end {
                                classesSeen |= 1 &<< (kinds[s] & 7)
                                sum &+= SIMD4<UInt32>(truncatingIfNeeded: UnsafeRawPointer(pixels + 4 &* s).loadUnaligned(as: SIMD4<UInt8>.self))
                                s &+= 1
                            }
                            seen[t] |= classesSeen
                            for c in 0..<4 { sums[4 &* t &+ c] &+= UInt64(sum[c]) }
                        }
                    }
                }
            }
        }
    }

    /// The hatching's period in target pixels (one stripe pixel in `hatchPeriod` along a row).
    public static let hatchPeriod = 4

    private func emitRow(_ y: Int, emit: (Int, UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
        for t in 0..<targetWidth {
            let differing = seen[t] & (1 << PixelClass.differing) != 0
            let antialiased = seen[t] & (1 << PixelClass.antialiased) != 0
            let hatched = seen[t] & (1 << PixelClass.ignored) != 0 && (t + y) % Self.hatchPeriod == 0
            let marker: (r: UInt8, g: UInt8, b: UInt8)? =
                differing || (antialiased && includeAA) ? DiffPicture.differingColor
                : antialiased ? DiffPicture.antialiasedColor : hatched ? DiffPicture.hatchColor : nil
            if let marker {
                output[4 * t] = marker.r; output[4 * t + 1] = marker.g; output[4 * t + 2] = marker.b
                output[4 * t + 3] = 255
            } else {
                let count = UInt64((columnEnd[t] - columnStart[t]) * blockRows)
                for c in 0..<4 { output[4 * t + c] = UInt8((sums[4 * t + c] + count / 2) / count) }
            }
        }
        try output.withUnsafeBufferPointer { try emit(y, $0) }
        sums.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        seen.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        blockRows = 0
    }
}
