import Foundation
import CodecCore
import JXLCodec
import WorkerThreads

// The JPEG XL stage (issue #31 §3): the bench's photos turned once into JPEG XL by cjxl
// (scripts/make-bench-format-corpus.py, `jxl`: lossy, distance 1, as cameras and browsers
// write it), then, round by round, interleaved:
//   - the floor: libjxl alone decodes every file's first frame in full to 8-bit RGBA, one
//     decode a core on the calling thread (no parallel runner), as the sheet's workers do;
//   - masonry on the folder (default layout, one page).
// libjxl 0.7 has no cheaper sufficient level (its DC image is flushed at full size, SPEC §12),
// so the full decode is the floor. Goal: the sheet at most 1.1× the floor.

func jxlStage(photosFolder: String, corpus: String, masonry: String, outDir: String, cores: Int, runs: Int, count: Int) throws {
    let folder = corpus + "/jxl"
    if files(in: folder).count < count {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/make-bench-format-corpus.py").path
        log("formats corpus: converting \(count) photos to JPEG XL with cjxl (one-off)")
        try? FileManager.default.removeItem(atPath: folder)
        guard let result = try? runChild("/usr/bin/env", ["python3", script, photosFolder, corpus, "\(count)", "jxl"], quiet: false),
              result.exitStatus == 0 else {
            log("formats corpus: the JPEG XL conversion failed (needs cjxl, Debian's libjxl-tools); JPEG XL skipped")
            return
        }
    }
    let paths = files(in: folder)
    guard paths.count >= count else { throw BenchError("jxl: \(paths.count) files in \(folder), \(count) wanted") }
    @Sendable func floorDecode(_ path: String) -> Int { (try? JXLDecoder.libraryFloorDecode(file: InputFile(path: path))) ?? 0 }
    let pixels = paths.reduce(0) { $0 + floorDecode($1) }   // also the warm-up
    guard pixels > 0 else { throw BenchError("jxl: libjxl decoded nothing (is libjxl.so.0.7 installed?)") }
    _ = try runChild(masonry, [folder, "-o", outDir + "/jxl-sheet.png", "--page-height", "0", "-q"])
    var ratios: [Double] = [], cpuRatios: [Double] = [], floors: [Double] = [], sheets: [Double] = [], rss: [Int] = []
    for _ in 0..<runs {
        let start = now(), cpu = processCPUSeconds()
        _ = parallelMap(count: paths.count, jobs: cores) { _ = floorDecode(paths[$0]) }
        let floor = now() - start, floorCPU = processCPUSeconds() - cpu
        let sheet = try runChild(masonry, [folder, "-o", outDir + "/jxl-sheet.png", "--page-height", "0", "-q"])
        guard sheet.exitStatus == 0 else { throw BenchError("masonry (jxl) exited with \(sheet.exitStatus)") }
        floors.append(floor); sheets.append(sheet.wallSeconds); rss.append(sheet.peakRSSBytes)
        ratios.append(sheet.wallSeconds / floor)
        cpuRatios.append(sheet.cpuSeconds / floorCPU)
    }
    let ratio = Stats(samples: ratios), cpuRatio = Stats(samples: cpuRatios), floor = Stats(samples: floors)
    record(ResultRow(stage: "jxl", metric: "masonry ÷ libjxl's own full decode, wall (same round)",
                     value: ratio.median, unit: "×", spread: ratio.spreadPercent, goal: "≤ 1.1", pass: ratio.median <= 1.1,
                     note: String(format: "%d files, %.1f MP; floor %.2f s (%.1f MP/s), masonry %.2f s; peak RSS %.1f MiB; per round: %@",
                                  paths.count, Double(pixels) / 1e6, floor.median, Double(pixels) / 1e6 / floor.median,
                                  Stats(samples: sheets).median, Double(rss.max() ?? 0) / 1_048_576,
                                  ratios.map { String(format: "%.3f", $0) }.joined(separator: " "))))
    record(ResultRow(stage: "jxl", metric: "masonry ÷ libjxl's own full decode, CPU (same round)",
                     value: cpuRatio.median, unit: "×", spread: cpuRatio.spreadPercent, goal: "≤ 1.1", pass: cpuRatio.median <= 1.1,
                     note: "per round: " + cpuRatios.map { String(format: "%.3f", $0) }.joined(separator: " ")))
}
