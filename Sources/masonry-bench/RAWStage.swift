import Foundation
import CodecCore
import JPEGCodec
import RAWCodec
import Raster
import WorkerThreads

// The RAW stage (issue #30 §2): the bench's photos turned once into DNGs with a full-size JPEG
// preview and a 160 px thumbnail (scripts/make-raw-fixtures.py --bench), then, round by round:
//   - the preview floor: each file's full-size preview decoded at the DCT scale the sheet's tile
//     needs, by libjpeg-turbo (JPEGDecoder over the preview's bytes), on all cores;
//   - masonry on the folder (default layout, one page);
//   - the demosaic: LibRaw's half-size demosaic of every file (the fallback's cost), on all cores.
// Goals: the sheet at most 1.2× the preview floor, and at least 10× cheaper than the demosaic.

func rawStage(photosFolder: String, corpus: String, masonry: String, outDir: String, cores: Int, runs: Int, count: Int) throws {
    let folder = corpus + "/raw"
    if files(in: folder).count < count {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/make-raw-fixtures.py").path
        log("raw corpus: writing \(count) DNGs with \(script) (one-off)")
        try? FileManager.default.removeItem(atPath: folder)
        guard let result = try? runChild("/usr/bin/env", ["python3", script, "--bench", photosFolder, corpus, "\(count)"], quiet: false),
              result.exitStatus == 0 else {
            log("raw corpus: the conversion failed (needs python3 with numpy and Pillow); RAW skipped")
            return
        }
    }
    let paths = files(in: folder)
    guard paths.count >= count else { throw BenchError("raw: \(paths.count) files in \(folder), \(count) wanted") }

    // The tiles the sheet draws, from its manifest, turned back to each file's stored orientation.
    let manifestPath = outDir + "/raw-manifest.json"
    let first = try runChild(masonry, [folder, "-o", outDir + "/raw-sheet.png", "--page-height", "0", "-q", "--manifest", manifestPath])
    guard first.exitStatus == 0 else { throw BenchError("masonry (raw) exited with \(first.exitStatus)") }
    let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifestPath))) as? [String: Any]
    let items = (manifest?["items"] as? [[String: Any]]) ?? []
    var tiles: [String: (width: Int, height: Int)] = [:]
    var fromPreview = 0
    for item in items {
        guard let path = item["path"] as? String, let image = item["image"] as? [String: Any],
              let width = image["width"] as? Int, let height = image["height"] as? Int else { continue }
        tiles[path.hasPrefix("/") ? path : folder + "/" + (path as NSString).lastPathComponent] = (width, height)
        if item["rawSource"] as? String == "preview" { fromPreview += 1 }
    }
    guard tiles.count == paths.count else { throw BenchError("raw: the manifest lists \(tiles.count) of \(paths.count) files") }
    let jobs: [(path: String, range: Range<Int>, minimumWidth: Int, minimumHeight: Int)] = try paths.map { path in
        let header = try RAWHeader(file: InputFile(path: path))
        guard let preview = header.previews.max(by: { $0.width * $0.height < $1.width * $1.height }) else {
            throw BenchError("raw: \(path) has no preview")
        }
        let shown = tiles[path]!
        let stored = header.orientation.displaySize(width: shown.width, height: shown.height)
        return (path, preview.range, stored.width, stored.height)
    }

    @Sendable func previewFloor(_ index: Int) {
        let job = jobs[index]
        guard let file = try? InputFile(path: job.path),
              let decoder = try? JPEGDecoder(file: file, range: job.range, limits: DecodeLimits(),
                                             minimumWidth: job.minimumWidth, minimumHeight: job.minimumHeight) else { return }
        while (try? decoder.nextRow()) ?? nil != nil {}
    }
    @Sendable func demosaic(_ index: Int) {
        guard let file = try? InputFile(path: jobs[index].path),
              let decoder = try? RAWDecoder(file: file, limits: DecodeLimits(), minimumWidth: 1, minimumHeight: 1, drawing: .demosaic)
        else { return }
        while (try? decoder.nextRow()) ?? nil != nil {}
    }
    _ = parallelMap(count: jobs.count, jobs: cores, previewFloor)   // warm-up
    var sheetRatios: [Double] = [], demosaicRatios: [Double] = [], floors: [Double] = [], sheets: [Double] = []
    var demosaics: [Double] = [], rss: [Int] = [], cpuRatios: [Double] = [], cpuSavings: [Double] = []
    for _ in 0..<runs {
        var start = now(), cpu = processCPUSeconds()
        _ = parallelMap(count: jobs.count, jobs: cores, previewFloor)
        let floor = now() - start, floorCPU = processCPUSeconds() - cpu
        let sheet = try runChild(masonry, [folder, "-o", outDir + "/raw-sheet.png", "--page-height", "0", "-q"])
        guard sheet.exitStatus == 0 else { throw BenchError("masonry (raw) exited with \(sheet.exitStatus)") }
        start = now()
        cpu = processCPUSeconds()
        _ = parallelMap(count: jobs.count, jobs: cores, demosaic)
        let all = now() - start, allCPU = processCPUSeconds() - cpu
        floors.append(floor); sheets.append(sheet.wallSeconds); demosaics.append(all); rss.append(sheet.peakRSSBytes)
        sheetRatios.append(sheet.wallSeconds / floor)
        demosaicRatios.append(all / sheet.wallSeconds)
        cpuRatios.append(sheet.cpuSeconds / floorCPU)
        cpuSavings.append(allCPU / sheet.cpuSeconds)
    }
    let ratio = Stats(samples: sheetRatios), saving = Stats(samples: demosaicRatios)
    let floor = Stats(samples: floors), sheet = Stats(samples: sheets), demosaicAll = Stats(samples: demosaics)
    record(ResultRow(stage: "raw", metric: "masonry ÷ the previews decoded at the DCT scale by libjpeg-turbo, wall (same round)",
                     value: ratio.median, unit: "×", spread: ratio.spreadPercent, goal: "≤ 1.2", pass: ratio.median <= 1.2,
                     note: String(format: "%d DNGs (%d tiles from previews); floor %.2f s, masonry %.2f s; peak RSS %.1f MiB; per round: %@",
                                  paths.count, fromPreview, floor.median, sheet.median, Double(rss.max() ?? 0) / 1_048_576,
                                  sheetRatios.map { String(format: "%.3f", $0) }.joined(separator: " "))))
    let cpuRatio = Stats(samples: cpuRatios), cpuSaving = Stats(samples: cpuSavings)
    record(ResultRow(stage: "raw", metric: "masonry ÷ the previews decoded at the DCT scale by libjpeg-turbo, CPU (same round)",
                     value: cpuRatio.median, unit: "×", spread: cpuRatio.spreadPercent, goal: "≤ 1.2", pass: cpuRatio.median <= 1.2))
    record(ResultRow(stage: "raw", metric: "LibRaw's half-size demosaic of every file ÷ masonry, CPU (same round)",
                     value: cpuSaving.median, unit: "×", spread: cpuSaving.spreadPercent, goal: "≥ 10", pass: cpuSaving.median >= 10))
    record(ResultRow(stage: "raw", metric: "LibRaw's half-size demosaic of every file ÷ masonry, wall (same round)",
                     value: saving.median, unit: "×", spread: saving.spreadPercent, goal: "≥ 10", pass: saving.median >= 10,
                     note: String(format: "demosaic of the %d files %.2f s on %d cores (%.0f ms a file, the fallback's cost)",
                                  paths.count, demosaicAll.median, cores, demosaicAll.median * 1000 * Double(cores) / Double(paths.count))))
}
