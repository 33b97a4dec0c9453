import ColorManagement
import Foundation

// The colour stage (issue #23): the JPEG stage's photo corpus, and the same files with a Display
// P3 profile embedded (an APP2 ICC_PROFILE segment after SOI, as an iPhone writes it), each
// drawn by masonry in the same round; the goal is that tagging costs at most 1.05×.

/// Copies each JPEG of `jpegs` into `corpusRoot/jpeg-p3` with the Display P3 profile embedded
/// (once, while a marker file matches); returns the new paths.
func prepareP3Corpus(jpegs: [String], corpusRoot: String) throws -> [String] {
    let folder = corpusRoot + "/jpeg-p3"
    let marker = folder + "/manifest.txt"
    guard let profile = SourceColorSpace.displayP3.profile(for: .rgb)?.bytes else { throw BenchError("no Display P3 profile") }
    let manifest = "masonry-bench jpeg-p3 corpus v1, profile \(profile.count) bytes\n"
        + jpegs.map { ($0 as NSString).lastPathComponent }.joined(separator: "\n") + "\n"
    let paths = jpegs.map { folder + "/" + ($0 as NSString).lastPathComponent }
    if (try? String(contentsOfFile: marker, encoding: .utf8)) != manifest {
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let length = 2 + 14 + profile.count
        let segment: [UInt8] = [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + Array("ICC_PROFILE".utf8) + [0, 1, 1] + profile
        for (source, target) in zip(jpegs, paths) {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))
            try Data(bytes[..<2] + segment + bytes[2...]).write(to: URL(fileURLWithPath: target))
        }
        try manifest.write(toFile: marker, atomically: true, encoding: .utf8)
    }
    return paths
}

/// Masonry on the untagged JPEG corpus and on its Display P3 copy, alternating in each round;
/// records the tagged ÷ untagged ratio of wall and CPU time (goal ≤ 1.05).
func benchColor(photos: [String], corpusRoot: String, masonry: String, outDir: String, cores: Int, runs: Int) throws {
    let jpegs = try prepareJPEGCorpus(photos: photos, corpusRoot: corpusRoot, cores: cores)
    _ = try prepareP3Corpus(jpegs: jpegs, corpusRoot: corpusRoot)
    func sheet(_ folder: String) throws -> ChildUsage {
        let usage = try runChild(masonry, [corpusRoot + "/" + folder, "-o", outDir + "/\(folder)-sheet.png", "--page-height", "0", "-q"])
        guard usage.exitStatus == 0 else { throw BenchError("masonry (\(folder)) exited with \(usage.exitStatus)") }
        return usage
    }
    _ = try sheet("jpeg"); _ = try sheet("jpeg-p3")   // warm-up
    var wallRatios: [Double] = [], cpuRatios: [Double] = [], untaggedWall: [Double] = [], taggedWall: [Double] = []
    for round in 0..<runs {
        // Alternate which goes first, so a trend in the machine's load does not favour one.
        let first = try sheet(round % 2 == 0 ? "jpeg" : "jpeg-p3"), second = try sheet(round % 2 == 0 ? "jpeg-p3" : "jpeg")
        let (untagged, tagged) = round % 2 == 0 ? (first, second) : (second, first)
        untaggedWall.append(untagged.wallSeconds); taggedWall.append(tagged.wallSeconds)
        wallRatios.append(tagged.wallSeconds / untagged.wallSeconds)
        cpuRatios.append((tagged.userSeconds + tagged.systemSeconds) / (untagged.userSeconds + untagged.systemSeconds))
    }
    let wall = Stats(samples: wallRatios), cpu = Stats(samples: cpuRatios)
    record(ResultRow(stage: "color", metric: "Display P3-tagged JPEG corpus ÷ untagged, wall (same round)", value: wall.median,
                     unit: "×", spread: wall.spreadPercent, goal: "≤ 1.05", pass: wall.median <= 1.05,
                     note: String(format: "untagged %.2f s, tagged %.2f s (medians); per round: %@", Stats(samples: untaggedWall).median,
                                  Stats(samples: taggedWall).median, wallRatios.map { String(format: "%.3f", $0) }.joined(separator: " "))))
    record(ResultRow(stage: "color", metric: "Display P3-tagged ÷ untagged, CPU time (same round)", value: cpu.median, unit: "×",
                     spread: cpu.spreadPercent, goal: "≤ 1.05", pass: cpu.median <= 1.05,
                     note: "per round: " + cpuRatios.map { String(format: "%.3f", $0) }.joined(separator: " ")))
}
