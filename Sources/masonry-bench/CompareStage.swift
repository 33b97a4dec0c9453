import Foundation
import PNGCodec
import TestSupport

/// `masonry compare` against its floor: decoding both folders on all cores, as compare decodes
/// them (opaque files to RGB). The suite is `pairs` 1280×800 screenshot-like pairs whose bytes
/// all differ (the current side is the same picture compressed otherwise), so every pair is
/// decoded: byte-identical pairs, the usual case in a real suite, are only hashed and cost far
/// less than the floor. Every tenth pair has a real change (a badge), so it is drawn on the
/// review sheet and decoded a second time while painting.
func compareStage(masonry: String, root: String, runs: Int, cores: Int, pairs: Int) throws {
    let base = root + "/compare/baseline", current = root + "/compare/current"
    try writeScreenshotSuite(base: base, current: current, pairs: pairs)
    let paths = listPNGs(base) + listPNGs(current)
    let review = root + "/out/review.png"
    let arguments = [base, current, "-o", review, "-q", "-j", "\(cores)"]
    decodeAllCores(paths, cores: cores, compact: true)                              // warm-up
    _ = try runChild(masonry, ["compare"] + arguments)                               // warm-up
    var floor: [Double] = [], wall: [Double] = [], rss: [Int] = [], ratios: [Double] = []
    for _ in 0..<runs {
        let start = now()
        decodeAllCores(paths, cores: cores, compact: true)
        let floorTime = now() - start
        let child = try runChild(masonry, ["compare"] + arguments)
        guard child.exitStatus == 1 else { throw BenchError("masonry compare exited with \(child.exitStatus), expected 1") }
        floor.append(floorTime); wall.append(child.wallSeconds); rss.append(child.peakRSSBytes)
        ratios.append(child.wallSeconds / floorTime)
    }
    let floorStats = Stats(samples: floor), wallStats = Stats(samples: wall), ratio = Stats(samples: ratios)
    record(ResultRow(stage: "compare", metric: "decode floor, \(paths.count) images, \(cores) threads", value: floorStats.median,
                     unit: "s", spread: floorStats.spreadPercent))
    record(ResultRow(stage: "compare", metric: "masonry compare, \(pairs) pairs 1280×800", value: wallStats.median, unit: "s",
                     spread: wallStats.spreadPercent,
                     note: String(format: "%.1f pairs/s; %d of %d pairs drawn", Double(pairs) / wallStats.median,
                                  (pairs + 9) / 10, pairs)))
    record(ResultRow(stage: "compare", metric: "wall ÷ floor (same round)", value: ratio.median, unit: "×",
                     spread: ratio.spreadPercent, goal: "≤ 1.3", pass: ratio.median <= 1.3,
                     note: "per round: " + ratios.map { String(format: "%.3f", $0) }.joined(separator: " ")))
    let mib = Double(rss.max() ?? 0) / 1_048_576
    record(ResultRow(stage: "compare", metric: "peak RSS", value: mib, unit: "MiB", goal: "< 256", pass: mib < 256))
}

/// The suite, written once (kept between runs like the other corpora).
private func writeScreenshotSuite(base: String, current: String, pairs: Int) throws {
    let width = 1280, height = 800
    guard listPNGs(base).count != pairs || listPNGs(current).count != pairs else { return }
    for folder in [base, current] {
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }
    for index in 0..<pairs {
        var pixels = screenshot(width: width, height: height, seed: UInt64(index))
        let name = String(format: "/screen-%03d.png", index)
        try Data(PNGEncoder.encode(pixels: pixels, width: width, height: height, format: .rgb8)).write(to: URL(fileURLWithPath: base + name))
        if index % 10 == 0 { fill(&pixels, width: width, 1200, 8, 1224, 32, [220, 40, 40]) }
        try Data(PNGEncoder.encode(pixels: pixels, width: width, height: height, format: .rgb8,
                                   settings: PNGEncodingSettings(level: 1))).write(to: URL(fileURLWithPath: current + name))
    }
}

/// A flat UI screen (RGB8): a top bar, a side menu, cards of text-like bars, a button.
private func screenshot(width: Int, height: Int, seed: UInt64) -> [UInt8] {
    var random = SplitMix64(seed: seed)
    var pixels = [UInt8](repeating: 246, count: width * height * 3)
    fill(&pixels, width: width, 0, 0, width, 56, [32, 36, 48])
    fill(&pixels, width: width, 0, 56, 220, height, [255, 255, 255])
    for item in 0..<10 { fill(&pixels, width: width, 24, 80 + 36 * item, 24 + random.int(80...160), 92 + 36 * item, [90, 94, 110]) }
    for card in 0..<6 {
        let x0 = 250 + (card % 3) * 340, y0 = 90 + (card / 3) * 320
        fill(&pixels, width: width, x0, y0, x0 + 320, y0 + 290, [255, 255, 255])
        for line in 0..<8 {
            fill(&pixels, width: width, x0 + 20, y0 + 24 + 32 * line, x0 + 20 + random.int(120...280), y0 + 36 + 32 * line,
                 [UInt8(180 + random.int(0...30)), 204, 214])
        }
    }
    fill(&pixels, width: width, 1080, 720, 1250, 770, [40, 110, 220])
    return pixels
}

private func fill(_ pixels: inout [UInt8], width: Int, _ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, _ rgb: [UInt8]) {
    for y in y0..<y1 {
        for x in x0..<x1 { pixels.replaceSubrange((y * width + x) * 3 ..< (y * width + x) * 3 + 3, with: rgb) }
    }
}
