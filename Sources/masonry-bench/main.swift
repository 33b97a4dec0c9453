// masonry-bench: measures every stage of a contact sheet against the decoder's floor.
//
//   swift run -c release masonry-bench [--quick] [--json path] [--corpus dir] [--runs n]
//                                      [--masonry path] [--sweep] [--skip-huge]
//
// A sheet of N PNGs cannot be made faster than decoding those N PNGs on all cores: that is
// the floor every other number is compared with. Method and results: Notes/performance.md.
import Foundation
import WaterfallLayout
import MasonrySheet
import CodecCore
import PNGCodec
import Raster
import SeededRandom
import WorkerThreads
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

// MARK: Options

/// The bench's command-line options.
struct BenchOptions {
    var quick = false
    var json: String?
    var corpus: String?
    var runs: Int?
    var masonry: String?
    var sweep = false
    var skipHuge = false
    var floorOnly = false
    var smallFilesOnly = false
    /// Run only the `masonry compare` stage (CompareStage.swift).
    var compareOnly = false
    /// Run only the compare stage of a CI suite with masks and rules (CompareStage.swift).
    var compareCIOnly = false
    /// Run only the round-3 formats stage (FormatsStage.swift).
    var formatsOnly = false
    /// Run only the TIFF part of the formats stage (FormatsStage.swift).
    var tiffOnly = false
    /// Run only the camera RAW stage (RAWStage.swift).
    var rawOnly = false
    /// Run only the SVG stage (SVGStage.swift).
    var svgOnly = false
    /// Run only the JPEG XL stage (JXLStage.swift).
    var jxlOnly = false
    /// Run only the colour stage (ColorStage.swift).
    var colorOnly = false
    /// Run only the plan-scale stage (PlanScaleStage.swift).
    var planScaleOnly = false
    /// Run only the caption-scripts stage (CaptionScriptsStage.swift).
    var captionScriptsOnly = false
    /// Run only the process-level stage (ProcessStage.swift): whole processes against masonry-floor.
    var processOnly = false
    /// The process-level stage on small sets, for CI's log (ProcessStage.swift).
    var ciSummary = false
    var seed: UInt64 = 20_240_601
}

func parseOptions() -> BenchOptions {
    var options = BenchOptions()
    var arguments = CommandLine.arguments.dropFirst().makeIterator()
    func value(_ name: String) -> String {
        guard let value = arguments.next() else { fail("\(name) needs a value") }
        return value
    }
    while let argument = arguments.next() {
        switch argument {
        case "--quick": options.quick = true
        case "--json": options.json = value(argument)
        case "--corpus": options.corpus = value(argument)
        case "--runs": options.runs = Int(value(argument)) ?? { fail("--runs needs a number") }()
        case "--masonry": options.masonry = value(argument)
        case "--seed": options.seed = UInt64(value(argument)) ?? { fail("--seed needs a number") }()
        case "--sweep": options.sweep = true
        case "--skip-huge": options.skipHuge = true
        case "--floor-only": options.floorOnly = true
        case "--compare-only": options.compareOnly = true
        case "--compare-ci-only": options.compareCIOnly = true
        case "--small-files-only": options.smallFilesOnly = true
        case "--formats-only": options.formatsOnly = true
        case "--tiff-only": options.tiffOnly = true
        case "--raw-only": options.rawOnly = true
        case "--svg-only": options.svgOnly = true
        case "--jxl-only": options.jxlOnly = true
        case "--color-only": options.colorOnly = true
        case "--plan-scale-only": options.planScaleOnly = true
        case "--caption-scripts-only": options.captionScriptsOnly = true
        case "--process-only": options.processOnly = true
        case "--ci-summary": options.ciSummary = true
        case "-h", "--help":
            print("""
            usage: masonry-bench [--quick] [--json path] [--corpus dir] [--runs n] [--masonry path]
                                 [--seed n] [--sweep] [--skip-huge]
              --quick      small corpus (48 images up to 2000 px, 8000² huge input): under a minute
              --json       also write the results as JSON
              --corpus     corpus folder [.build/bench-corpus or .build/bench-corpus-quick]
              --runs       measured runs per stage [quick 3, full 5]; one warm-up run precedes them
              --masonry    the masonry executable [the one next to this binary]
              --sweep      also time more zlib level/strategy/filter choices on the sheet
              --skip-huge  skip the 20000×20000 peak-RSS run
              --compare-only  run only the masonry compare stage (40 pairs of 1280×800; quick 20)
              --compare-ci-only  run only the compare stage of a CI suite: 2,000 pairs of 1280×800, 1 % changed,
                           with and without 5 ignore regions and 10 rules (quick 200)
              --small-files-only  run only the many-small-files stage (needs openclipart-png)
              --formats-only  run only the WebP, GIF, HEIC, AVIF and TIFF stage (40 photos converted once by
                           scripts/make-bench-format-corpus.py; quick 12)
              --tiff-only  run only its TIFF part: masonry against libtiff's own full decode
              --raw-only  run only the camera RAW stage: 40 DNGs with full-size previews (made once by
                           scripts/make-raw-fixtures.py --bench); masonry against the previews' DCT-scaled
                           decode, and LibRaw's half-size demosaic of every file (quick 12)
              --svg-only  run only the SVG stage: 40 openclipart drawings (needs openclipart-svg; quick 12);
                           masonry against librsvg alone drawing each at its tile size (goal ≤ 1.1×)
              --jxl-only   run only the JPEG XL stage: 40 photos made JPEG XL by cjxl (once, by
                           scripts/make-bench-format-corpus.py; 40 with --quick too); masonry against libjxl's
                           own full decode of every file, wall and CPU
              --color-only  run only the colour stage (the JPEG corpus with a Display P3 profile vs untagged)
              --plan-scale-only  run only the plan-scale stage: masonry --plan-only --plan over 100 k, 300 k and
                           1 M small PNGs (hard links in nested folders, made once in <corpus>/plan-scale)
              --caption-scripts-only  run only the caption-scripts stage: the same sheet of small pictures
                           with ASCII captions and with captions in 12 scripts, interleaved (goal ≤ 1.05×)
              --process-only  run only the process-level stage (issue #34): masonry as a whole process, interleaved
                           with masonry-floor (C: libjpeg-turbo at masonry's DCT scale, or libpng) on 16 photos of
                           12 MP and 48 of 1 MP (4 columns of 300 px), 1,000 small PNGs (openclipart-png), start-up
                           (--version, a one-picture sheet) and a warm cache (1 changed input of 48 and of 200)
              --ci-summary  the process-level stage on small sets (4 photos of 12 MP; no 200-input cache run),
                           3 runs unless --runs: the ratios CI prints (never a failure)
            """)
            exit(0)
        default: fail("unknown argument \(argument) (see --help)")
        }
    }
    return options
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("masonry-bench: \(message)\n".utf8))
    exit(1)
}

