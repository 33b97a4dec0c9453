import Foundation
import JPEGCodec
import CodecCore
import PNGCodec
import Raster
import WorkerThreads

// The JPEG stage (issue #16): the bench's photo corpus re-encoded as JPEG (quality 90, 4:2:0,
// every fourth file progressive), then
//   - the JPEG floor: a full-size libjpeg-turbo decode of every file on all cores, and
//   - the tile path: decode at the DCT scale chosen for a `columnWidth`-wide tile, resample to
//     the tile, orient, composite over white, on all cores,
//   - masonry itself on the JPEG folder (one page),
// interleaved round by round so all see the same machine load.

/// Re-encodes `photos` (PNG) as JPEG under `corpusRoot/jpeg` once (reused while a marker
/// file matches) and returns the JPEG paths, largest first.
func prepareJPEGCorpus(photos: [String], corpusRoot: String, cores: Int) throws -> [String] {
    let folder = corpusRoot + "/jpeg"
    let marker = folder + "/manifest.txt"
    let manifest = "masonry-bench jpeg corpus v1\nquality 90, 4:2:0, every 4th progressive\n"
        + photos.map { ($0 as NSString).lastPathComponent }.joined(separator: "\n") + "\n"
    let paths = photos.map { folder + "/" + (($0 as NSString).lastPathComponent as NSString).deletingPathExtension + ".jpg" }
    if (try? String(contentsOfFile: marker, encoding: .utf8)) != manifest {
        log("jpeg corpus: encoding \(photos.count) photos into \(folder) (one-off)")
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let failures = parallelMap(count: photos.count, jobs: cores) { index -> String? in
            do {
                let image = try PNGDecoder.decodeRGBA(contentsOfFile: photos[index])
                var rgb = [UInt8](repeating: 0, count: image.width * image.height * 3)
                for pixel in 0 ..< image.width * image.height {
                    // Over white, as a sheet would show a transparent photo.
                    let alpha = Int(image.pixels[4 * pixel + 3])
                    for channel in 0..<3 {
                        let value = Int(image.pixels[4 * pixel + channel])
                        rgb[3 * pixel + channel] = UInt8((value * alpha + 255 * (255 - alpha) + 127) / 255)
                    }
                }
                let jpeg = try JPEGEncoder.encode(rgb: rgb, width: image.width, height: image.height,
                                                  quality: 90, progressive: index % 4 == 3)
                try Data(jpeg).write(to: URL(fileURLWithPath: paths[index]))
                return nil
            } catch {
                return "\(photos[index]): \(error)"
            }
        }.compactMap { $0 }
        if let failure = failures.first { throw BenchError("jpeg corpus: \(failure)") }
        try manifest.write(toFile: marker, atomically: true, encoding: .utf8)
    }
    let sizes = paths.map { (try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) ?? 0 }
    return zip(paths, sizes).sorted { $0.1 > $1.1 }.map(\.0)
}

/// Decodes one JPEG at full size and discards the rows; returns the pixel count.
func decodeJPEGFullSize(_ path: String) throws -> Int {
    let file = try InputFile(path: path)
    let header = try JPEGHeader(file: file)
    // Asking for the full size as the minimum makes every smaller scale too small.
    let decoder = try JPEGDecoder(file: file, limits: DecodeLimits(), minimumWidth: header.width, minimumHeight: header.height)
    var sink: UInt8 = 0
    try decoder.readRows { _, row in sink &+= row[row.count - 1] }
    if sink == 1 { FileHandle.nullDevice.write(Data([sink])) }   // keep the read observable
    return header.width * header.height
}

/// Decodes one JPEG at the scale chosen for a `columnWidth`-wide tile and discards the rows:
/// the decode share of the tile path.
func decodeJPEGScaled(_ path: String, columnWidth: Int) throws {
    let file = try InputFile(path: path)
    let header = try JPEGHeader(file: file)
    let tileHeight = min(4 * columnWidth, max(1, (2 * columnWidth * header.displayHeight + header.displayWidth) / (2 * header.displayWidth)))
    let (width, height) = header.orientation.displaySize(width: columnWidth, height: tileHeight)
    let decoder = try JPEGDecoder(file: file, limits: DecodeLimits(), minimumWidth: width, minimumHeight: height)
    var sink: UInt8 = 0
    try decoder.readRows { _, row in sink &+= row[row.count - 1] }
    if sink == 1 { FileHandle.nullDevice.write(Data([sink])) }
}

/// One JPEG as a sheet tile `columnWidth` wide (height by SPEC §1, capped at 4×): decode at
/// scale, resample in stored orientation, orient, composite over white. Returns the scale.
func renderJPEGTile(_ path: String, columnWidth: Int) throws -> Int {
    let file = try InputFile(path: path)
    let header = try JPEGHeader(file: file)
    let (shownWidth, shownHeight) = (header.displayWidth, header.displayHeight)
    let tileHeight = min(4 * columnWidth, max(1, (2 * columnWidth * shownHeight + shownWidth) / (2 * shownWidth)))
    let (width, height) = header.orientation.displaySize(width: columnWidth, height: tileHeight)
    let decoder = try JPEGDecoder(file: file, limits: DecodeLimits(), minimumWidth: width, minimumHeight: height)
    let resampler = StreamingResampler(sourceWidth: decoder.outputWidth, sourceHeight: decoder.outputHeight,
                                       targetWidth: width, targetHeight: height,
                                       sourceFormat: decoder.rowFormat, sourceExtent: decoder.extent)
    var tile = [UInt8]()
    tile.reserveCapacity(width * height * 4)
    try decoder.readRows { _, row in resampler.push(row: row) { _, target in tile.append(contentsOf: target) } }
    let shown = header.orientation.apply(to: tile, width: width, height: height)
    var sheetRows = [UInt8](repeating: 0, count: columnWidth * tileHeight * 3)
    shown.withUnsafeBufferPointer { source in
        sheetRows.withUnsafeMutableBufferPointer { destination in
            compositeOver(background: .white, source: source, into: destination, channels: 3)
        }
    }
    if sheetRows.last == 1 { FileHandle.nullDevice.write(Data([1])) }
    return decoder.scaleEighths
}

