import CodecCore
import Foundation
import JPEGCodec
import PNGCodec
import WorkerThreads
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

// The process-level stage (issue #34): masonry as a user runs it, a whole process timed from
// outside (start-up included), interleaved round by round with `masonry-floor`, a C program that
// does only the decoding (libjpeg-turbo at the DCT scale masonry chooses, or libpng), also as a
// whole process on the same number of threads. Ratios are medians of same-round ratios.
//   - JPEG: phone photos (12 MP, 4:2:0, a quarter EXIF-rotated) and 1 MP photos, 4 columns of 300 px;
//   - small files: 1,000 small PNGs (openclipart-png), masonry's default sheet against libpng;
//   - start-up: `masonry --version` and a one-picture sheet (wall and peak RSS);
//   - warm cache: one changed input of 200 and of 48, against the cold run.

/// A folder of synthetic photos saved as JPEG (quality 90, 4:2:0), made once and reused while
/// its marker matches; every `rotatedEvery`-th file carries EXIF orientation 6 (a phone held
/// upright), so its pixels are stored sideways as a phone stores them.
struct JPEGPhotoSet {
    let folder: String
    let count: Int
    let width: Int
    let height: Int
    let rotatedEvery: Int
    let seed: UInt64

    /// The files, in name order.
    var paths: [String] { (0..<count).map { folder + String(format: "/photo-%03d.jpg", $0) } }

    func prepare() throws -> [String] {
        let marker = folder + "/set.txt"
        let description = "masonry-bench jpeg photo set v1: \(count) × \(width)×\(height), q90 4:2:0, EXIF 6 every \(rotatedEvery), seed \(seed)\n"
        if (try? String(contentsOfFile: marker, encoding: .utf8)) == description { return paths }
        log("process stage: making \(count) JPEG photos of \(width)×\(height) in \(folder) (one-off)")
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let paths = self.paths
        let failures = parallelMap(count: count, jobs: ProcessInfo.processInfo.activeProcessorCount) { index -> String? in
            do {
                var synth = PhotoSynth(width: width, height: height, seed: seed &+ UInt64(index))
                var rgb = [UInt8](repeating: 0, count: width * height * 3)
                let row = UnsafeMutablePointer<UInt8>.allocate(capacity: width * 4)
                defer { row.deallocate() }
                for y in 0..<height {
                    synth.fillRow(y, into: row, alpha: false)
                    for x in 0..<width { for c in 0..<3 { rgb[(y * width + x) * 3 + c] = row[4 * x + c] } }
                }
                var jpeg = try JPEGEncoder.encode(rgb: rgb, width: width, height: height, quality: 90, progressive: false)
                if rotatedEvery > 0, index % rotatedEvery == rotatedEvery - 1 { jpeg = Self.withExifOrientation(jpeg, 6) }
                try Data(jpeg).write(to: URL(fileURLWithPath: paths[index]))
                return nil
            } catch {
                return "\(paths[index]): \(error)"
            }
        }.compactMap { $0 }
        if let failure = failures.first { throw BenchError("jpeg photo set: \(failure)") }
        try description.write(toFile: marker, atomically: true, encoding: .utf8)
        return paths
    }

    /// `jpeg` with an APP1 Exif segment holding only an Orientation tag, right after SOI.
    static func withExifOrientation(_ jpeg: [UInt8], _ orientation: UInt8) -> [UInt8] {
        let tiff: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08,   // big-endian TIFF, IFD0 at 8
                             0x00, 0x01,                                       // one entry
                             0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01,   // Orientation, SHORT, 1 value
                             0x00, orientation, 0x00, 0x00,
                             0x00, 0x00, 0x00, 0x00]                           // no next IFD
        let payload: [UInt8] = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        return Array(jpeg[0..<2]) + [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + Array(jpeg[2...])
    }
}

/// The `masonry-floor` executable beside this bench.
func floorPath() throws -> String {
    let path = (selfExecutablePath() as NSString).deletingLastPathComponent + "/masonry-floor"
    guard FileManager.default.isExecutableFile(atPath: path) else {
        throw BenchError("no masonry-floor at \(path): build it (swift build -c release --product masonry-floor)")
    }
    return path
}