func log(_ message: String) {
    FileHandle.standardError.write(Data("[\(String(format: "%7.1f", now() - benchStart)) s] \(message)\n".utf8))
}

// MARK: Results

/// One row of the results table (and of `--json`).
struct ResultRow {
    let stage: String
    let metric: String
    let value: Double
    let unit: String
    var spread: Double? = nil
    var goal: String? = nil
    var pass: Bool? = nil
    var note: String = ""
}

nonisolated(unsafe) var results: [ResultRow] = []   // touched only from the main thread
func record(_ row: ResultRow) {
    results.append(row)
    let status = row.pass.map { $0 ? "ok" : "MISS" } ?? ""
    log("\(row.stage) / \(row.metric): \(format(row.value)) \(row.unit) \(status)")
}

func format(_ value: Double) -> String {
    if value == 0 { return "0" }
    let magnitude = abs(value)
    if magnitude >= 1000 { return String(format: "%.0f", value) }
    if magnitude >= 100 { return String(format: "%.1f", value) }
    if magnitude >= 1 { return String(format: "%.2f", value) }
    return String(format: "%.3f", value)
}

func printTable() {
    let header = ["stage", "metric", "median", "unit", "spread", "goal", ""]
    let rows = results.map { row in
        [row.stage, row.metric, format(row.value), row.unit, row.spread.map { String(format: "±%.0f%%", $0 / 2) } ?? "",
         row.goal ?? "", row.pass.map { $0 ? "ok" : "MISS" } ?? ""]
    }
    var widths = header.map(\.count)
    for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
    func line(_ cells: [String]) -> String {
        cells.enumerated().map { i, cell in
            i == 2 ? String(repeating: " ", count: widths[i] - cell.count) + cell
                   : cell + String(repeating: " ", count: widths[i] - cell.count)
        }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
    }
    print(line(header))
    print(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "))
    for row in rows { print(line(row)) }
}

func writeJSON(to path: String, context: [(String, String)]) throws {
    func number(_ value: Double) -> String { value.isFinite ? String(format: "%.6g", value) : "null" }
    var text = "{\n  \"context\": {"
    text += context.map { "\(JSON.quoted($0.0)): \(JSON.quoted($0.1))" }.joined(separator: ", ") + "},\n  \"results\": [\n"
    text += results.map { row in
        var fields = ["\"stage\": \(JSON.quoted(row.stage))", "\"metric\": \(JSON.quoted(row.metric))",
                      "\"value\": \(number(row.value))", "\"unit\": \(JSON.quoted(row.unit))"]
        if let spread = row.spread { fields.append("\"spreadPercent\": \(number(spread))") }
        if let goal = row.goal { fields.append("\"goal\": \(JSON.quoted(goal))") }
        if let pass = row.pass { fields.append("\"pass\": \(pass)") }
        if !row.note.isEmpty { fields.append("\"note\": \(JSON.quoted(row.note))") }
        return "    {" + fields.joined(separator: ", ") + "}"
    }.joined(separator: ",\n")
    text += "\n  ]\n}\n"
    try text.write(toFile: path, atomically: true, encoding: .utf8)
}

// MARK: Stages

func listPNGs(_ folder: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
        .filter { $0.hasSuffix(".png") }.sorted().map { folder + "/" + $0 }
}

func readHeader(_ path: String) throws -> PNGHeader {
    try PNGHeader(contentsOfFile: path)
}

/// Decodes a file row by row and discards the rows; returns its pixel count. The floor of
/// issue #5 decodes to RGBA8 with libpng; `compact` decodes opaque files to RGB or grey, and
/// `route: .automatic` takes the fast path where it can, as masonry does.
func decodeAndDiscard(_ path: String, compact: Bool = false, route: PNGDecodeRoute = .libpngOnly) throws -> Int {
    let decoder = try PNGDecoder(file: InputFile(path: path), compactOpaqueRows: compact, route: route)
    var sink: UInt8 = 0
    try decoder.readRows { _, row in sink &+= row[row.count - 1] }
    if sink == 1 { FileHandle.nullDevice.write(Data([sink])) }   // keep the read observable
    return decoder.header.pixelCount
}

func headerPass(folder: String, runs: Int, cores: Int) throws {
    let paths = listPNGs(folder)
    guard !paths.isEmpty else { throw BenchError("no files in \(folder)") }
    let single = try measure(runs: runs) { for path in paths { _ = try readHeader(path) } }
    record(ResultRow(stage: "headers", metric: "\(paths.count) files, 1 thread", value: Double(paths.count) / single.median,
                     unit: "files/s", spread: single.spreadPercent))
    let all = measure(runs: runs) {
        _ = parallelMap(count: cores * 8, jobs: cores) { chunk in
            for index in (chunk * paths.count / (cores * 8)) ..< ((chunk + 1) * paths.count / (cores * 8)) {
                _ = try? readHeader(paths[index])
            }
        }
    }
    let rate = Double(paths.count) / all.median
    record(ResultRow(stage: "headers", metric: "\(paths.count) files, \(cores) threads", value: rate, unit: "files/s",
                     spread: all.spreadPercent, goal: "≥ 20000", pass: rate >= 20_000))
}

func layoutStage(runs: Int) throws {
    var rng = SplitMix64(seed: 1)
    let sizes = (0..<1_000_000).map { _ in LayoutSize(width: rng.corpusInt(300...4000), height: rng.corpusInt(300...4000)) }
    let configuration = try LayoutConfiguration(width: 1200, columns: 4)
    var layout = MasonryLayout(configuration: configuration)
    let build = measure(runs: runs) { layout = MasonryLayout(configuration: configuration, sizes: sizes) }
    let ms = build.median * 1000
    record(ResultRow(stage: "layout", metric: "1,000,000 sizes", value: ms, unit: "ms", spread: build.spreadPercent,
                     goal: "< 100", pass: ms < 100))
    let queries = 20_000
    let rects = (0..<queries).map { _ in LayoutRect(x: 0, y: rng.corpusInt(0...max(0, layout.height - 1000)), width: 1200, height: 1000) }
    var found = 0
    let query = measure(runs: runs) { for rect in rects { found &+= layout.tiles(in: rect).count } }
    let us = query.median / Double(queries) * 1e6
    record(ResultRow(stage: "layout", metric: "rect query 1200×1000", value: us, unit: "µs", spread: query.spreadPercent,
                     goal: "< 10", pass: us < 10, note: "average \(found / (queries * (runs + 1))) tiles per query"))
}

func decodeFloorSingle(paths: [String], runs: Int, megapixels: Double) throws -> Stats {
    let stats = try measure(runs: runs) { for path in paths { _ = try decodeAndDiscard(path) } }
    record(ResultRow(stage: "decode floor", metric: "1 thread", value: stats.median, unit: "s", spread: stats.spreadPercent,
                     note: String(format: "%.1f MP/s", megapixels / stats.median)))
    return stats
}

func decodeAllCores(_ paths: [String], cores: Int, compact: Bool = false, route: PNGDecodeRoute = .libpngOnly) {
    _ = parallelMap(count: paths.count, jobs: cores) { index in
        _ = try? decodeAndDiscard(paths[index], compact: compact, route: route)
    }
}

/// The best decode this machine does: the fast path where it applies, compact rows, all cores.
func fastFloor(_ paths: [String], cores: Int) {
    decodeAllCores(paths, cores: cores, compact: true, route: .automatic)
}

/// The many-small-files corpus: the first 1,000 PNGs of Debian's openclipart-png by sorted
/// path, linked into `folder` as 0000.png... (so masonry's natural order keeps that order).
/// Nil when the package is not installed.
func smallFilesCorpus(in folder: String) throws -> [String]? {
    let root = "/usr/share/openclipart/png"
    guard let walker = FileManager.default.enumerator(atPath: root) else { return nil }
    var all: [String] = []
    for case let relative as String in walker where relative.lowercased().hasSuffix(".png") { all.append(root + "/" + relative) }
    let chosen = all.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }.prefix(1000)
    guard !chosen.isEmpty else { return nil }
    try? FileManager.default.removeItem(atPath: folder)
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    return try chosen.enumerated().map { index, target in
        let link = folder + String(format: "/%04d.png", index)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        return link
    }
}