/// Records the JPEG floor (full-size decode, all cores), the tile path (scaled decode +
/// resample + orient + composite, all cores) and their ratio; the goal is ≤ 0.8× (stretch 0.6×).
func benchJPEG(photos: [String], corpusRoot: String, masonry: String, outDir: String, cores: Int, runs: Int,
               columnWidth: Int = 290) throws {
    let jpegs = try prepareJPEGCorpus(photos: photos, corpusRoot: corpusRoot, cores: cores)
    let pixels = try jpegs.reduce(0) { total, path in
        let header = try JPEGHeader(file: InputFile(path: path))
        return total + header.width * header.height
    }
    let megabytes = Double(jpegs.reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: $1)[.size] as? Int) ?? 0) }) / 1e6
    let scales = try jpegs.map { try renderJPEGTile($0, columnWidth: columnWidth) }   // also the warm-up
    _ = parallelMap(count: jpegs.count, jobs: cores) { _ = try? decodeJPEGFullSize(jpegs[$0]) }
    let histogram = (1...8).compactMap { n in
        let count = scales.filter { $0 == n }.count
        return count == 0 ? nil : "\(count)×\(n)/8"
    }.joined(separator: " ")
    log(String(format: "jpeg corpus: %d files, %.1f MP, %.1f MB; scales for %d px tiles: %@",
               jpegs.count, Double(pixels) / 1e6, megabytes, columnWidth, histogram))

    // Wall time and process CPU time of one all-cores pass over the corpus.
    func pass(_ body: @escaping @Sendable (String) -> Void) -> (wall: Double, cpu: Double) {
        let (start, startCPU) = (now(), processCPUSeconds())
        _ = parallelMap(count: jpegs.count, jobs: cores) { body(jpegs[$0]) }
        return (now() - start, processCPUSeconds() - startCPU)
    }
    var floor: [Double] = [], tiles: [Double] = [], ratios: [Double] = [], cpuRatios: [Double] = [], decodes: [Double] = []
    var sheets: [Double] = [], sheetRatios: [Double] = []
    for _ in 0..<runs {
        let full = pass { _ = try? decodeJPEGFullSize($0) }
        let sheet = try runChild(masonry, [corpusRoot + "/jpeg", "-o", outDir + "/jpeg-sheet.png", "--page-height", "0", "-q"])
        guard sheet.exitStatus == 0 else { throw BenchError("masonry (jpeg) exited with \(sheet.exitStatus)") }
        sheets.append(sheet.wallSeconds); sheetRatios.append(sheet.wallSeconds / full.wall)
        let tile = pass { _ = try? renderJPEGTile($0, columnWidth: columnWidth) }
        let decode = pass { try? decodeJPEGScaled($0, columnWidth: columnWidth) }
        floor.append(full.wall); tiles.append(tile.wall)
        ratios.append(tile.wall / full.wall); cpuRatios.append(tile.cpu / full.cpu); decodes.append(decode.cpu / full.cpu)
    }
    let floorStats = Stats(samples: floor), tileStats = Stats(samples: tiles), ratio = Stats(samples: ratios)
    let cpuRatio = Stats(samples: cpuRatios), decodeShare = Stats(samples: decodes)
    let sheetRatio = Stats(samples: sheetRatios)
    record(ResultRow(stage: "jpeg masonry", metric: "masonry on the JPEG corpus ÷ JPEG floor, wall (same round)",
                     value: sheetRatio.median, unit: "×", spread: sheetRatio.spreadPercent, goal: "≤ 0.8 (stretch 0.6)",
                     pass: sheetRatio.median <= 0.8,
                     note: String(format: "masonry %.2f s wall (median); per round: %@", Stats(samples: sheets).median,
                                  sheetRatios.map { String(format: "%.3f", $0) }.joined(separator: " "))))
    record(ResultRow(stage: "jpeg floor", metric: "full-size decode, \(cores) threads", value: floorStats.median, unit: "s",
                     spread: floorStats.spreadPercent,
                     note: String(format: "%.1f MP/s", Double(pixels) / 1e6 / floorStats.median)))
    record(ResultRow(stage: "jpeg tiles", metric: "scaled decode + resample to \(columnWidth) px, \(cores) threads",
                     value: tileStats.median, unit: "s", spread: tileStats.spreadPercent, note: "scales: \(histogram)"))
    record(ResultRow(stage: "jpeg tiles", metric: "tiles ÷ JPEG floor, wall (same round)", value: ratio.median, unit: "×",
                     spread: ratio.spreadPercent, goal: "≤ 0.8 (stretch 0.6)", pass: ratio.median <= 0.8,
                     note: "per round: " + ratios.map { String(format: "%.3f", $0) }.joined(separator: " ")))
    record(ResultRow(stage: "jpeg tiles", metric: "tiles ÷ JPEG floor, CPU time (same round)", value: cpuRatio.median, unit: "×",
                     spread: cpuRatio.spreadPercent, note: "steadier than wall time on a shared machine"))
    record(ResultRow(stage: "jpeg tiles", metric: "scaled decode alone ÷ JPEG floor, CPU time", value: decodeShare.median,
                     unit: "×", spread: decodeShare.spreadPercent, note: "the decode's share of the tile path"))
}