/// The floor's list for a JPEG folder: each file with the DCT scale masonry chose for its tile,
/// from masonry's own manifest of the same sheet (the tile's size) and the file's header.
func jpegFloorList(manifest: String, to listPath: String) throws -> (count: Int, scales: String) {
    let data = try Data(contentsOf: URL(fileURLWithPath: manifest))
    guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
          let items = root["items"] as? [[String: Any]] else { throw BenchError("\(manifest): no items") }
    var lines: [String] = []
    var histogram = [Int](repeating: 0, count: 9)
    for item in items {
        guard let path = item["path"] as? String, let image = item["image"] as? [String: Any],
              let shownWidth = image["width"] as? Int, let shownHeight = image["height"] as? Int else {
            throw BenchError("\(manifest): an item without a path or image size")
        }
        let header = try JPEGHeader(file: InputFile(path: path))
        let (width, height) = header.orientation.swapsAxes ? (shownHeight, shownWidth) : (shownWidth, shownHeight)
        let eighths = DecodeTarget(minimumWidth: width, minimumHeight: height).dctEighths(width: header.width, height: header.height)
        histogram[eighths] += 1
        lines.append("\(eighths) \(path)")
    }
    try (lines.joined(separator: "\n") + "\n").write(toFile: listPath, atomically: true, encoding: .utf8)
    let scales = (1...8).filter { histogram[$0] > 0 }.map { "\(histogram[$0])×\($0)/8" }.joined(separator: " ")
    return (lines.count, scales)
}

/// Runs `masonry` and `floor` as whole processes, interleaved for `runs` rounds after one
/// warm-up of each; records masonry ÷ floor in wall time (the goal) and CPU time.
func interleavedAgainstFloor(stage: String, masonry: String, masonryArguments: [String], floor: String, floorArguments: [String],
                             runs: Int, goal: Double, note: String) throws {
    func child(_ path: String, _ arguments: [String]) throws -> ChildUsage {
        let usage = try runChild(path, arguments)
        guard usage.exitStatus == 0 else {
            throw BenchError("\(stage): \((path as NSString).lastPathComponent) \(arguments.joined(separator: " ")) exited with \(usage.exitStatus)")
        }
        return usage
    }
    _ = try child(floor, floorArguments)
    _ = try child(masonry, masonryArguments)
    var floors: [Double] = [], sheets: [Double] = [], wallRatios: [Double] = [], cpuRatios: [Double] = [], peak = 0
    let ticks = MachineTicks()
    for round in 0..<runs {
        // Alternate which goes first, so a drift in the machine's load falls on both alike.
        let order = round % 2 == 0 ? [true, false] : [false, true]
        var floorUsage: ChildUsage?, sheetUsage: ChildUsage?
        for isFloor in order {
            if isFloor { floorUsage = try child(floor, floorArguments) } else { sheetUsage = try child(masonry, masonryArguments) }
        }
        let f = floorUsage!, s = sheetUsage!
        floors.append(f.wallSeconds); sheets.append(s.wallSeconds)
        wallRatios.append(s.wallSeconds / f.wallSeconds); cpuRatios.append(s.cpuSeconds / f.cpuSeconds)
        peak = max(peak, s.peakRSSBytes)
    }
    let wall = Stats(samples: wallRatios), cpu = Stats(samples: cpuRatios)
    let steal = MachineTicks.stealPercent(since: ticks).map { String(format: "; the hypervisor's steal %.0f %% of the machine's CPU time", $0) } ?? ""
    record(ResultRow(stage: stage, metric: "masonry ÷ floor, whole processes, wall (same round)", value: wall.median, unit: "×",
                     spread: wall.spreadPercent, goal: String(format: "≤ %.2f", goal), pass: wall.median <= goal,
                     note: String(format: "%@; masonry %.3f s, floor %.3f s (medians); peak RSS %.1f MiB; per round: %@%@", note,
                                  Stats(samples: sheets).median, Stats(samples: floors).median, Double(peak) / 1_048_576,
                                  wallRatios.map { String(format: "%.3f", $0) }.joined(separator: " "), steal)))
    record(ResultRow(stage: stage, metric: "masonry ÷ floor, CPU time (same round)", value: cpu.median, unit: "×",
                     spread: cpu.spreadPercent, note: "steadier than wall time on a shared machine"))
}