/// Rounds of: libpng floor, fast floor, masonry on `folder` with default options; records
/// the floors, masonry's time and masonry ÷ each floor (medians of same-round ratios).
func smallFilesStage(paths: [String], folder: String, output: String, masonry: String, runs: Int, cores: Int) throws {
    var libpng: [Double] = [], fast: [Double] = [], wall: [Double] = [], rss: [Int] = []
    var overLibpng: [Double] = [], overFast: [Double] = []
    decodeAllCores(paths, cores: cores)                            // warm-up
    _ = try runChild(masonry, [folder, "-o", output, "-q"])        // warm-up
    for _ in 0..<runs {
        var start = now()
        decodeAllCores(paths, cores: cores)
        libpng.append(now() - start)
        start = now()
        fastFloor(paths, cores: cores)
        fast.append(now() - start)
        let child = try runChild(masonry, [folder, "-o", output, "-q"])
        guard child.exitStatus == 0 else { throw BenchError("masonry (small files) exited with \(child.exitStatus)") }
        wall.append(child.wallSeconds)
        rss.append(child.peakRSSBytes)
        overLibpng.append(child.wallSeconds / libpng.last!)
        overFast.append(child.wallSeconds / fast.last!)
    }
    let stage = "small files"
    let libpngStats = Stats(samples: libpng), fastStats = Stats(samples: fast), wallStats = Stats(samples: wall)
    record(ResultRow(stage: stage, metric: "libpng floor, \(cores) threads", value: libpngStats.median, unit: "s",
                     spread: libpngStats.spreadPercent, note: "\(paths.count) openclipart-png files, RGBA8 rows"))
    record(ResultRow(stage: stage, metric: "fast floor, \(cores) threads", value: fastStats.median, unit: "s",
                     spread: fastStats.spreadPercent, note: "the fast path where it applies, compact rows"))
    record(ResultRow(stage: stage, metric: "masonry wall time", value: wallStats.median, unit: "s",
                     spread: wallStats.spreadPercent,
                     note: String(format: "peak RSS %.0f MiB", Double(rss.max() ?? 0) / 1_048_576)))
    let ratio = Stats(samples: overLibpng)
    record(ResultRow(stage: stage, metric: "masonry ÷ libpng floor (same round)", value: ratio.median, unit: "×",
                     spread: ratio.spreadPercent, goal: "≤ 1.0", pass: ratio.median <= 1.0,
                     note: "per round: " + overLibpng.map { String(format: "%.3f", $0) }.joined(separator: " ")))
    let fastRatio = Stats(samples: overFast)
    record(ResultRow(stage: stage, metric: "masonry ÷ fast floor (same round)", value: fastRatio.median, unit: "×",
                     spread: fastRatio.spreadPercent,
                     note: "per round: " + overFast.map { String(format: "%.3f", $0) }.joined(separator: " ")))
}

