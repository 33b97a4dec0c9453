import Foundation
import CodecCore
import SVGCodec
import WorkerThreads

// The SVG stage (issue #31 §1): openclipart drawings (Debian's openclipart-svg, public domain),
// `count` of them taken evenly from the sorted list of those up to 256 KiB and copied once into
// <corpus>/svg, then, round by round, interleaved:
//   - the process floor: `masonry-floor svg`, a C program that loads librsvg and draws each file
//     at the tile size the sheet gave it (from the sheet's manifest), on all cores: a whole
//     process, start-up and library loading included, as masonry is (the comparison of #34);
//   - the in-process floor: librsvg alone (SVGLibrary.Document: parse, then render) drawing the
//     same, in the bench's own process (librsvg already loaded, fonts warm);
//   - masonry on the folder (default layout, one page).
// Goal: the sheet at most 1.1× the floor (wall and CPU, medians of the rounds), against each.

func svgStage(corpus: String, masonry: String, outDir: String, cores: Int, runs: Int, count: Int) throws {
    let folder = corpus + "/svg"
    if files(in: folder).count < count {
        let source = "/usr/share/openclipart/svg"
        guard let all = FileManager.default.enumerator(atPath: source)?.allObjects as? [String] else {
            log("svg: openclipart-svg is not installed (apt-get install openclipart-svg); SVG skipped")
            return
        }
        let small = all.filter { $0.hasSuffix(".svg") }.sorted().filter {
            let size = (try? FileManager.default.attributesOfItem(atPath: source + "/" + $0))?[.size] as? Int
            return size.map { $0 <= 256 << 10 } ?? false
        }
        guard small.count >= count else { throw BenchError("svg: only \(small.count) openclipart drawings") }
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for index in 0..<count {
            let name = small[index * small.count / count]
            // openclipart-svg links its categories' files to one another: copy the target.
            let target = URL(fileURLWithPath: source + "/" + name).resolvingSymlinksInPath().path
            try FileManager.default.copyItem(atPath: target,
                                             toPath: folder + "/" + String(format: "%02d-", index) + (name as NSString).lastPathComponent)
        }
    }
    let paths = files(in: folder)
    let manifestPath = outDir + "/svg-manifest.json"
    let first = try runChild(masonry, [folder, "-o", outDir + "/svg-sheet.png", "--page-height", "0", "-q", "--manifest", manifestPath])
    guard first.exitStatus == 0 else { throw BenchError("masonry (svg) exited with \(first.exitStatus)") }
    let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifestPath))) as? [String: Any]
    var tiles: [String: (width: Int, height: Int)] = [:]
    for item in (manifest?["items"] as? [[String: Any]]) ?? [] {
        guard let path = item["path"] as? String, let image = item["image"] as? [String: Any],
              let width = image["width"] as? Int, let height = image["height"] as? Int else { continue }
        tiles[folder + "/" + (path as NSString).lastPathComponent] = (width, height)
    }
    let tileSizes = tiles
    let drawn = paths.filter { tileSizes[$0] != nil }
    guard drawn.count >= count * 9 / 10 else { throw BenchError("svg: the sheet drew \(drawn.count) of \(paths.count) files") }

    @Sendable func floor(_ index: Int) {
        let path = drawn[index], tile = tileSizes[path]!
        guard let bytes = FileManager.default.contents(atPath: path),
              let document = try? SVGLibrary.Document(bytes: [UInt8](bytes)) else { return }
        let natural = document.naturalSize
        _ = try? document.render(naturalWidth: natural.width, naturalHeight: natural.height, width: tile.width, height: tile.height)
    }
    let floorProgram = try floorPath(), list = outDir + "/svg-floor-list.txt"
    try (drawn.map { "\(tileSizes[$0]!.width) \(tileSizes[$0]!.height) \($0)" }.joined(separator: "\n") + "\n")
        .write(toFile: list, atomically: true, encoding: .utf8)
    func processFloor() throws -> ChildUsage {
        let usage = try runChild(floorProgram, ["svg", String(cores), list])
        guard usage.exitStatus == 0 else { throw BenchError("masonry-floor svg exited with \(usage.exitStatus)") }
        return usage
    }
    _ = parallelMap(count: drawn.count, jobs: cores, floor)   // warm-up
    _ = try processFloor()
    var wallRatios: [Double] = [], cpuRatios: [Double] = [], floors: [Double] = [], sheets: [Double] = [], rss: [Int] = []
    var floorCPUs: [Double] = [], sheetCPUs: [Double] = []
    var processWallRatios: [Double] = [], processCPURatios: [Double] = [], processFloors: [ChildUsage] = []
    for _ in 0..<runs {
        let start = now(), cpu = processCPUSeconds()
        _ = parallelMap(count: drawn.count, jobs: cores, floor)
        let floorWall = now() - start, floorCPU = processCPUSeconds() - cpu
        let floorProcess = try processFloor()
        let sheet = try runChild(masonry, [folder, "-o", outDir + "/svg-sheet.png", "--page-height", "0", "-q"])
        guard sheet.exitStatus == 0 else { throw BenchError("masonry (svg) exited with \(sheet.exitStatus)") }
        floors.append(floorWall); sheets.append(sheet.wallSeconds); rss.append(sheet.peakRSSBytes)
        floorCPUs.append(floorCPU); sheetCPUs.append(sheet.cpuSeconds)
        wallRatios.append(sheet.wallSeconds / floorWall)
        cpuRatios.append(sheet.cpuSeconds / floorCPU)
        processFloors.append(floorProcess)
        processWallRatios.append(sheet.wallSeconds / floorProcess.wallSeconds)
        processCPURatios.append(sheet.cpuSeconds / floorProcess.cpuSeconds)
    }
    let processWall = Stats(samples: processWallRatios), processCPU = Stats(samples: processCPURatios)
    record(ResultRow(stage: "svg", metric: "masonry ÷ masonry-floor svg (librsvg alone, a whole process), wall (same round)",
                     value: processWall.median, unit: "×", spread: processWall.spreadPercent, goal: "≤ 1.1", pass: processWall.median <= 1.1,
                     note: String(format: "%d openclipart SVGs; floor %.3f s (CPU %.3f s, peak RSS %.1f MiB); per round: %@",
                                  drawn.count, Stats(samples: processFloors.map(\.wallSeconds)).median,
                                  Stats(samples: processFloors.map(\.cpuSeconds)).median,
                                  Double(processFloors.map(\.peakRSSBytes).max() ?? 0) / 1_048_576,
                                  processWallRatios.map { String(format: "%.3f", $0) }.joined(separator: " "))))
    record(ResultRow(stage: "svg", metric: "masonry ÷ masonry-floor svg (librsvg alone, a whole process), CPU (same round)",
                     value: processCPU.median, unit: "×", spread: processCPU.spreadPercent, goal: "≤ 1.1", pass: processCPU.median <= 1.1,
                     note: "per round: " + processCPURatios.map { String(format: "%.3f", $0) }.joined(separator: " ")))
    let wall = Stats(samples: wallRatios), cpu = Stats(samples: cpuRatios)
    record(ResultRow(stage: "svg", metric: "masonry ÷ librsvg alone drawing each SVG at its tile size in the bench's process, wall (same round)",
                     value: wall.median, unit: "×", spread: wall.spreadPercent, goal: "≤ 1.1", pass: wall.median <= 1.1,
                     note: String(format: "%d openclipart SVGs; floor %.3f s (CPU %.3f s), masonry %.3f s (CPU %.3f s); peak RSS %.1f MiB; per round: %@",
                                  drawn.count, Stats(samples: floors).median, Stats(samples: floorCPUs).median,
                                  Stats(samples: sheets).median, Stats(samples: sheetCPUs).median, Double(rss.max() ?? 0) / 1_048_576,
                                  wallRatios.map { String(format: "%.3f", $0) }.joined(separator: " "))))
    record(ResultRow(stage: "svg", metric: "masonry ÷ librsvg alone drawing each SVG at its tile size in the bench's process, CPU (same round)",
                     value: cpu.median, unit: "×", spread: cpu.spreadPercent, goal: "≤ 1.1", pass: cpu.median <= 1.1,
                     note: "per round: " + cpuRatios.map { String(format: "%.3f", $0) }.joined(separator: " ")))
}
