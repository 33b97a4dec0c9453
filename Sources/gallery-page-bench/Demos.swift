// The pages behind the README's screenshots: a gallery page over a real `masonry` sheet (from its
// manifest), and a review page over hand-made compare results built from SampleImages/.
import Foundation
import GalleryPage
import CodecCore
import PNGCodec

/// Writes the gallery page of a `masonry --manifest` file: version 2 names its pages, version 1
/// has one page, `sheet` (the `-o` file).
func writeGalleryPage(manifest: String, sheet: String, html: String) throws {
    let data = try Data(contentsOf: URL(fileURLWithPath: manifest))
    guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
          let items = root["items"] as? [[String: Any]] else { fail("\(manifest) is not a masonry manifest") }
    let folder = (manifest as NSString).deletingLastPathComponent
    var pages: [SheetPage]
    if let listed = root["pages"] as? [[String: Any]] {
        pages = listed.map { page in
            let file = page["file"] as? String ?? ""
            return SheetPage(file: Array((file.hasPrefix("/") || folder.isEmpty ? file : folder + "/" + file).utf8),
                             width: page["width"] as? Int ?? 0, height: page["height"] as? Int ?? 0)
        }
    } else {
        let size = root["sheet"] as? [String: Any] ?? [:]
        pages = [SheetPage(file: Array(sheet.utf8), width: size["width"] as? Int ?? 0, height: size["height"] as? Int ?? 0)]
    }
    let tiles = items.map { item in
        Gallery.Tile(page: item["page"] as? Int ?? 1, x: item["x"] as? Int ?? 0, y: item["y"] as? Int ?? 0,
                     width: item["width"] as? Int ?? 0, height: item["height"] as? Int ?? 0,
                     path: Array((item["path"] as? String ?? "").utf8),
                     caption: (item["caption"] as? [String: Any])?["text"] as? String)
    }
    let page = HTMLPage.render(Gallery(title: "SampleImages", pages: pages, tiles: tiles), htmlPath: Array(html.utf8))
    try Data(page.utf8).write(to: URL(fileURLWithPath: html))
}

/// An RGB picture held whole: the demo's images are small.
struct Picture {
    var width: Int
    var height: Int
    var rgb: [UInt8]

    init(width: Int, height: Int, fill: UInt8 = 255) {
        self.width = width
        self.height = height
        rgb = [UInt8](repeating: fill, count: width * height * 3)
    }

    /// A PNG scaled by box averaging to `targetWidth`, composited over white.
    init(file: String, targetWidth: Int) throws {
        let image = try PNGDecoder.decodeRGBA(contentsOfFile: file)
        let step = max(1, (image.width + targetWidth - 1) / targetWidth)
        self.init(width: image.width / step, height: image.height / step)
        for y in 0..<height {
            for x in 0..<width {
                var sums = [0, 0, 0]
                for dy in 0..<step {
                    for dx in 0..<step {
                        let at = ((y * step + dy) * image.width + x * step + dx) * 4
                        let alpha = Int(image.pixels[at + 3])
                        for c in 0..<3 { sums[c] += (Int(image.pixels[at + c]) * alpha + 255 * (255 - alpha)) / 255 }
                    }
                }
                for c in 0..<3 { rgb[(y * width + x) * 3 + c] = UInt8(sums[c] / (step * step)) }
            }
        }
    }

    subscript(x: Int, y: Int) -> [UInt8] {
        get { Array(rgb[(y * width + x) * 3 ..< (y * width + x) * 3 + 3]) }
        set { rgb.replaceSubrange((y * width + x) * 3 ..< (y * width + x) * 3 + 3, with: newValue) }
    }

    func cropped(width: Int, height: Int) -> Picture {
        var out = Picture(width: width, height: height)
        for y in 0..<height { for x in 0..<width { out[x, y] = self[x, y] } }
        return out
    }

    mutating func fill(x: Int, y: Int, width: Int, height: Int, _ colour: [UInt8]) {
        for row in y ..< y + height { for column in x ..< x + width { self[column, row] = colour } }
    }

    mutating func paste(_ picture: Picture, x: Int, y: Int) {
        for row in 0..<picture.height { for column in 0..<picture.width { self[x + column, y + row] = picture[column, row] } }
    }

    func write(_ path: String) throws {
        let png = try PNGEncoder.encode(pixels: rgb, width: width, height: height, format: .rgb8)
        try Data(png).write(to: URL(fileURLWithPath: path))
    }

    /// A simple difference picture (faded baseline, red where a channel differs by more than 24,
    /// red outside the smaller image) and the count of red pixels. Not the compare rule of
    /// SPEC §9: only material for a screenshot.
    static func difference(_ a: Picture, _ b: Picture) -> (Picture, Int) {
        var out = Picture(width: max(a.width, b.width), height: max(a.height, b.height))
        var count = 0
        for y in 0..<out.height {
            for x in 0..<out.width {
                guard x < a.width, y < a.height, x < b.width, y < b.height else {
                    out[x, y] = [230, 0, 0]; count += 1; continue
                }
                let p = a[x, y], q = b[x, y]
                if zip(p, q).contains(where: { abs(Int($0) - Int($1)) > 24 }) {
                    out[x, y] = [230, 0, 0]; count += 1
                } else {
                    let mean: Int = (Int(p[0]) + Int(p[1]) + Int(p[2])) / 3
                    let grey = UInt8(255 - (255 - mean) / 8)
                    out[x, y] = [grey, grey, grey]
                }
            }
        }
        return (out, count)
    }
}