func resampleStage(paths: [String], runs: Int, columnWidth: Int) throws {
    // Four images across the size range, decoded once into memory as masonry decodes them.
    let picks = [0, paths.count / 4, paths.count / 2, paths.count - 1].map { paths[$0] }
    let images = try picks.map { path in
        let decoder = try PNGDecoder(file: InputFile(path: path), compactOpaqueRows: true)
        var pixels = [UInt8]()
        try decoder.readRows { _, row in pixels += row }
        return (width: decoder.header.width, height: decoder.header.height, pixels: pixels,
                format: decoder.rowFormat)
    }
    let sourceMP = Double(images.reduce(0) { $0 + $1.width * $1.height }) / 1e6
    var targetPixels = 0
    let resample = measure(runs: runs) {
        targetPixels = 0
        for image in images {
            let targetHeight = min(4 * columnWidth, max(1, (2 * columnWidth * image.height + image.width) / (2 * image.width)))
            let resampler = StreamingResampler(sourceWidth: image.width, sourceHeight: image.height,
                                               targetWidth: columnWidth, targetHeight: targetHeight,
                                               sourceFormat: image.format)
            var sink: UInt8 = 0
            image.pixels.withUnsafeBufferPointer { pixels in
                let rowBytes = image.width * image.format.bytesPerPixel
                for y in 0..<image.height {
                    resampler.push(row: UnsafeBufferPointer(rebasing: pixels[y * rowBytes ..< (y + 1) * rowBytes])) { _, row in
                        sink &+= row[0]
                    }
                }
            }
            targetPixels += columnWidth * targetHeight
            if sink == 1 { FileHandle.nullDevice.write(Data([sink])) }
        }
    }
    record(ResultRow(stage: "resample", metric: "to \(columnWidth) px wide, 1 thread", value: sourceMP / resample.median,
                     unit: "MP/s in", spread: resample.spreadPercent,
                     note: String(format: "%.1f MP of sources from %@", sourceMP,
                                  images.map { "\($0.width)×\($0.height)" }.joined(separator: ", "))))
    // Compositing "over" an opaque background, on target-sized rows.
    let rowPixels = 4096
    var source = [UInt8](repeating: 0, count: rowPixels * 4)
    var rng = SplitMix64(seed: 7)
    for i in 0..<rowPixels { let a = UInt8(i % 5 == 0 ? rng.corpusInt(0...255) : 255); for c in 0..<3 { source[4 * i + c] = UInt8(min(Int(a), rng.corpusInt(0...255))) }; source[4 * i + 3] = a }
    var destination = [UInt8](repeating: 0, count: rowPixels * 3)
    let rows = 2000
    let composite = measure(runs: runs) {
        source.withUnsafeBufferPointer { src in
            destination.withUnsafeMutableBufferPointer { dst in
                for _ in 0..<rows { compositeOver(background: .white, source: src, into: dst, channels: 3) }
            }
        }
    }
    record(ResultRow(stage: "composite", metric: "over white → RGB, 1 thread",
                     value: Double(rowPixels * rows) / 1e6 / composite.median, unit: "MP/s", spread: composite.spreadPercent))
}

