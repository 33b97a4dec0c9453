import Foundation
import CodecCore
import PNGCodec
import SeededRandom

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
    var floor: [Double] = [], wall: [Double] = [], rss: [Int] = [], ratios: [Double] = [], cpuRatios: [Double] = []
    for _ in 0..<runs {
        let start = now(), startCPU = processCPUSeconds()
        decodeAllCores(paths, cores: cores, compact: true)
        let floorTime = now() - start, floorCPU = processCPUSeconds() - startCPU
        let child = try runChild(masonry, ["compare"] + arguments)
        guard child.exitStatus == 1 else { throw BenchError("masonry compare exited with \(child.exitStatus), expected 1") }
        floor.append(floorTime); wall.append(child.wallSeconds); rss.append(child.peakRSSBytes)
        ratios.append(child.wallSeconds / floorTime)
        cpuRatios.append(child.cpuSeconds / floorCPU)
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
    let cpuRatio = Stats(samples: cpuRatios)
    record(ResultRow(stage: "compare", metric: "CPU ÷ floor CPU (same round)", value: cpuRatio.median, unit: "×",
                     spread: cpuRatio.spreadPercent, note: "less sensitive than wall time to other load on the machine"))
    let mib = Double(rss.max() ?? 0) / 1_048_576
    record(ResultRow(stage: "compare", metric: "peak RSS", value: mib, unit: "MiB", goal: "< 256", pass: mib < 256))
}

/// The suite, written once (kept between runs like the other corpora; a marker names its version).
private func writeScreenshotSuite(base: String, current: String, pairs: Int) throws {
    let width = 1280, height = 800
    let marker = base + "/../suite-v2-\(pairs)"
    guard !FileManager.default.fileExists(atPath: marker) else { return }
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
    _ = FileManager.default.createFile(atPath: marker, contents: Data())
}

/// A UI screen (RGB8): a top bar, a side menu, cards of text-like lines (random glyph cells of
/// dark and anti-aliased grey pixels, so files are about as large as real screenshots), a button.
private func screenshot(width: Int, height: Int, seed: UInt64) -> [UInt8] {
    var random = SplitMix64(seed: seed)
    var pixels = [UInt8](repeating: 246, count: width * height * 3)
    func text(_ x0: Int, _ y0: Int, length: Int, ink: [UInt8]) {
        for cell in 0..<(length / 7) {
            let bits = random.next()
            for row in 0..<10 {
                for column in 0..<5 where bits >> UInt64((row * 5 + column) % 64) & 1 == 1 {
                    let edge = column == 0 || row == 9
                    fill(&pixels, width: width, x0 + cell * 7 + column, y0 + row, x0 + cell * 7 + column + 1, y0 + row + 1,
                         edge ? [150, 152, 160] : ink)
                }
            }
        }
    }
    fill(&pixels, width: width, 0, 0, width, 56, [32, 36, 48])
    text(24, 22, length: 200, ink: [255, 255, 255])
    fill(&pixels, width: width, 0, 56, 220, height, [255, 255, 255])
    for item in 0..<10 { text(24, 80 + 36 * item, length: random.int(80...160), ink: [70, 74, 90]) }
    for card in 0..<6 {
        let x0 = 250 + (card % 3) * 340, y0 = 90 + (card / 3) * 320
        fill(&pixels, width: width, x0, y0, x0 + 320, y0 + 290, [255, 255, 255])
        for line in 0..<8 { text(x0 + 20, y0 + 24 + 32 * line, length: random.int(120...280), ink: [40, 44, 56]) }
    }
    fill(&pixels, width: width, 1080, 720, 1250, 770, [40, 110, 220])
    return pixels
}

private func fill(_ pixels: inout [UInt8], width: Int, _ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, _ rgb: [UInt8]) {
    for y in y0..<y1 {
        for x in x0..<x1 { pixels.replaceSubrange((y * width + x) * 3 ..< (y * width + x) * 3 + 3, with: rgb) }
    }
}

