// gallery-page-bench: the HTML page of a large render, measured in headless Chromium.
//
//   swift run -c release gallery-page-bench [--tiles 2000] [--runs 5] [--out .build/gallery-page-bench]
//   swift run -c release gallery-page-bench --screenshot <page.html> <shot.png> [--width 1200] [--height 900]
//                                            [--script <JavaScript run before the shot>]
//   swift run -c release gallery-page-bench --gallery-page <manifest.json> <sheet.png> <page.html>
//   swift run -c release gallery-page-bench --review-demo <SampleImages> <folder>
//
// The first form makes a synthetic render of N tiles (4 columns of 290 px, heights 120-460 px,
// pages at most 16384 px tall, grey page images with the tiles shaded), writes its gallery page
// and loads it from file:// in a fresh browser per run: wall time from Page.navigate to the load
// event, the page's own navigation timing, and the time to filter all tiles by a query; then the
// review page of as many compare pairs (a quarter changed and open) in the same browser. The
// second form loads any page and saves a screenshot of the window; the last two write the pages
// of the README's screenshots (Demos.swift).
import Foundation
import GalleryPage
import BrowserHarness
import CodecCore
import PNGCodec

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("gallery-page-bench: \(message)\n".utf8))
    exit(1)
}

let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String, default value: Int) -> Int {
    guard let at = arguments.firstIndex(of: name) else { return value }
    guard at + 1 < arguments.count, let number = Int(arguments[at + 1]), number > 0 else { fail("\(name) needs a positive number") }
    return number
}
/// Runs the mode the arguments ask for; any error ends the program with one line.
func run() throws {
    if let at = arguments.firstIndex(of: "--gallery-page") {
        guard at + 3 < arguments.count else { fail("--gallery-page needs <manifest.json> <sheet.png> <page.html>") }
        try writeGalleryPage(manifest: arguments[at + 1], sheet: arguments[at + 2], html: arguments[at + 3])
        return
    }
    if let at = arguments.firstIndex(of: "--review-demo") {
        guard at + 2 < arguments.count else { fail("--review-demo needs <SampleImages> <folder>") }
        try writeReviewDemo(samples: arguments[at + 1], folder: arguments[at + 2])
        return
    }
    guard let chromium = HeadlessChromium.executable() else { fail("chromium is not installed (apt-get install chromium)") }

    if let at = arguments.firstIndex(of: "--screenshot") {
        guard at + 2 < arguments.count else { fail("--screenshot needs <page.html> <shot.png>") }
        let browser = try HeadlessChromium(executable: chromium, width: option("--width", default: 1200),
                                           height: option("--height", default: 900))
        defer { browser.close() }
        try browser.navigate(to: URL(fileURLWithPath: arguments[at + 1]))
        if let script = arguments.firstIndex(of: "--script").flatMap({ $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }) {
            try browser.evaluate(script)
        }
        try browser.evaluate("""
            Promise.race([new Promise(r=>setTimeout(r,5000)),Promise.all([...document.images]
            .filter(i=>i.offsetParent&&i.getBoundingClientRect().top<innerHeight).map(i=>i.decode().catch(()=>0)))])
            .then(()=>new Promise(r=>requestAnimationFrame(()=>requestAnimationFrame(r))))
            """)
        try Data(try browser.screenshot()).write(to: URL(fileURLWithPath: arguments[at + 2]))
        print("wrote \(arguments[at + 2])")
        return
    }

    let tileCount = option("--tiles", default: 2000)
    let runs = option("--runs", default: 5)
    let folder = arguments.firstIndex(of: "--out").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
        ?? ".build/gallery-page-bench"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)

    // A masonry layout: shortest column first, a new page when the tile would pass the page height.
    let columns = 4, columnWidth = 290, gap = 8, pageWidth = 8 + columns * (columnWidth + gap), pageLimit = 16384
    /// A fixed sequence of tile heights (xorshift), so every run measures the same page.
    struct Heights {
        var state: UInt64 = 2_000
        mutating func next() -> Int {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return 120 + Int(state % 341)
        }
    }
    var heights = Heights()
    var tiles: [Gallery.Tile] = [], pageHeights: [Int] = []
    var bottoms = [Int](repeating: 8, count: columns)
    for index in 0..<tileCount {
        let height = heights.next()
        var column = bottoms.indices.min { bottoms[$0] < bottoms[$1] }!
        if bottoms[column] + height + 8 > pageLimit {
            pageHeights.append(bottoms.max()! - gap + 8)
            bottoms = [Int](repeating: 8, count: columns)
            column = 0
        }
        let name = "photos/2026-\(10 + index % 3)/holiday \(index / 100)/IMG_\(1000 + index).png"
        tiles.append(Gallery.Tile(page: pageHeights.count + 1, x: 8 + column * (columnWidth + gap), y: bottoms[column],
                                  width: columnWidth, height: height, path: Array(name.utf8)))
        bottoms[column] += height + gap
    }
    pageHeights.append(bottoms.max()! - gap + 8)

    var pages: [SheetPage] = []
    for (index, height) in pageHeights.enumerated() {
        let file = "\(folder)/sheet-\(String(format: "%03d", index + 1)).png"
        var pixels = [UInt8](repeating: 235, count: pageWidth * height * 3)
        for tile in tiles where tile.page == index + 1 {
            let shade = UInt8(90 + (tile.y / 7 + tile.x) % 120)
            for y in tile.y ..< tile.y + tile.height {
                let row = (y * pageWidth + tile.x) * 3
                for offset in row ..< row + tile.width * 3 { pixels[offset] = shade }
            }
        }
        let png = try PNGEncoder.encode(pixels: pixels, width: pageWidth, height: height, format: .rgb8)
        try Data(png).write(to: URL(fileURLWithPath: file))
        pages.append(SheetPage(file: Array(file.utf8), width: pageWidth, height: height))
    }
    let htmlPath = "\(folder)/gallery.html"
    let html = HTMLPage.render(Gallery(title: "\(tileCount) images", pages: pages, tiles: tiles), htmlPath: Array(htmlPath.utf8))
    try Data(html.utf8).write(to: URL(fileURLWithPath: htmlPath))
    print("page: \(htmlPath), \(tileCount) tiles on \(pages.count) pages, \(html.utf8.count) bytes")

    // The review page of a compare run over the same number of pairs: every fourth changed and
    // failing (open, with its views built at load), the rest unchanged (collapsed).
    let pairs = tiles.enumerated().map { index, tile in
        let side = Review.Side(path: tile.path, width: tile.width, height: tile.height)
        let changed = index % 4 == 0
        return Review.Pair(path: tile.path, status: changed ? "changed" : "unchanged", failed: changed,
                           diffPixels: changed ? 1_000 + index : 0, aaPixels: 0,
                           diffRatio: changed ? Double(1_000 + index) / Double(tile.width * tile.height) : 0,
                           baseline: side, current: side,
                           diffPanel: changed ? Review.Panel(page: tile.page, x: tile.x, y: tile.y, width: tile.width,
                                                             height: tile.height) : nil)
    }
    let changedCount = pairs.filter(\.failed).count
    let review = Review(summary: [Review.StatusCount(status: "unchanged", count: pairs.count - changedCount),
                                  Review.StatusCount(status: "changed", count: changedCount)],
                        failed: changedCount, pages: pages, pairs: pairs)
    let reviewPath = "\(folder)/review.html"
    let reviewHTML = HTMLPage.render(review, htmlPath: Array(reviewPath.utf8))
    try Data(reviewHTML.utf8).write(to: URL(fileURLWithPath: reviewPath))
    print("review page: \(reviewPath), \(pairs.count) pairs (\(changedCount) open), \(reviewHTML.utf8.count) bytes")

    func summary(_ values: [Double]) -> String {
        let sorted = values.sorted()
        return String(format: "median %.0f ms (min %.0f, max %.0f)", sorted[sorted.count / 2], sorted.first!, sorted.last!)
    }
    var wall: [Double] = [], loadEvent: [Double] = [], filtering: [Double] = [], reviewLoad: [Double] = []
    for _ in 0..<runs {
        let browser = try HeadlessChromium(executable: chromium, width: 1280, height: 900)
        let start = Date()
        try browser.navigate(to: URL(fileURLWithPath: htmlPath))
        wall.append(Date().timeIntervalSince(start) * 1000)
        loadEvent.append(try browser.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd") as? Double ?? .nan)
        for query in ["h", "holiday 7/"] {  // the first key typed, then a narrower query
            filtering.append(try browser.evaluate("""
                (function(){var f=document.getElementById('filter'),t=performance.now();f.value='\(query)';
                f.dispatchEvent(new Event('input'));document.body.getBoundingClientRect();return performance.now()-t;})()
                """) as? Double ?? .nan)
        }
        try browser.navigate(to: URL(fileURLWithPath: reviewPath))
        reviewLoad.append(try browser.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd") as? Double ?? .nan)
        browser.close()
    }
    print("gallery load, Page.navigate to load event (wall): \(summary(wall))")
    print("gallery load, navigation timing loadEventEnd:     \(summary(loadEvent))")
    print("gallery filter of all \(tileCount) tiles (input + style + layout, 2 queries a run): \(summary(filtering))")
    print("review load, navigation timing loadEventEnd (second page in the same browser): \(summary(reviewLoad))")
}

do { try run() } catch { fail("\(error)") }
