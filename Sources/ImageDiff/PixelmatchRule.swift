// The per-pixel arithmetic of pixelmatch 5.x/6.x (mapbox/pixelmatch, ISC licence), rewritten
// from its description and source. Every floating-point expression keeps pixelmatch's order of
// operations, so the comparisons against zero and against the threshold come out the same.

/// The rows of one RGBA8 image around the row being classified: `row(y)` for y in
/// `firstRow ..< firstRow + count`, wherever they are stored.
struct RowWindow {
    let rows: UnsafePointer<UnsafePointer<UInt8>>
    let firstRow: Int

    @inline(__always) func row(_ y: Int) -> UnsafePointer<UInt8> { rows[y &- firstRow] }
}

/// pixelmatch 6.0's per-pixel rule: YIQ colour distance of two pixels blended over white, and
/// its anti-aliasing test (`antialiased`, `hasManySiblings`) over a window of rows.
enum PixelmatchRule {
    /// pixelmatch's limit on the squared YIQ distance: `35215 · t²` (35215 is the largest possible).
    @inline(__always)
    static func maxDelta(threshold: Double) -> Double { 35215 * threshold * threshold }

    @inline(__always) static func rgb2y(_ r: Double, _ g: Double, _ b: Double) -> Double {
        r * 0.29889531 + g * 0.58662247 + b * 0.11448223
    }
    @inline(__always) static func rgb2i(_ r: Double, _ g: Double, _ b: Double) -> Double {
        r * 0.59597799 - g * 0.27417610 - b * 0.32180189
    }
    @inline(__always) static func rgb2q(_ r: Double, _ g: Double, _ b: Double) -> Double {
        r * 0.21147017 - g * 0.52261711 + b * 0.31114694
    }
    /// A channel blended over white by alpha `a` in 0...1.
    @inline(__always) static func blend(_ c: Double, _ a: Double) -> Double { 255 + (c - 255) * a }

    /// A pixel's channels as pixelmatch sees them: blended over white when not opaque.
    @inline(__always)
    static func blended(_ p: UnsafePointer<UInt8>) -> (r: Double, g: Double, b: Double) {
        let r = Double(p[0]), g = Double(p[1]), b = Double(p[2]), a8 = p[3]
        if a8 == 255 { return (r, g, b) }
        let a = Double(a8) / 255
        return (blend(r, a), blend(g, a), blend(b, a))
    }

    /// The squared YIQ distance of two pixels (pixelmatch's `colorDelta` without its sign).
    @inline(__always)
    static func colorDelta(_ p: UnsafePointer<UInt8>, _ q: UnsafePointer<UInt8>) -> Double {
        let c1 = blended(p), c2 = blended(q)
        let y = rgb2y(c1.r, c1.g, c1.b) - rgb2y(c2.r, c2.g, c2.b)
        let i = rgb2i(c1.r, c1.g, c1.b) - rgb2i(c2.r, c2.g, c2.b)
        let q = rgb2q(c1.r, c1.g, c1.b) - rgb2q(c2.r, c2.g, c2.b)
        return 0.5053 * y * y + 0.299 * i * i + 0.1957 * q * q
    }

    /// The brightness difference of two pixels of one image (`colorDelta(..., yOnly: true)`).
    @inline(__always)
    static func brightnessDelta(_ p: UnsafePointer<UInt8>, _ q: UnsafePointer<UInt8>) -> Double {
        if load32(p) == load32(q) { return 0 }
        let c1 = blended(p), c2 = blended(q)
        return rgb2y(c1.r, c1.g, c1.b) - rgb2y(c2.r, c2.g, c2.b)
    }

    @inline(__always) static func load32(_ p: UnsafePointer<UInt8>) -> UInt32 {
        UnsafeRawPointer(p).loadUnaligned(as: UInt32.self)
    }

    /// pixelmatch's `antialiased(img, x, y, width, height, img2)`: whether pixel (x, y) of `image`
    /// looks like anti-aliasing (after V. Vysniauskas, "Anti-aliased Pixel and Intensity Slope
    /// Detector", 2009). It reads rows y-1...y+1 of `image`, and rows y-2...y+2 of both images
    /// through `hasManySiblings`.
    static func antialiased(_ image: RowWindow, _ other: RowWindow, x x1: Int, y y1: Int,
                            width: Int, height: Int) -> Bool {
        let x0 = max(x1 - 1, 0), y0 = max(y1 - 1, 0)
        let x2 = min(x1 + 1, width - 1), y2 = min(y1 + 1, height - 1)
        let centre = image.row(y1) + 4 * x1
        var zeroes = (x1 == x0 || x1 == x2 || y1 == y0 || y1 == y2) ? 1 : 0
        var minDelta = 0.0, maxDelta = 0.0
        var minX = 0, minY = 0, maxX = 0, maxY = 0
        // Column by column, as pixelmatch does: ties keep the first pixel found in this order.
        for x in x0...x2 {
            for y in y0...y2 where !(x == x1 && y == y1) {
                let delta = brightnessDelta(centre, image.row(y) + 4 * x)
                if delta == 0 {
                    zeroes += 1
                    if zeroes > 2 { return false }
                } else if delta < minDelta {
                    minDelta = delta; minX = x; minY = y
                } else if delta > maxDelta {
                    maxDelta = delta; maxX = x; maxY = y
                }
            }
        }
        if minDelta == 0 || maxDelta == 0 { return false }
        return (hasManySiblings(image, x: minX, y: minY, width: width, height: height)
                && hasManySiblings(other, x: minX, y: minY, width: width, height: height))
            || (hasManySiblings(image, x: maxX, y: maxY, width: width, height: height)
                && hasManySiblings(other, x: maxX, y: maxY, width: width, height: height))
    }

    /// pixelmatch's `hasManySiblings`: whether 3 or more of the pixel's neighbours (an edge
    /// counting as one) have exactly its RGBA value.
    static func hasManySiblings(_ image: RowWindow, x x1: Int, y y1: Int, width: Int, height: Int) -> Bool {
        let x0 = max(x1 - 1, 0), y0 = max(y1 - 1, 0)
        let x2 = min(x1 + 1, width - 1), y2 = min(y1 + 1, height - 1)
        let value = load32(image.row(y1) + 4 * x1)
        var zeroes = (x1 == x0 || x1 == x2 || y1 == y0 || y1 == y2) ? 1 : 0
        for y in y0...y2 {
            let row = image.row(y)
            for x in x0...x2 where !(x == x1 && y == y1) {
                if load32(row + 4 * x) == value {
                    zeroes += 1
                    if zeroes > 2 { return true }
                }
            }
        }
        return false
    }
}