func encodeStage(sheetPath: String, runs: Int, sweep: Bool) throws {
    let decoded = try PNGDecoder.decodeRGBA(contentsOfFile: sheetPath)
    var rgb = [UInt8](repeating: 0, count: decoded.width * decoded.height * 3)
    for i in 0..<(decoded.width * decoded.height) { for c in 0..<3 { rgb[3 * i + c] = decoded.pixels[4 * i + c] } }
    let mp = Double(decoded.width * decoded.height) / 1e6
    var settings: [(String, PNGEncodingSettings, Int)] = [
        ("default (Masonry run-length deflate, Up; fast is the same)", .default, runs),
        ("zlib 6, RLE, Up (the default until the Swift deflater)", PNGEncodingSettings(level: 6, strategy: .rle, filter: .up), runs),
        ("small (9, filtered, Paeth)", .small, max(1, runs / 3)),
    ]
    if sweep {
        settings += [
            ("6, default, adaptive", PNGEncodingSettings(level: 6, strategy: .default, filter: .adaptive), max(1, runs / 3)),
            ("6, default, Up", PNGEncodingSettings(level: 6, strategy: .default, filter: .up), max(1, runs / 2)),
            ("1, default, Up", PNGEncodingSettings(level: 1, strategy: .default, filter: .up), runs),
            ("1, default, Sub", PNGEncodingSettings(level: 1, strategy: .default, filter: .sub), runs),
            ("3, RLE, Up", PNGEncodingSettings(level: 3, strategy: .rle, filter: .up), runs),
            ("6, RLE, Sub", PNGEncodingSettings(level: 6, strategy: .rle, filter: .sub), runs),
            ("Masonry run-length deflate, Sub", PNGEncodingSettings(compressor: .masonryRLE, filter: .sub), runs),
            ("6, RLE, Paeth", PNGEncodingSettings(level: 6, strategy: .rle, filter: .paeth), runs),
            ("6, RLE, adaptive", PNGEncodingSettings(level: 6, strategy: .rle, filter: .adaptive), runs),
            ("2, default, Up", PNGEncodingSettings(level: 2, strategy: .default, filter: .up), runs),
        ]
    }
    for (name, setting, count) in settings {
        var bytes = 0
        let stats = try measure(warmups: name.hasPrefix("default") ? 1 : 0, runs: count) {
            bytes = try PNGEncoder.encode(pixels: rgb, width: decoded.width, height: decoded.height, format: .rgb8,
                                          settings: setting).count
        }
        record(ResultRow(stage: "encode", metric: "\(decoded.width)×\(decoded.height) RGB, \(name)",
                         value: mp / stats.median, unit: "MP/s", spread: stats.spreadPercent,
                         note: String(format: "%.3f s, %.2f MB out", stats.median, Double(bytes) / 1e6)))
    }
}

// MARK: Main

if CommandLine.arguments.count > 3, CommandLine.arguments[1] == "--spawn-helper" {
    spawnHelperMain(Array(CommandLine.arguments.dropFirst(2)))
}
let benchStart = now()
let options = parseOptions()
let cores = ProcessInfo.processInfo.activeProcessorCount
let runs = options.runs ?? (options.quick ? 3 : 5)
let plan = CorpusPlan.make(quick: options.quick, seed: options.seed)
let corpusRoot = options.corpus ?? (FileManager.default.currentDirectoryPath + (options.quick ? "/.build/bench-corpus-quick" : "/.build/bench-corpus"))

func masonryPath() -> String {
    if let path = options.masonry { return path }
    return (selfExecutablePath() as NSString).deletingLastPathComponent + "/masonry"
}

