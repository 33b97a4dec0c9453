import ColorManagement
import Foundation
import JPEGCodec
import CodecCore
import PNGCodec

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
    try transformCost(jpegs: jpegs, cores: cores, runs: runs)
    let wall = Stats(samples: wallRatios), cpu = Stats(samples: cpuRatios)
    record(ResultRow(stage: "color", metric: "Display P3-tagged JPEG corpus ÷ untagged, wall (same round)", value: wall.median,
                     unit: "×", spread: wall.spreadPercent, goal: "≤ 1.05", pass: wall.median <= 1.05,
                     note: String(format: "untagged %.2f s, tagged %.2f s (medians); per round: %@", Stats(samples: untaggedWall).median,
                                  Stats(samples: taggedWall).median, wallRatios.map { String(format: "%.3f", $0) }.joined(separator: " "))))
    record(ResultRow(stage: "color", metric: "Display P3-tagged ÷ untagged, CPU time (same round)", value: cpu.median, unit: "×",
                     spread: cpu.spreadPercent, goal: "≤ 1.05", pass: cpu.median <= 1.05,
                     note: "per round: " + cpuRatios.map { String(format: "%.3f", $0) }.joined(separator: " ")))
}

/// The Display P3 transform's speed on one thread (premultiplied RGBA8 tile rows), and what it
/// costs the corpus converted after resampling (tile pixels) or before (decoded pixels at the
/// DCT scale a 290 px tile gets): the measurement behind converting after resampling.
func transformCost(jpegs: [String], cores: Int, runs: Int, columnWidth: Int = 290) throws {
    guard let profile = SourceColorSpace.displayP3.profile(for: .rgb) else { throw BenchError("no Display P3 profile") }
    let transform = try ColorTransform(profile: profile, layout: .premultipliedRGBA8)
    var row = (0 ..< (1 << 20) * 4).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
    for index in stride(from: 3, to: row.count, by: 4) { row[index] = 255 }
    var rates: [Double] = []
    for _ in 0 ..< max(3, runs) {
        var copy = row
        let start = now()
        copy.withUnsafeMutableBufferPointer { transform.apply($0) }
        rates.append(1.048576 / (now() - start))
    }
    let rate = Stats(samples: rates).median
    var tilePixels = 0, decodedPixels = 0
    for path in jpegs {
        let header = try JPEGHeader(file: InputFile(path: path))
        let height = min(4 * columnWidth, max(1, (2 * columnWidth * header.displayHeight + header.displayWidth) / (2 * header.displayWidth)))
        let (width, tall) = header.orientation.displaySize(width: columnWidth, height: height)
        let eighths = JPEGDecoder.scaleEighths(width: header.width, height: header.height, minimumWidth: width, minimumHeight: tall)
        tilePixels += width * tall
        decodedPixels += ((header.width * eighths + 7) / 8) * ((header.height * eighths + 7) / 8)
    }
    record(ResultRow(stage: "color", metric: "Display P3 → sRGB transform, 1 thread", value: rate, unit: "MP/s", spread: nil,
                     note: String(format: "corpus at %d px tiles: %.1f MP of tiles (%.2f s CPU after resampling), %.1f MP decoded "
                                  + "(%.2f s CPU before resampling)", columnWidth, Double(tilePixels) / 1e6,
                                  Double(tilePixels) / 1e6 / rate, Double(decodedPixels) / 1e6, Double(decodedPixels) / 1e6 / rate)))
}
