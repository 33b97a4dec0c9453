// A straightforward whole-image pixelmatch 6.0.0 (mapbox/pixelmatch `index.js`), kept independent
// of ImageDiff's code: the property tests check the streamed diff against it.

/// pixelmatch over two whole images of one size; every differing pixel is also put through the
/// anti-aliasing test (which pixelmatch skips with includeAA), so both counts come out.
/// Returns one class per pixel: 0 same, 1 differing, 2 anti-aliased.
func referenceClasses(_ a: RGBAImage, _ b: RGBAImage, threshold: Double) -> [UInt8] {
    precondition(a.width == b.width && a.height == b.height)
    let width = a.width, height = a.height
    let maxDelta = 35215 * threshold * threshold
    var classes = [UInt8](repeating: 0, count: width * height)
    for y in 0..<height {
        for x in 0..<width {
            let pos = (y * width + x) * 4
            let delta = colorDelta(a.pixels, b.pixels, pos, pos, yOnly: false)
            if abs(delta) > maxDelta {
                let aa = antialiased(a.pixels, x, y, width, height, b.pixels)
                    || antialiased(b.pixels, x, y, width, height, a.pixels)
                classes[y * width + x] = aa ? 2 : 1
            }
        }
    }
    return classes
}

private func antialiased(_ img: [UInt8], _ x1: Int, _ y1: Int, _ width: Int, _ height: Int, _ img2: [UInt8]) -> Bool {
    let x0 = max(x1 - 1, 0), y0 = max(y1 - 1, 0), x2 = min(x1 + 1, width - 1), y2 = min(y1 + 1, height - 1)
    let pos = (y1 * width + x1) * 4
    var zeroes = x1 == x0 || x1 == x2 || y1 == y0 || y1 == y2 ? 1 : 0
    var min = 0.0, max = 0.0
    var minX = 0, minY = 0, maxX = 0, maxY = 0
    for x in x0...x2 {
        for y in y0...y2 {
            if x == x1 && y == y1 { continue }
            let delta = colorDelta(img, img, pos, (y * width + x) * 4, yOnly: true)
            if delta == 0 {
                zeroes += 1
                if zeroes > 2 { return false }
            } else if delta < min {
                min = delta; minX = x; minY = y
            } else if delta > max {
                max = delta; maxX = x; maxY = y
            }
        }
    }
    if min == 0 || max == 0 { return false }
    return (hasManySiblings(img, minX, minY, width, height) && hasManySiblings(img2, minX, minY, width, height))
        || (hasManySiblings(img, maxX, maxY, width, height) && hasManySiblings(img2, maxX, maxY, width, height))
}

private func hasManySiblings(_ img: [UInt8], _ x1: Int, _ y1: Int, _ width: Int, _ height: Int) -> Bool {
    let x0 = max(x1 - 1, 0), y0 = max(y1 - 1, 0), x2 = min(x1 + 1, width - 1), y2 = min(y1 + 1, height - 1)
    let pos = (y1 * width + x1) * 4
    var zeroes = x1 == x0 || x1 == x2 || y1 == y0 || y1 == y2 ? 1 : 0
    for x in x0...x2 {
        for y in y0...y2 {
            if x == x1 && y == y1 { continue }
            let pos2 = (y * width + x) * 4
            if img[pos] == img[pos2] && img[pos + 1] == img[pos2 + 1] && img[pos + 2] == img[pos2 + 2]
                && img[pos + 3] == img[pos2 + 3] { zeroes += 1 }
            if zeroes > 2 { return true }
        }
    }
    return false
}

private func colorDelta(_ img1: [UInt8], _ img2: [UInt8], _ k: Int, _ m: Int, yOnly: Bool) -> Double {
    var r1 = Double(img1[k]), g1 = Double(img1[k + 1]), b1 = Double(img1[k + 2]), a1 = Double(img1[k + 3])
    var r2 = Double(img2[m]), g2 = Double(img2[m + 1]), b2 = Double(img2[m + 2]), a2 = Double(img2[m + 3])
    if a1 == a2 && r1 == r2 && g1 == g2 && b1 == b2 { return 0 }
    if a1 < 255 { a1 /= 255; r1 = blend(r1, a1); g1 = blend(g1, a1); b1 = blend(b1, a1) }
    if a2 < 255 { a2 /= 255; r2 = blend(r2, a2); g2 = blend(g2, a2); b2 = blend(b2, a2) }
    let y1 = rgb2y(r1, g1, b1), y2 = rgb2y(r2, g2, b2)
    let y = y1 - y2
    if yOnly { return y }
    let i = rgb2i(r1, g1, b1) - rgb2i(r2, g2, b2)
    let q = rgb2q(r1, g1, b1) - rgb2q(r2, g2, b2)
    let delta = 0.5053 * y * y + 0.299 * i * i + 0.1957 * q * q
    return y1 > y2 ? -delta : delta
}

private func rgb2y(_ r: Double, _ g: Double, _ b: Double) -> Double { r * 0.29889531 + g * 0.58662247 + b * 0.11448223 }
private func rgb2i(_ r: Double, _ g: Double, _ b: Double) -> Double { r * 0.59597799 - g * 0.27417610 - b * 0.32180189 }
private func rgb2q(_ r: Double, _ g: Double, _ b: Double) -> Double { r * 0.21147017 - g * 0.52261711 + b * 0.31114694 }
private func blend(_ c: Double, _ a: Double) -> Double { 255 + (c - 255) * a }