/// A CI-sized suite with ignore regions and per-path rules (issue #24) against the same suite
/// without: `pairs` screenshot pairs of 1280×800 in 20 folders, 1 % of them changed (a badge),
/// the others byte-identical (hard links, as a suite whose screens did not change: hashed, never
/// decoded); five `--ignore` regions and a `--config` of ten rules whose globs match most paths.
/// Runs alternate, so both see the same load; the goal is masks and rules costing at most 1.1×.
func compareRulesStage(masonry: String, root: String, runs: Int, cores: Int, pairs: Int) throws {
    let suite = root + "/compare-ci", base = suite + "/baseline", current = suite + "/current"
    try writeCISuite(base: base, current: current, pairs: pairs)
    let config = suite + "/rules.json"
    let rules = (0..<10).map { rule -> String in
        let glob = ["group-0\(rule)/**", "**/screen-00?\(rule).png", "group-1\(rule)/*.png", "**/screen-*\(rule)\(rule).png",
                    "group-?\(rule)/screen-1*.png"][rule % 5]
        return "{\"paths\": [\"\(glob)\", \"**/never-\(rule).png\"], \"maxDiffPixels\": \(rule * 3), \"threshold\": 0.\(rule + 1)}"
    }
    try Data("{\"maxDiffRatio\": 0, \"rules\": [\n  \(rules.joined(separator: ",\n  "))\n]}\n".utf8).write(to: URL(fileURLWithPath: config))
    // Five regions away from the badge (x 1200-1224, y 8-32), so the changed pairs still fail.
    let regions = ["0,0,220,56", "1080,720,170,50", "250,90,320,40", "590,410,320,40", "0,760,200,40"]
    let plain = [base, current, "-o", root + "/out/ci-review.png", "-q", "-j", "\(cores)"]
    let masked = plain + regions.flatMap { ["--ignore", $0] } + ["--config", config]
    _ = try runChild(masonry, ["compare"] + plain)                                   // warm-up
    _ = try runChild(masonry, ["compare"] + masked)
    var plainWall: [Double] = [], maskedWall: [Double] = [], ratios: [Double] = [], cpuRatios: [Double] = []
    for _ in 0..<runs {
        let a = try runChild(masonry, ["compare"] + plain), b = try runChild(masonry, ["compare"] + masked)
        guard a.exitStatus == 1, b.exitStatus == 1 else {
            throw BenchError("masonry compare exited with \(a.exitStatus) and \(b.exitStatus), expected 1 (changed pairs fail)")
        }
        plainWall.append(a.wallSeconds); maskedWall.append(b.wallSeconds)
        ratios.append(b.wallSeconds / a.wallSeconds); cpuRatios.append(b.cpuSeconds / a.cpuSeconds)
    }
    let plainStats = Stats(samples: plainWall), maskedStats = Stats(samples: maskedWall)
    let ratio = Stats(samples: ratios), cpuRatio = Stats(samples: cpuRatios)
    let changed = (pairs + 99) / 100
    record(ResultRow(stage: "compare CI", metric: "\(pairs) pairs 1280×800, \(changed) changed, no masks or rules",
                     value: plainStats.median, unit: "s", spread: plainStats.spreadPercent,
                     note: String(format: "%.0f pairs/s", Double(pairs) / plainStats.median)))
    record(ResultRow(stage: "compare CI", metric: "the same with 5 --ignore regions and 10 rules", value: maskedStats.median, unit: "s",
                     spread: maskedStats.spreadPercent, note: String(format: "%.0f pairs/s", Double(pairs) / maskedStats.median)))
    record(ResultRow(stage: "compare CI", metric: "masks and rules ÷ plain (same round)", value: ratio.median, unit: "×",
                     spread: ratio.spreadPercent, goal: "≤ 1.1", pass: ratio.median <= 1.1,
                     note: "per round: " + ratios.map { String(format: "%.3f", $0) }.joined(separator: " ")))
    record(ResultRow(stage: "compare CI", metric: "CPU, masks and rules ÷ plain", value: cpuRatio.median, unit: "×",
                     spread: cpuRatio.spreadPercent))
}

/// The CI suite, written once: each baseline a seeded screenshot; the current side a hard link
/// to it, except every hundredth pair, which gains a badge.
private func writeCISuite(base: String, current: String, pairs: Int) throws {
    let width = 1280, height = 800
    let marker = base + "/../suite-v1-\(pairs)"
    guard !FileManager.default.fileExists(atPath: marker) else { return }
    for folder in [base, current] { try? FileManager.default.removeItem(atPath: folder) }
    for index in 0..<pairs {
        let name = String(format: "/group-%02d/screen-%04d.png", index % 20, index)
        for folder in [base, current] {
            try FileManager.default.createDirectory(atPath: folder + "/" + String(format: "group-%02d", index % 20),
                                                    withIntermediateDirectories: true)
        }
        var pixels = screenshot(width: width, height: height, seed: 1_000_000 + UInt64(index))
        try Data(PNGEncoder.encode(pixels: pixels, width: width, height: height, format: .rgb8)).write(to: URL(fileURLWithPath: base + name))
        if index % 100 == 0 {
            fill(&pixels, width: width, 1200, 8, 1224, 32, [220, 40, 40])
            try Data(PNGEncoder.encode(pixels: pixels, width: width, height: height, format: .rgb8)).write(to: URL(fileURLWithPath: current + name))
        } else {
            try FileManager.default.linkItem(atPath: base + name, toPath: current + name)
        }
    }
    _ = FileManager.default.createFile(atPath: marker, contents: Data())
}