do {
    let masonry = masonryPath()
    guard FileManager.default.isExecutableFile(atPath: masonry) else {
        fail("no masonry executable at \(masonry): build it first (swift build -c release --product masonry)")
    }
    try FileManager.default.createDirectory(atPath: corpusRoot, withIntermediateDirectories: true)
    if options.captionScriptsOnly {
        try FileManager.default.createDirectory(atPath: corpusRoot + "/out", withIntermediateDirectories: true)
        try captionScriptsStage(masonry: masonry, root: corpusRoot, outDir: corpusRoot + "/out", runs: runs,
                                count: options.quick ? 120 : 240)
        printTable()
        for row in results where !row.note.isEmpty { print("  \(row.stage) / \(row.metric): \(row.note)") }
        exit(0)
    }
    if options.processOnly || options.ciSummary {
        try FileManager.default.createDirectory(atPath: corpusRoot + "/out", withIntermediateDirectories: true)
        try processStage(masonry: masonry, root: corpusRoot + "/process", outDir: corpusRoot + "/out",
                         runs: options.runs ?? (options.ciSummary ? 3 : runs), cores: cores, quick: options.ciSummary)
        printTable()
        for row in results where !row.note.isEmpty { print("  \(row.stage) / \(row.metric): \(row.note)") }
        exit(0)
    }
    if options.planScaleOnly {
        try FileManager.default.createDirectory(atPath: corpusRoot + "/out", withIntermediateDirectories: true)
        try planScaleStage(masonry: masonry, root: corpusRoot + "/plan-scale", outDir: corpusRoot + "/out", runs: runs)
        printTable()
        for row in results where !row.note.isEmpty { print("  \(row.stage) / \(row.metric): \(row.note)") }
        exit(0)
    }
    try prepareCorpus(at: corpusRoot, plan: plan, log: log)
    let outDir = corpusRoot + "/out"
    try FileManager.default.createDirectory(atPath: outDir, withIntermediateDirectories: true)

    // Largest files first, so the all-cores floor is balanced as well as it can be.
    let photos = listPNGs(corpusRoot + "/photos")
    let sizes = photos.map { (try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) ?? 0 }
    let bySize = zip(photos, sizes).sorted { $0.1 > $1.1 }.map(\.0)
    let headers = try photos.map { try readHeader($0) }
    let megapixels = Double(headers.reduce(0) { $0 + $1.pixelCount }) / 1e6
    let megabytes = Double(sizes.reduce(0, +)) / 1e6
    log(String(format: "corpus: %d photos, %.1f MP, %.1f MB; %d cores; %d runs per stage", photos.count, megapixels,
               megabytes, cores, runs))

    if options.floorOnly {
        // Diagnostics: alternate the 1-thread and all-cores floors to see the machine's real speed-up.
        for _ in 0..<runs {
            var t = now(), c = processCPUSeconds()
            for path in bySize { _ = try decodeAndDiscard(path) }
            let one = (now() - t, processCPUSeconds() - c)
            t = now(); c = processCPUSeconds()
            decodeAllCores(bySize, cores: cores)
            let all = (now() - t, processCPUSeconds() - c)
            print(String(format: "floor 1 thread %.2f s (CPU %.2f), %d threads %.2f s (CPU %.2f)", one.0, one.1, cores, all.0, all.1))
        }
        exit(0)
    }
    let comparePairs = options.quick ? 20 : 40
    if options.smallFilesOnly {
        guard let smallFiles = try smallFilesCorpus(in: corpusRoot + "/small-files") else {
            fail("small files: openclipart-png is not installed (apt-get install openclipart-png)")
        }
        try smallFilesStage(paths: smallFiles, folder: corpusRoot + "/small-files", output: outDir + "/small-files.png",
                            masonry: masonry, runs: runs, cores: cores)
        printTable()
        for row in results where !row.note.isEmpty { print("  \(row.stage) / \(row.metric): \(row.note)") }
        exit(0)
    }
    let formatPhotos = options.quick ? 12 : 40
    if options.formatsOnly {
        try formatsStage(photosFolder: corpusRoot + "/photos", root: corpusRoot, masonry: masonry, outDir: outDir,
                         cores: cores, runs: runs, count: formatPhotos)
        printTable()
        for row in results where !row.note.isEmpty { print("  \(row.stage) / \(row.metric): \(row.note)") }
        exit(0)
    }
    if options.rawOnly {
        try rawStage(photosFolder: corpusRoot + "/photos", corpus: corpusRoot + "/formats", masonry: masonry, outDir: outDir,
                     cores: cores, runs: runs, count: formatPhotos)
        printTable()
        for row in results where !row.note.isEmpty { print("  \(row.stage) / \(row.metric): \(row.note)") }
        exit(0)
    }
    if options.svgOnly {
        try svgStage(corpus: corpusRoot + "/formats", masonry: masonry, outDir: outDir, cores: cores, runs: runs, count: formatPhotos)
        printTable()
        for row in results where !row.note.isEmpty { print("  \(row.stage) / \(row.metric): \(row.note)") }
        exit(0)
    }
    if options.jxlOnly {
        // 40 photos even in --quick (its corpus has 48): the issue's count.
        try jxlStage(photosFolder: corpusRoot + "/photos", corpus: corpusRoot + "/formats", masonry: masonry, outDir: outDir,
                     cores: cores, runs: runs, count: 40)
        printTable()
        for row in results where !row.note.isEmpty { print("  \(row.stage) / \(row.metric): \(row.note)") }
        exit(0)
    }
    if options.tiffOnly {
        try tiffStage(photosFolder: corpusRoot + "/photos", corpus: corpusRoot + "/formats", masonry: masonry, outDir: outDir,
                      cores: cores, runs: runs, count: formatPhotos)
        printTable()
        for row in results where !row.note.isEmpty { print("  \(row.stage) / \(row.metric): \(row.note)") }
        exit(0)
    }
    if options.colorOnly {
        try benchColor(photos: photos, corpusRoot: corpusRoot, masonry: masonry, outDir: outDir, cores: cores, runs: runs)
        printTable()
        for row in results where !row.note.isEmpty { print("  \(row.stage) / \(row.metric): \(row.note)") }
        exit(0)
    }
    if options.compareOnly {
        try compareStage(masonry: masonry, root: corpusRoot, runs: runs, cores: cores, pairs: comparePairs)
        printTable()
        for row in results where !row.note.isEmpty { print("  \(row.stage) / \(row.metric): \(row.note)") }
        exit(0)
    }
    let ciPairs = options.quick ? 200 : 2000
    if options.compareCIOnly {
        try compareRulesStage(masonry: masonry, root: corpusRoot, runs: runs, cores: cores, pairs: ciPairs)
        printTable()
        for row in results where !row.note.isEmpty { print("  \(row.stage) / \(row.metric): \(row.note)") }
        exit(0)
    }
    try headerPass(folder: corpusRoot + "/headers", runs: runs, cores: cores)
    try layoutStage(runs: runs)
    let single = try decodeFloorSingle(paths: bySize, runs: max(1, runs / 2 + 1), megapixels: megapixels)

    // The whole run, interleaved with the all-cores floor so both see the same machine load.
    let sheet = outDir + "/sheet.png"
    var floorSamples: [Double] = [], floorCPU: [Double] = [], wall: [Double] = [], cpu: [Double] = [], rss: [Int] = [], ratios: [Double] = []
    var compactSamples: [Double] = [], compactCPU: [Double] = [], compactRatios: [Double] = []
    var fastSamples: [Double] = [], fastRatios: [Double] = []
    decodeAllCores(bySize, cores: cores)                                      // warm-up
    _ = try runChild(masonry, [corpusRoot + "/photos", "-o", sheet, "-q"])     // warm-up
    for _ in 0..<runs {
        var start = now(), startCPU = processCPUSeconds()
        decodeAllCores(bySize, cores: cores)
        let floorTime = now() - start
        floorCPU.append(processCPUSeconds() - startCPU)
        start = now(); startCPU = processCPUSeconds()
        decodeAllCores(bySize, cores: cores, compact: true)
        let compactTime = now() - start
        compactCPU.append(processCPUSeconds() - startCPU)
        start = now()
        fastFloor(bySize, cores: cores)
        let fastTime = now() - start
        let child = try runChild(masonry, [corpusRoot + "/photos", "-o", sheet, "-q"])
        guard child.exitStatus == 0 else { throw BenchError("masonry exited with \(child.exitStatus)") }
        floorSamples.append(floorTime); wall.append(child.wallSeconds); cpu.append(child.cpuSeconds)
        rss.append(child.peakRSSBytes); ratios.append(child.wallSeconds / floorTime)
        compactSamples.append(compactTime); compactRatios.append(child.wallSeconds / compactTime)
        fastSamples.append(fastTime); fastRatios.append(child.wallSeconds / fastTime)
    }
    let floorAll = Stats(samples: floorSamples)
    record(ResultRow(stage: "decode floor", metric: "libpng, \(cores) threads", value: floorAll.median, unit: "s",
                     spread: floorAll.spreadPercent,
                     note: String(format: "%.1f MP/s; speed-up %.2f× over 1 thread; CPU %.2f s", megapixels / floorAll.median,
                                  single.median / floorAll.median, Stats(samples: floorCPU).median)))
    let compactFloor = Stats(samples: compactSamples)
    record(ResultRow(stage: "decode floor", metric: "\(cores) threads, opaque files to RGB/grey", value: compactFloor.median,
                     unit: "s", spread: compactFloor.spreadPercent,
                     note: String(format: "as masonry decodes: %.2f× the RGBA8 floor; CPU %.2f s",
                                  compactFloor.median / floorAll.median, Stats(samples: compactCPU).median)))
    let fastFloorStats = Stats(samples: fastSamples)
    record(ResultRow(stage: "decode floor", metric: "fast path, \(cores) threads, compact rows", value: fastFloorStats.median,
                     unit: "s", spread: fastFloorStats.spreadPercent,
                     note: String(format: "the best decode here: %.2f× the libpng floor", fastFloorStats.median / floorAll.median)))
    let wallStats = Stats(samples: wall), cpuStats = Stats(samples: cpu)
    record(ResultRow(stage: "masonry", metric: "wall time, \(photos.count) images", value: wallStats.median, unit: "s",
                     spread: wallStats.spreadPercent))
    record(ResultRow(stage: "masonry", metric: "CPU time (user+sys)", value: cpuStats.median, unit: "s",
                     spread: cpuStats.spreadPercent,
                     note: String(format: "%.2f× the decode floor's CPU time (%.2f s)", cpuStats.median / Stats(samples: floorCPU).median,
                                  Stats(samples: floorCPU).median)))
    record(ResultRow(stage: "masonry", metric: "peak RSS", value: Double(rss.max() ?? 0) / 1_048_576, unit: "MiB"))
    let ratio = Stats(samples: ratios)
    record(ResultRow(stage: "masonry", metric: "wall ÷ libpng floor (same round)", value: ratio.median, unit: "×",
                     spread: ratio.spreadPercent, goal: "≤ 0.85 (stretch 0.7)", pass: ratio.median <= 0.85,
                     note: String(format: "per round: %@; ratio of medians %.3f",
                                  ratios.map { String(format: "%.3f", $0) }.joined(separator: " "),
                                  wallStats.median / floorAll.median)))
    let compactRatio = Stats(samples: compactRatios)
    record(ResultRow(stage: "masonry", metric: "wall ÷ compact floor (same round)", value: compactRatio.median, unit: "×",
                     spread: compactRatio.spreadPercent,
                     note: "the same ratio against masonry's own, cheaper decode"))
    let fastRatio = Stats(samples: fastRatios)
    record(ResultRow(stage: "masonry", metric: "wall ÷ fast floor (same round)", value: fastRatio.median, unit: "×",
                     spread: fastRatio.spreadPercent, note: "against the best decode this machine does"))
    if let smallFiles = try smallFilesCorpus(in: corpusRoot + "/small-files") {
        try smallFilesStage(paths: smallFiles, folder: corpusRoot + "/small-files", output: outDir + "/small-files.png",
                            masonry: masonry, runs: runs, cores: cores)
    } else {
        log("small files: openclipart-png is not installed (apt-get install openclipart-png); stage skipped")
    }

    try resampleStage(paths: bySize, runs: runs, columnWidth: 290)
    try encodeStage(sheetPath: sheet, runs: runs, sweep: options.sweep)
    try featureStages(masonry: masonry, corpusRoot: corpusRoot, outDir: outDir, photoCount: photos.count, runs: runs)
    try captionScriptsStage(masonry: masonry, root: corpusRoot, outDir: outDir, runs: runs, count: options.quick ? 120 : 240)
    try benchJPEG(photos: photos, corpusRoot: corpusRoot, masonry: masonry, outDir: outDir, cores: cores, runs: runs)
    try benchColor(photos: photos, corpusRoot: corpusRoot, masonry: masonry, outDir: outDir, cores: cores, runs: runs)
    try formatsStage(photosFolder: corpusRoot + "/photos", root: corpusRoot, masonry: masonry, outDir: outDir,
                     cores: cores, runs: runs, count: formatPhotos)

    let wallRun = try runChild(masonry, [corpusRoot + "/wall", "-c", "4", "-j", "\(cores)", "-o", outDir + "/wall.png", "-q"])
    guard wallRun.exitStatus == 0 else { throw BenchError("masonry (wall) exited with \(wallRun.exitStatus)") }
    let wallMiB = Double(wallRun.peakRSSBytes) / 1_048_576
    record(ResultRow(stage: "memory", metric: "peak RSS, \(plan.wallCount) images in 4 columns", value: wallMiB,
                     unit: "MiB", goal: "< 256", pass: wallMiB < 256,
                     note: String(format: "%.2f s wall", wallRun.wallSeconds)))
    if !options.skipHuge {
        let side = plan.hugeSide
        let huge = try runChild(masonry, [corpusRoot + "/huge/huge.png", "--max-pixels", "400000000", "-o",
                                          outDir + "/huge.png", "-q"])
        guard huge.exitStatus == 0 else { throw BenchError("masonry (huge) exited with \(huge.exitStatus)") }
        let hugeMiB = Double(huge.peakRSSBytes) / 1_048_576
        record(ResultRow(stage: "memory", metric: "peak RSS, one \(side)×\(side) input", value: hugeMiB, unit: "MiB",
                         goal: "< 128", pass: hugeMiB < 128, note: String(format: "%.2f s wall", huge.wallSeconds)))
    }
    try compareStage(masonry: masonry, root: corpusRoot, runs: runs, cores: cores, pairs: comparePairs)
    try compareRulesStage(masonry: masonry, root: corpusRoot, runs: runs, cores: cores, pairs: ciPairs)

    print(String(format: "masonry-bench%@: %d photos, %.1f MP, %.1f MB; %d cores; median of %d runs; spread = ±(max-min)/2 of the median",
                 options.quick ? " --quick" : "", photos.count, megapixels, megabytes, cores, runs))
    printTable()
    for row in results where !row.note.isEmpty { print("  \(row.stage) / \(row.metric): \(row.note)") }
    if let path = options.json {
        try writeJSON(to: path, context: [
            ("mode", options.quick ? "quick" : "full"), ("seed", "\(options.seed)"), ("cores", "\(cores)"),
            ("runs", "\(runs)"), ("photos", "\(photos.count)"), ("megapixels", String(format: "%.1f", megapixels)),
            ("megabytes", String(format: "%.1f", megabytes)), ("masonry", masonry),
        ])
        log("wrote \(path)")
    }
} catch {
    fail("\(error)")
}
