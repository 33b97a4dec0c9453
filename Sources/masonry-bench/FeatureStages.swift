import Foundation

/// Round 2's features on the photo corpus, each against the plain run in the same rounds:
/// `--plan-only` (should cost about the header pass), captions (goal: under 5 % of the run),
/// and the thumbnail cache (goal: a warm run with one input changed ≤ 10 % of a cold run).
func featureStages(masonry: String, corpusRoot: String, outDir: String, photoCount: Int, runs: Int) throws {
    let photos = corpusRoot + "/photos"
    func run(_ arguments: [String]) throws -> ChildUsage {
        let child = try runChild(masonry, arguments + ["-q"])
        guard child.exitStatus == 0 else { throw BenchError("masonry \(arguments.joined(separator: " ")) exited with \(child.exitStatus)") }
        return child
    }

    // The plan alone: scan, headers, layout, manifest.
    var planTimes: [Double] = []
    for _ in 0..<runs {
        planTimes.append(try run([photos, "-o", outDir + "/plan.png", "--manifest", outDir + "/plan.json", "--plan-only"]).wallSeconds)
    }
    let plan = Stats(samples: planTimes)
    record(ResultRow(stage: "plan", metric: "--plan-only, \(photoCount) images", value: plan.median * 1000, unit: "ms",
                     spread: plan.spreadPercent, note: "scan, header pass, layout and manifest; no pixel decoded"))

    // Captions: the same sheet with and without a caption under every picture, interleaved.
    var plain: [Double] = [], captioned: [Double] = [], ratios: [Double] = []
    for _ in 0..<runs {
        let without = try run([photos, "-o", outDir + "/plain.png"]).cpuSeconds
        let with = try run([photos, "-o", outDir + "/captions.png", "--caption", "{name}\\n{width}×{height}"]).cpuSeconds
        plain.append(without); captioned.append(with); ratios.append(with / without - 1)
    }
    let overhead = Stats(samples: ratios)
    record(ResultRow(stage: "captions", metric: "CPU cost of two caption lines a tile", value: overhead.median * 100, unit: "%",
                     spread: nil, goal: "< 5", pass: overhead.median < 0.05,
                     note: String(format: "CPU %.2f s without, %.2f s with (medians); per round: %@",
                                  Stats(samples: plain).median, Stats(samples: captioned).median,
                                  ratios.map { String(format: "%+.1f%%", $0 * 100) }.joined(separator: " "))))

    // The cache: a cold run fills it; then one input is replaced (a new inode) and a warm run
    // decodes only that one. Each round starts from an empty cache.
    let cache = outDir + "/cache"
    let copy = outDir + "/cached-photos"
    try? FileManager.default.removeItem(atPath: copy)
    try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
    let names = try FileManager.default.contentsOfDirectory(atPath: photos).filter { $0.hasSuffix(".png") }.sorted()
    for name in names { try FileManager.default.copyItem(atPath: photos + "/" + name, toPath: copy + "/" + name) }
    usleep(300_000)   // the cache keeps no file changed in the last 100 ms
    var cold: [Double] = [], warm: [Double] = [], shares: [Double] = []
    var cacheBytes = 0
    for round in 0..<min(runs, 3) {
        try? FileManager.default.removeItem(atPath: cache)
        let first = try run([copy, "-o", outDir + "/cold.png", "--cache", cache]).wallSeconds
        let changed = copy + "/" + names[round % names.count]
        let data = try Data(contentsOf: URL(fileURLWithPath: changed))
        try FileManager.default.removeItem(atPath: changed)
        try data.write(to: URL(fileURLWithPath: changed))
        usleep(300_000)
        let second = try run([copy, "-o", outDir + "/warm.png", "--cache", cache]).wallSeconds
        cold.append(first); warm.append(second); shares.append(second / first)
        cacheBytes = folderBytes(cache)
    }
    let share = Stats(samples: shares)
    record(ResultRow(stage: "cache", metric: "warm run, 1 of \(names.count) inputs changed ÷ cold run", value: share.median * 100,
                     unit: "%", spread: nil, goal: "≤ 10", pass: share.median <= 0.10,
                     note: String(format: "cold %.2f s, warm %.2f s (medians of %d); cache on disk %.1f MB",
                                  Stats(samples: cold).median, Stats(samples: warm).median, cold.count, Double(cacheBytes) / 1e6)))
}

/// The bytes of every regular file under `folder`.
private func folderBytes(_ folder: String) -> Int {
    guard let walker = FileManager.default.enumerator(atPath: folder) else { return 0 }
    var total = 0
    for case let name as String in walker {
        total += (try? FileManager.default.attributesOfItem(atPath: folder + "/" + name)[.size] as? Int) ?? 0
    }
    return total
}
