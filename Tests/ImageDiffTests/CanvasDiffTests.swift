import ImageDiff
import Testing

@Suite struct CanvasDiffTests {
    /// A 100000×1 image beside a 1×100000 one: a canvas of 10^10 pixels, counted without
    /// drawing it (one call per row).
    @Test func hugeCanvasIsCountedWithoutDrawing() {
        let side = 100_000
        let diff = CanvasDiff(baselineWidth: side, baselineHeight: 1, currentWidth: 1, currentHeight: side)
        let wide = [UInt8](repeating: 200, count: 4 * side), narrow: [UInt8] = [200, 200, 200, 200]
        var overlapRows = 0, rowsBelow = 0
        wide.withUnsafeBufferPointer { b in
            narrow.withUnsafeBufferPointer { c in diff.push(baseline: b, current: c) { _, row in overlapRows += 1; #expect(row.count == side) } }
        }
        diff.finish { _, _ in rowsBelow += 1 }
        #expect(overlapRows == 1 && rowsBelow == side - 1)
        #expect(diff.diffPixels == side * side - 1)
        #expect(diff.bounds == PixelRect(x: 0, y: 0, width: side, height: side))
        #expect(diff.findings == .compared(diffPixels: side * side - 1, area: side * side, resized: true))
    }

    /// Only the width differs: the extra columns are the bounds, rows keep the canvas width.
    @Test func extraColumnsAreDiffering() {
        let diff = CanvasDiff(baselineWidth: 3, baselineHeight: 2, currentWidth: 5, currentHeight: 2)
        let a = [UInt8](repeating: 9, count: 4 * 3), b = [UInt8](repeating: 9, count: 4 * 5)
        var rows: [[UInt8]] = []
        for _ in 0..<2 {
            a.withUnsafeBufferPointer { p in b.withUnsafeBufferPointer { q in diff.push(baseline: p, current: q) { _, row in rows.append(Array(row)) } } }
        }
        diff.finish { _, row in rows.append(Array(row)) }
        #expect(rows == [[0, 0, 0, 1, 1], [0, 0, 0, 1, 1]])
        #expect(diff.diffPixels == 4 && diff.diffRatio == 0.4)
        #expect(diff.bounds == PixelRect(x: 3, y: 0, width: 2, height: 2))
    }
}