/// Writes baseline/ and current/ folders made from SampleImages, a review sheet page with each
/// changed pair's baseline, current and difference side by side, and the review page over them.
func writeReviewDemo(samples: String, folder: String) throws {
    for sub in ["baseline", "current"] {
        try FileManager.default.createDirectory(atPath: "\(folder)/\(sub)", withIntermediateDirectories: true)
    }
    func load(_ name: String) throws -> Picture { try Picture(file: "\(samples)/\(name).png", targetWidth: 200) }
    var astronaut = try load("01-astronaut"), car = try load("08-formula-one-car"), pumpkin = try load("10-pumpkin")
    try astronaut.write("\(folder)/baseline/astronaut.png")
    astronaut.fill(x: 120, y: 30, width: 40, height: 28, [250, 210, 40])
    try astronaut.write("\(folder)/current/astronaut.png")
    try car.write("\(folder)/baseline/race car.png")
    car.fill(x: 20, y: 40, width: 30, height: 12, [20, 120, 240])
    try car.write("\(folder)/current/race car.png")
    try pumpkin.write("\(folder)/baseline/pumpkin #2.png")
    pumpkin = pumpkin.cropped(width: pumpkin.width, height: pumpkin.height - 30)
    try pumpkin.write("\(folder)/current/pumpkin #2.png")
    try load("02-strawberry").write("\(folder)/baseline/strawberry.png")
    try load("02-strawberry").write("\(folder)/current/strawberry.png")
    try load("18-tux-penguin").write("\(folder)/baseline/tux.png")
    try load("28-sheep").write("\(folder)/current/sheep.png")
    try Data([0x89, 0x50, 0x4E, 0x47]).write(to: URL(fileURLWithPath: "\(folder)/current/broken.png"))
    try load("13-chelsea-cat-palette").write("\(folder)/baseline/broken.png")

    // The sheet: one row per compared pair, baseline | current | difference.
    let names = ["astronaut.png", "pumpkin #2.png", "race car.png"]
    var rows: [(Picture, Picture, Picture, Int)] = []
    for name in names {
        let a = try Picture(file: "\(folder)/baseline/\(name)", targetWidth: 200)
        let b = try Picture(file: "\(folder)/current/\(name)", targetWidth: 200)
        let (difference, count) = Picture.difference(a, b)
        rows.append((a, b, difference, count))
    }
    let height = rows.reduce(8) { $0 + $1.2.height + 8 }
    var page = Picture(width: 8 + 3 * 208, height: height, fill: 240)
    var y = 8
    var panels: [Review.Panel] = []
    for (a, b, difference, _) in rows {
        page.paste(a, x: 8, y: y)
        page.paste(b, x: 216, y: y)
        page.paste(difference, x: 424, y: y)
        panels.append(Review.Panel(page: 1, x: 424, y: y, width: difference.width, height: difference.height))
        y += difference.height + 8
    }
    try page.write("\(folder)/review-001.png")

    func side(_ sub: String, _ name: String) throws -> Review.Side {
        let picture = try Picture(file: "\(folder)/\(sub)/\(name)", targetWidth: 200)
        return Review.Side(path: Array("\(folder)/\(sub)/\(name)".utf8), width: picture.width, height: picture.height)
    }
    var pairs: [Review.Pair] = []
    for (index, name) in names.enumerated() {
        let (a, b, difference, count) = rows[index]
        let resized = a.height != b.height
        pairs.append(Review.Pair(path: Array(name.utf8), status: resized ? "resized" : "changed", failed: true,
                                 diffPixels: count, aaPixels: resized ? 0 : 7,
                                 diffRatio: Double(count) / Double(difference.width * difference.height),
                                 baseline: try side("baseline", name), current: try side("current", name),
                                 diffPanel: panels[index]))
    }
    pairs.append(Review.Pair(path: Array("broken.png".utf8), status: "error", failed: true, diffPixels: 0, aaPixels: 0,
                             diffRatio: 0, baseline: try side("baseline", "broken.png"), current: nil,
                             reason: "current: not a PNG file (truncated signature)"))
    pairs.append(Review.Pair(path: Array("sheep.png".utf8), status: "added", failed: false, diffPixels: 0, aaPixels: 0,
                             diffRatio: 0, baseline: nil, current: try side("current", "sheep.png")))
    pairs.append(Review.Pair(path: Array("tux.png".utf8), status: "removed", failed: false, diffPixels: 0, aaPixels: 0,
                             diffRatio: 0, baseline: try side("baseline", "tux.png"), current: nil))
    pairs.append(Review.Pair(path: Array("strawberry.png".utf8), status: "unchanged", failed: false, diffPixels: 0,
                             aaPixels: 0, diffRatio: 0, baseline: try side("baseline", "strawberry.png"),
                             current: try side("current", "strawberry.png")))
    let summary = ["unchanged", "changed", "resized", "added", "removed", "error"].map { status in
        Review.StatusCount(status: status, count: pairs.filter { $0.status == status }.count)
    }
    let review = Review(title: "masonry compare baseline current", summary: summary,
                        failed: pairs.filter(\.failed).count,
                        pages: [SheetPage(file: Array("\(folder)/review-001.png".utf8), width: page.width, height: page.height)],
                        pairs: pairs)
    let html = "\(folder)/review.html"
    try Data(HTMLPage.render(review, htmlPath: Array(html.utf8)).utf8).write(to: URL(fileURLWithPath: html))
}
