import BitmapText
import Foundation
import PNGCodec
import Raster

/// Stems of file names in many scripts (issue #33): CJK, Hangul, Arabic and Hebrew (through
/// the bidi algorithm and Arabic joining), Indic scripts with combining marks, Thai, Greek,
/// Cyrillic, emoji with a ZWJ sequence.
private let scriptStems = ["北京旅行", "사진_여름", "صورة_العائلة", "תמונה_ים", "नमस्ते_फोटो", "ছবি_ঢাকা",
                           "ภาพถ่าย", "ひらがな_カタカナ", "Ακρόπολη", "Москва_зима", "🎉party_👨\u{200D}👩\u{200D}👧", "IMG_صورة"]

/// The same sheet twice, its captions in ASCII and in many scripts: `count` small pictures
/// (so that text is a visible share of the work), captioned with their name and stem, under
/// a title, in folders that differ only in the names. Rounds alternate which goes first;
/// the ratio of each round's two times is the cost of the scripts (goal: at most 5 %). The
/// goal is judged on CPU time (user + system), which other work on a shared machine disturbs
/// far less than wall time; both are recorded.
func captionScriptsStage(masonry: String, root: String, outDir: String, runs: Int, count: Int) throws {
    let ascii = root + "/captions-ascii", scripts = root + "/captions-scripts"
    for folder in [ascii, scripts] {
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }
    for index in 0..<count {
        let width = 96 + index % 5 * 16, height = 72 + index % 3 * 24
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let offset = (y * width + x) * 3
                pixels[offset] = UInt8(truncatingIfNeeded: x * 2 + index * 7)
                pixels[offset + 1] = UInt8(truncatingIfNeeded: y * 3 + index * 11)
                pixels[offset + 2] = UInt8(truncatingIfNeeded: (x ^ y) + index)
            }
        }
        let png = Data(try PNGEncoder.encode(pixels: pixels, width: width, height: height, format: .rgb8))
        let stem = scriptStems[index % scriptStems.count]
        try png.write(to: URL(fileURLWithPath: ascii + String(format: "/photo_%04d_holiday.png", index)))
        try png.write(to: URL(fileURLWithPath: scripts + String(format: "/%@_%04d.png", stem, index)))
    }
    func arguments(_ folder: String, _ title: String) -> [String] {
        [folder, "-o", outDir + "/captions.png", "-q", "--caption", "{name}\\n{stem}", "--title", title]
    }
    let asciiArguments = arguments(ascii, "Holiday photos 2026"), scriptArguments = arguments(scripts, "北京 · صورة · नमस्ते 2026")
    _ = try runChild(masonry, asciiArguments)   // warm-up
    _ = try runChild(masonry, scriptArguments)
    var asciiTimes: [Double] = [], scriptTimes: [Double] = [], ratios: [Double] = [], cpuRatios: [Double] = []
    for round in 0..<runs {
        var times: [String: Double] = [:], cpu: [String: Double] = [:]
        for (name, arguments) in round % 2 == 0 ? [("ascii", asciiArguments), ("scripts", scriptArguments)]
                                                : [("scripts", scriptArguments), ("ascii", asciiArguments)] {
            let child = try runChild(masonry, arguments)
            guard child.exitStatus == 0 else { throw BenchError("masonry (captions, \(name)) exited with \(child.exitStatus)") }
            times[name] = child.wallSeconds
            cpu[name] = child.userSeconds + child.systemSeconds
        }
        asciiTimes.append(times["ascii"]!)
        scriptTimes.append(times["scripts"]!)
        ratios.append(times["scripts"]! / times["ascii"]!)
        cpuRatios.append(cpu["scripts"]! / cpu["ascii"]!)
    }
    // The text work alone, in this process: what the planner and painter do with each
    // caption line (shorten to the tile, measure, draw), for both sets of names, interleaved.
    let tileWidth = 120, font = BitmapFont.builtIn(.small)
    func captionLines(_ folder: String) throws -> [[UInt8]] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted().flatMap { name in
            [Array(name.utf8), Array((name as NSString).deletingPathExtension.utf8)]
        }
    }
    let asciiLines = try captionLines(ascii), scriptLines = try captionLines(scripts)
    var band = [UInt8](repeating: 255, count: tileWidth * 3 * font.lineHeight)
    func drawAll(_ lines: [[UInt8]]) {
        band.withUnsafeMutableBufferPointer { all in
            for bytes in lines {
                let line = TextLine(bytes: bytes).fitted(toWidth: tileWidth, in: font, keepingEnd: true)
                let x = (tileWidth - line.width(in: font)) / 2
                TextPainter.draw(line, font: font, color: .black, x: x, y: 0, clip: (0, 0, tileWidth, font.lineHeight), channels: 3) {
                    UnsafeMutableBufferPointer(rebasing: all[($0 * tileWidth * 3)..<(($0 + 1) * tileWidth * 3)])
                }
            }
        }
    }
    var asciiText: [Double] = [], scriptText: [Double] = []
    drawAll(asciiLines)
    drawAll(scriptLines)
    for _ in 0..<max(runs, 9) {
        asciiText.append(measure(warmups: 0, runs: 1) { drawAll(asciiLines) }.median)
        scriptText.append(measure(warmups: 0, runs: 1) { drawAll(scriptLines) }.median)
    }
    let stage = "caption scripts"
    let asciiTextStats = Stats(samples: asciiText), scriptTextStats = Stats(samples: scriptText)
    record(ResultRow(stage: stage, metric: "text alone, ASCII names", value: asciiTextStats.median * 1000, unit: "ms",
                     spread: asciiTextStats.spreadPercent, note: "\(asciiLines.count) caption lines shortened, measured, drawn (small)"))
    record(ResultRow(stage: stage, metric: "text alone, names in 12 scripts", value: scriptTextStats.median * 1000, unit: "ms",
                     spread: scriptTextStats.spreadPercent, note: "the first run decodes the fallback pages it needs"))
    let asciiStats = Stats(samples: asciiTimes), scriptStats = Stats(samples: scriptTimes)
    let ratio = Stats(samples: ratios), cpuRatio = Stats(samples: cpuRatios)
    record(ResultRow(stage: stage, metric: "ASCII captions", value: asciiStats.median, unit: "s", spread: asciiStats.spreadPercent,
                     note: "\(count) pictures, two caption lines and a title"))
    record(ResultRow(stage: stage, metric: "captions in 12 scripts", value: scriptStats.median, unit: "s", spread: scriptStats.spreadPercent,
                     note: "the same pictures, names in CJK, Hangul, Arabic, Hebrew, Indic, Thai, emoji..."))
    record(ResultRow(stage: stage, metric: "scripts ÷ ASCII, wall (same round)", value: ratio.median, unit: "×", spread: ratio.spreadPercent,
                     note: "per round: " + ratios.map { String(format: "%.3f", $0) }.joined(separator: " ")))
    record(ResultRow(stage: stage, metric: "scripts ÷ ASCII, CPU (same round)", value: cpuRatio.median, unit: "×",
                     spread: cpuRatio.spreadPercent, goal: "≤ 1.05", pass: cpuRatio.median <= 1.05,
                     note: "per round: " + cpuRatios.map { String(format: "%.3f", $0) }.joined(separator: " ")))
    let extra = (scriptTextStats.median - asciiTextStats.median) / (asciiStats.median > 0 ? asciiStats.median : 1)
    record(ResultRow(stage: stage, metric: "text's extra ÷ ASCII sheet's wall time", value: extra * 100, unit: "%",
                     goal: "≤ 5", pass: extra <= 0.05,
                     note: "(text alone with scripts − with ASCII) ÷ the ASCII sheet's median wall time"))
}
