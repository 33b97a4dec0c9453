import Foundation
import PNGCodec
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

// The plan-scale stage (issue #32): `masonry --plan-only -r --plan FILE` over 100,000,
// 300,000 and 1,000,000 small PNGs in nested folders, wall time and peak RSS at each point.
// Goals at 1 M: ≤ 10 s and ≤ 500 MB on the 2-core machine, warm page cache.

/// The folder tree of the stage under `root`: `part0` holds the first 100,000 files, `part1`
/// 200,000 more, `part2` 700,000 more, each as folders of 1,000 (`gNN/fNNNN/imgNNNN.png`),
/// every file a hard link to one of `sourceCount` small PNGs of assorted sizes (ext4 allows
/// 65,000 links to one file). Made once; a tree with its `complete` mark is reused.
struct PlanScaleTree {
    let root: String
    static let parts = [100_000, 200_000, 700_000]
    static let perFolder = 1000
    static let sourceCount = 32

    /// The input arguments for the first `count` files (100 k, 300 k or 1 M).
    func arguments(upTo count: Int) -> [String] {
        var total = 0
        var chosen: [String] = []
        for (number, size) in Self.parts.enumerated() where total < count {
            chosen.append(root + "/part\(number)")
            total += size
        }
        return chosen
    }

    func make() throws {
        let mark = root + "/complete"
        if FileManager.default.fileExists(atPath: mark) { return }
        try? FileManager.default.removeItem(atPath: root)
        try FileManager.default.createDirectory(atPath: root + "/sources", withIntermediateDirectories: true)
        var sources: [String] = []
        for number in 0..<Self.sourceCount {
            let width = 8 + number % 5 * 4, height = 8 + number / 5 * 3
            var pixels = [UInt8](repeating: 0, count: width * height * 3)
            for index in pixels.indices { pixels[index] = UInt8(truncatingIfNeeded: index * 7 + number * 31) }
            let png = try PNGEncoder.encode(pixels: pixels, width: width, height: height, format: .rgb8)
            let path = root + "/sources/\(number).png"
            try Data(png).write(to: URL(fileURLWithPath: path))
            sources.append(path)
        }
        var folder = 0
        for (part, size) in Self.parts.enumerated() {
            for _ in 0..<(size / Self.perFolder) {
                let directory = root + String(format: "/part%d/g%02d/f%04d", part, folder / 100, folder)
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                for file in 0..<Self.perFolder {
                    let target = sources[(folder * 7 + file) % sources.count]
                    let name = directory + String(format: "/img%04d.png", file)
                    guard link(target, name) == 0 || errno == EEXIST else {
                        throw BenchError("cannot link \(name): \(String(cString: strerror(errno)))")
                    }
                }
                folder += 1
            }
            log("plan scale: \(Self.parts.prefix(part + 1).reduce(0, +)) files made")
        }
        _ = FileManager.default.createFile(atPath: mark, contents: Data())
    }
}

/// Times `masonry --plan-only -r --plan` at each point of the tree (one warm-up, `runs` runs),
/// and records wall time, peak RSS and the bytes each image adds.
func planScaleStage(masonry: String, root: String, outDir: String, runs: Int) throws {
    let tree = PlanScaleTree(root: root)
    try tree.make()
    let stage = "plan scale"
    var peaks: [Int: Double] = [:]
    for count in [100_000, 300_000, 1_000_000] {
        let plan = outDir + "/plan-\(count).mplan"
        let arguments = ["--plan-only", "-r", "--plan", plan, "-o", outDir + "/scale.png", "-q"] + tree.arguments(upTo: count)
        var wall: [Double] = [], cpu: [Double] = [], rss: [Int] = []
        _ = try runChild(masonry, arguments)   // warm-up: the page cache holds the tree's folders and inodes
        for _ in 0..<runs {
            let child = try runChild(masonry, arguments)
            guard child.exitStatus == 0 else { throw BenchError("masonry --plan-only (\(count) files) exited with \(child.exitStatus)") }
            wall.append(child.wallSeconds)
            cpu.append(child.cpuSeconds)
            rss.append(child.peakRSSBytes)
        }
        let wallStats = Stats(samples: wall)
        let peak = Double(rss.max() ?? 0) / 1e6
        peaks[count] = peak
        let planBytes = (try? FileManager.default.attributesOfItem(atPath: plan)[.size] as? Int) ?? 0
        let atGoal = count == 1_000_000
        record(ResultRow(stage: stage, metric: "\(count / 1000) k inputs: wall", value: wallStats.median, unit: "s",
                         spread: wallStats.spreadPercent, goal: atGoal ? "≤ 10" : nil, pass: atGoal ? wallStats.median <= 10 : nil,
                         note: String(format: "plan file %.1f MB (%.0f bytes an image)", Double(planBytes) / 1e6,
                                      Double(planBytes) / Double(count))))
        let cpuStats = Stats(samples: cpu)
        record(ResultRow(stage: stage, metric: "\(count / 1000) k inputs: CPU (user + sys)", value: cpuStats.median, unit: "s",
                         spread: cpuStats.spreadPercent,
                         note: "on a shared machine the CPU time is the steadier number; wall ≥ CPU ÷ 2 on 2 cores"))
        record(ResultRow(stage: stage, metric: "\(count / 1000) k inputs: peak RSS", value: peak, unit: "MB",
                         goal: atGoal ? "≤ 500" : nil, pass: atGoal ? peak <= 500 : nil,
                         note: "runs: " + rss.map { String(format: "%.0f", Double($0) / 1e6) }.joined(separator: " ")))
    }
    if let small = peaks[100_000], let large = peaks[1_000_000] {
        record(ResultRow(stage: stage, metric: "peak RSS per image (100 k → 1 M)", value: (large - small) * 1e6 / 900_000,
                         unit: "B", note: "the growth of the peak between the two points"))
    }
}