/// The JPEG goals: a folder of photos as a sheet of 4 columns of 300 px against the scaled-decode floor.
func jpegProcessStage(set: JPEGPhotoSet, label: String, goal: Double, masonry: String, floor: String, outDir: String,
                      runs: Int, cores: Int) throws {
    _ = try set.prepare()
    let sheet = outDir + "/process-\(label).png", manifest = outDir + "/process-\(label).json"
    let arguments = [set.folder, "-c", "4", "--column-width", "300", "-j", "\(cores)", "-o", sheet, "-q"]
    let first = try runChild(masonry, arguments + ["--manifest", manifest])
    guard first.exitStatus == 0 else { throw BenchError("masonry on \(set.folder) exited with \(first.exitStatus)") }
    let list = outDir + "/process-\(label).list"
    let (count, scales) = try jpegFloorList(manifest: manifest, to: list)
    try interleavedAgainstFloor(stage: "process jpeg \(label)", masonry: masonry, masonryArguments: arguments,
                                floor: floor, floorArguments: ["jpeg", "\(cores)", list], runs: runs, goal: goal,
                                note: "\(count) photos of \(set.width)×\(set.height), \(cores) threads, DCT scales \(scales)")
}

/// Goal 2: 1,000 small PNGs, masonry's default sheet against libpng decoding the same list.
func smallFilesProcessStage(paths: [String], folder: String, masonry: String, floor: String, outDir: String, runs: Int, cores: Int) throws {
    let list = outDir + "/process-small-files.list"
    try (paths.joined(separator: "\n") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
    try interleavedAgainstFloor(stage: "process small files", masonry: masonry,
                                masonryArguments: [folder, "-j", "\(cores)", "-o", outDir + "/process-small-files.png", "-q"],
                                floor: floor, floorArguments: ["png", "\(cores)", list], runs: runs, goal: 1.0,
                                note: "\(paths.count) openclipart-png files, \(cores) threads")
    // The floor above does not write the sheet a contact-sheet tool exists for. The second floor
    // also encodes the sheet's own pixels (masonry's pages, decoded to raw files beforehand) with
    // libpng at zlib's fastest level and no row filters: decode plus the least an encode costs.
    let pagesList = try rawSheetPages(of: outDir + "/process-small-files.png", outDir: outDir)
    try interleavedAgainstFloor(stage: "process small files, decode + sheet floor", masonry: masonry,
                                masonryArguments: [folder, "-j", "\(cores)", "-o", outDir + "/process-small-files.png", "-q"],
                                floor: floor, floorArguments: ["png+sheet", "\(cores)", list, pagesList], runs: runs, goal: 1.0,
                                note: "the same files; the floor also encodes the sheet's pages (libpng, zlib level 1, no filter)")
}

/// Masonry's pages of the sheet `output` (one file, or `stem-001.png` …) decoded to raw files
/// beside them, and the list `masonry-floor png+sheet` reads ("WIDTH HEIGHT CHANNELS RAWPATH").
func rawSheetPages(of output: String, outDir: String) throws -> String {
    let stem = String(output.dropLast(4))
    var files: [String] = []
    while FileManager.default.fileExists(atPath: stem + String(format: "-%03d.png", files.count + 1)) {
        files.append(stem + String(format: "-%03d.png", files.count + 1))
    }
    if files.isEmpty { files = [output] }
    var lines: [String] = []
    for file in files {
        let decoder = try PNGDecoder(file: InputFile(path: file), compactOpaqueRows: true)
        var pixels = [UInt8]()
        pixels.reserveCapacity(decoder.header.width * decoder.header.height * decoder.rowFormat.bytesPerPixel)
        try decoder.readRows { _, row in pixels += row }
        let raw = file + ".raw"
        try Data(pixels).write(to: URL(fileURLWithPath: raw))
        lines.append("\(decoder.header.width) \(decoder.header.height) \(decoder.rowFormat.bytesPerPixel) \(raw)")
    }
    let list = outDir + "/process-small-files-pages.list"
    try (lines.joined(separator: "\n") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
    return list
}

/// Goal 3: start-up as whole processes: `masonry --version`, and a sheet of one small PNG
/// (wall time and peak RSS); `masonry-floor` with an empty list beside them, a C program's start.
func startupProcessStage(masonry: String, floor: String, outDir: String, runs: Int) throws {
    let picture = outDir + "/one-picture.png"
    if !FileManager.default.fileExists(atPath: picture) {
        var rgb = [UInt8](repeating: 0, count: 64 * 48 * 3)
        for i in rgb.indices { rgb[i] = UInt8(truncatingIfNeeded: i &* 7) }
        try Data(PNGEncoder.encode(pixels: rgb, width: 64, height: 48, format: .rgb8)).write(to: URL(fileURLWithPath: picture))
    }
    let emptyList = outDir + "/empty.list"
    try "".write(toFile: emptyList, atomically: true, encoding: .utf8)
    let cases: [(name: String, path: String, arguments: [String], goalMilliseconds: Double?, goalRSS: Double?)] = [
        ("C program start (masonry-floor, nothing to do)", floor, ["png", "1", emptyList], nil, nil),
        ("masonry --version", masonry, ["--version"], 10, nil),
        ("masonry, a one-picture PNG sheet", masonry, [picture, "-o", outDir + "/one-picture-sheet.png", "-q"], 25, 15),
    ]
    let rounds = max(runs, 20)
    var walls = [[Double]](repeating: [], count: cases.count), peaks = [[Double]](repeating: [], count: cases.count)
    for _ in 0..<3 { for entry in cases { _ = try runChild(entry.path, entry.arguments) } }
    for _ in 0..<rounds {
        for (index, entry) in cases.enumerated() {
            let usage = try runChild(entry.path, entry.arguments)
            guard usage.exitStatus == 0 else { throw BenchError("\(entry.name) exited with \(usage.exitStatus)") }
            walls[index].append(usage.wallSeconds * 1000)
            peaks[index].append(Double(usage.peakRSSBytes) / 1_048_576)
        }
    }
    for (index, entry) in cases.enumerated() {
        let wall = Stats(samples: walls[index]), peak = Stats(samples: peaks[index])
        record(ResultRow(stage: "process start-up", metric: entry.name + ", wall", value: wall.median, unit: "ms",
                         spread: wall.spreadPercent, goal: entry.goalMilliseconds.map { "≤ \(Int($0))" },
                         pass: entry.goalMilliseconds.map { wall.median <= $0 },
                         note: String(format: "min %.1f ms over %d runs", wall.min, rounds)))
        record(ResultRow(stage: "process start-up", metric: entry.name + ", peak RSS", value: peak.max, unit: "MiB",
                         goal: entry.goalRSS.map { "≤ \(Int($0))" }, pass: entry.goalRSS.map { peak.max <= $0 }))
    }
}

/// Goal 4: a warm run with one input of `set` changed (a new file with the same bytes, so its
/// cache entry no longer matches) against a cold run that filled the cache; each round starts
/// from an empty cache.
func warmCacheProcessStage(set: JPEGPhotoSet, count: Int, goal: Double, masonry: String, outDir: String, runs: Int, cores: Int) throws {
    let paths = try set.prepare()
    let folder = outDir + "/cache-inputs-\(count)", cache = outDir + "/cache-\(count)"
    try? FileManager.default.removeItem(atPath: folder)
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    for path in paths.prefix(count) { try FileManager.default.copyItem(atPath: path, toPath: folder + "/" + (path as NSString).lastPathComponent) }
    let names = paths.prefix(count).map { ($0 as NSString).lastPathComponent }
    usleep(300_000)   // the cache keeps no file changed in the last 100 ms
    let arguments = [folder, "-c", "4", "--column-width", "300", "-j", "\(cores)", "--cache", cache, "-q"]
    var shares: [Double] = [], cpuShares: [Double] = [], cold: [Double] = [], warm: [Double] = []
    for round in 0..<runs {
        try? FileManager.default.removeItem(atPath: cache)
        let first = try runChild(masonry, arguments + ["-o", outDir + "/cache-cold.png"])
        let changed = folder + "/" + names[(round * 7) % names.count]
        let bytes = try Data(contentsOf: URL(fileURLWithPath: changed))
        try FileManager.default.removeItem(atPath: changed)
        try bytes.write(to: URL(fileURLWithPath: changed))
        usleep(300_000)
        let second = try runChild(masonry, arguments + ["-o", outDir + "/cache-warm.png"])
        guard first.exitStatus == 0, second.exitStatus == 0 else { throw BenchError("masonry --cache exited with an error") }
        cold.append(first.wallSeconds); warm.append(second.wallSeconds); shares.append(second.wallSeconds / first.wallSeconds)
        cpuShares.append(second.cpuSeconds / first.cpuSeconds)
    }
    let share = Stats(samples: shares)
    record(ResultRow(stage: "process warm cache", metric: "1 of \(count) inputs changed ÷ cold run, wall", value: share.median, unit: "×",
                     spread: share.spreadPercent, goal: String(format: "≤ %.2f", goal), pass: share.median <= goal,
                     note: String(format: "%d photos of %d×%d; cold %.3f s, warm %.3f s (medians); per round: %@", count, set.width,
                                  set.height, Stats(samples: cold).median, Stats(samples: warm).median,
                                  shares.map { String(format: "%.3f", $0) }.joined(separator: " "))))
    let cpu = Stats(samples: cpuShares)
    record(ResultRow(stage: "process warm cache", metric: "1 of \(count) inputs changed ÷ cold run, CPU time", value: cpu.median, unit: "×",
                     spread: cpu.spreadPercent, note: "steadier than wall time on a shared machine; per round: "
                         + cpuShares.map { String(format: "%.3f", $0) }.joined(separator: " ")))
}

/// Every part of the process stage; `quick` (CI's summary) uses smaller sets and skips what
/// needs a package CI does not install.
func processStage(masonry: String, root: String, outDir: String, runs: Int, cores: Int, quick: Bool) throws {
    let floor = try floorPath()
    let phones = JPEGPhotoSet(folder: root + (quick ? "/jpeg-12mp-quick" : "/jpeg-12mp"), count: quick ? 4 : 16,
                              width: 4032, height: 3024, rotatedEvery: 4, seed: 34_001)
    let small = JPEGPhotoSet(folder: root + "/jpeg-1mp", count: 200, width: 1152, height: 768, rotatedEvery: 4, seed: 34_002)
    let smallSheet = JPEGPhotoSet(folder: root + "/jpeg-1mp-48", count: 48, width: 1152, height: 768, rotatedEvery: 4, seed: 34_002)
    try startupProcessStage(masonry: masonry, floor: floor, outDir: outDir, runs: runs)
    try jpegProcessStage(set: phones, label: "12mp", goal: 1.15, masonry: masonry, floor: floor, outDir: outDir, runs: runs, cores: cores)
    try jpegProcessStage(set: smallSheet, label: "1mp", goal: 1.5, masonry: masonry, floor: floor, outDir: outDir, runs: runs, cores: cores)
    if let smallFiles = try smallFilesCorpus(in: root + "/small-files") {
        try smallFilesProcessStage(paths: smallFiles, folder: root + "/small-files", masonry: masonry, floor: floor, outDir: outDir,
                                   runs: runs, cores: cores)
    } else {
        log("process small files: skipped (openclipart-png is not installed: apt-get install openclipart-png)")
    }
    try warmCacheProcessStage(set: smallSheet, count: 48, goal: 0.10, masonry: masonry, outDir: outDir, runs: min(runs, 5), cores: cores)
    if !quick {
        try warmCacheProcessStage(set: small, count: 200, goal: 0.05, masonry: masonry, outDir: outDir, runs: min(runs, 5), cores: cores)
    }
}
