import Foundation
import WorkerThreads

/// A decoder's floor measured two ways, for one format's folder (issue #31, with #34's
/// process-to-process comparison): `masonry-floor KIND` (a C program that loads the library and
/// decodes every file, a whole process as masonry is) and `inProcess` on all cores in the
/// bench's own process (the library already loaded and warm).
struct FormatFloors {
    /// The stage's name in the results ("tiff", "jxl").
    let stage: String
    /// What the floor is, for the rows' names ("libtiff's own full decode").
    let floorName: String
    /// `masonry-floor`'s kind for the folder ("tiff", "jxl"); it reads a list of paths.
    let processKind: String
    /// The in-process floor of one file; returns its pixels (0 when it fails).
    let inProcess: @Sendable (String) -> Int
}

/// Masonry on `folder` (default layout, one page) against `floors`, round by round (process
/// floor, in-process floor, `alsoTimed` if any, then the sheet, so all see the same load);
/// records wall and CPU ratios against each floor (medians of same-round ratios, goal ≤ 1.1) and
/// returns the rounds' `alsoTimed` wall times over the in-process floor's.
@discardableResult
func compareSheetWithFloors(_ floors: FormatFloors, folder: String, paths: [String], masonry: String, outDir: String,
                            cores: Int, runs: Int, alsoTimed: (@Sendable (String) -> Void)? = nil) throws -> [Double] {
    let pixels = paths.reduce(0) { $0 + floors.inProcess($1) }   // also the warm-up
    guard pixels > 0 else { throw BenchError("\(floors.stage): the in-process floor decoded nothing") }
    let floorProgram = try floorPath(), list = outDir + "/\(floors.stage)-floor-list.txt"
    try (paths.joined(separator: "\n") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
    func processFloor() throws -> ChildUsage {
        let usage = try runChild(floorProgram, [floors.processKind, String(cores), list])
        guard usage.exitStatus == 0 else { throw BenchError("masonry-floor \(floors.processKind) exited with \(usage.exitStatus)") }
        return usage
    }
    let sheetArguments = [folder, "-o", outDir + "/\(floors.stage)-sheet.png", "--page-height", "0", "-q"]
    _ = try processFloor()
    _ = try runChild(masonry, sheetArguments)
    var processWall: [Double] = [], processCPU: [Double] = [], inProcessWall: [Double] = [], inProcessCPU: [Double] = []
    var alsoTimedRatios: [Double] = [], processFloors: [ChildUsage] = [], inProcessFloors: [Double] = []
    var sheets: [ChildUsage] = []
    for _ in 0..<runs {
        let floorProcess = try processFloor()
        let start = now(), cpu = processCPUSeconds()
        _ = parallelMap(count: paths.count, jobs: cores) { _ = floors.inProcess(paths[$0]) }
        let floorWall = now() - start, floorCPU = processCPUSeconds() - cpu
        if let alsoTimed {
            let start = now()
            _ = parallelMap(count: paths.count, jobs: cores) { alsoTimed(paths[$0]) }
            alsoTimedRatios.append((now() - start) / floorWall)
        }
        let sheet = try runChild(masonry, sheetArguments)
        guard sheet.exitStatus == 0 else { throw BenchError("masonry (\(floors.stage)) exited with \(sheet.exitStatus)") }
        processFloors.append(floorProcess); inProcessFloors.append(floorWall); sheets.append(sheet)
        processWall.append(sheet.wallSeconds / floorProcess.wallSeconds)
        processCPU.append(sheet.cpuSeconds / floorProcess.cpuSeconds)
        inProcessWall.append(sheet.wallSeconds / floorWall)
        inProcessCPU.append(sheet.cpuSeconds / floorCPU)
    }
    func rounds(_ ratios: [Double]) -> String { "per round: " + ratios.map { String(format: "%.3f", $0) }.joined(separator: " ") }
    func row(_ against: String, _ measure: String, _ ratios: [Double], note: String) {
        let stats = Stats(samples: ratios)
        record(ResultRow(stage: floors.stage, metric: "masonry ÷ \(against), \(measure) (same round)", value: stats.median,
                         unit: "×", spread: stats.spreadPercent, goal: "≤ 1.1", pass: stats.median <= 1.1,
                         note: note.isEmpty ? rounds(ratios) : note + "; " + rounds(ratios)))
    }
    let sheetWall = Stats(samples: sheets.map(\.wallSeconds)).median, sheetCPU = Stats(samples: sheets.map(\.cpuSeconds)).median
    let processName = "masonry-floor \(floors.processKind) (\(floors.floorName), a whole process)"
    row(processName, "wall", processWall,
        note: String(format: "%d files, %.1f MP; floor %.3f s (CPU %.3f s, peak RSS %.1f MiB), masonry %.3f s (CPU %.3f s, peak RSS %.1f MiB)",
                     paths.count, Double(pixels) / 1e6, Stats(samples: processFloors.map(\.wallSeconds)).median,
                     Stats(samples: processFloors.map(\.cpuSeconds)).median,
                     Double(processFloors.map(\.peakRSSBytes).max() ?? 0) / 1_048_576, sheetWall, sheetCPU,
                     Double(sheets.map(\.peakRSSBytes).max() ?? 0) / 1_048_576))
    row(processName, "CPU", processCPU, note: "")
    let inProcessName = "\(floors.floorName) in the bench's process"
    row(inProcessName, "wall", inProcessWall,
        note: String(format: "floor %.3f s (%.1f MP/s)", Stats(samples: inProcessFloors).median,
                     Double(pixels) / 1e6 / Stats(samples: inProcessFloors).median))
    row(inProcessName, "CPU", inProcessCPU, note: "")
    return alsoTimedRatios
}
