import Foundation
import MasonrySheet
import CodecCore
import PNGCodec
import TIFFCodec
import WorkerThreads

// The round-3 formats stage (issue #22): the bench's photos converted once to WebP, GIF, HEIC
// (with and without a 320 px thumbnail) and AVIF by scripts/make-bench-format-corpus.py, then
// for each format, round by round so both see the same machine load:
//   - the format's floor: a full-size decode of every file on all cores with the same library
//     (through the format table, as masonry decodes), and
//   - masonry on the folder (one page, 4 columns of 290 px),
// with the ratio of the two, and masonry's peak RSS.

/// One format folder of the corpus and its goal.
private struct FormatCorpus {
    let folder: String
    let formatName: String
    let goal: Double
}

private let formatCorpora = [
    FormatCorpus(folder: "webp", formatName: "WebP", goal: 1.1),
    FormatCorpus(folder: "gif", formatName: "GIF", goal: 1.5),
    FormatCorpus(folder: "heic", formatName: "HEIF", goal: 1.1),
    FormatCorpus(folder: "avif", formatName: "AVIF", goal: 1.1),
]

/// Makes the corpus under `root/formats` once (a marker file records it), with the project's
/// Python script; returns nil (the stage is skipped) when Python, Pillow or pillow-heif are missing.
private func prepareFormatCorpus(photosFolder: String, root: String, count: Int) -> String? {
    let folder = root + "/formats"
    let marker = folder + "/made-by-make-bench-format-corpus-\(count).txt"
    if FileManager.default.fileExists(atPath: marker) { return folder }
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/make-bench-format-corpus.py").path
    log("formats corpus: converting \(count) photos with \(script) (one-off)")
    try? FileManager.default.removeItem(atPath: folder)
    guard let result = try? runChild("/usr/bin/env", ["python3", script, photosFolder, folder, "\(count)"], quiet: false),
          result.exitStatus == 0 else {
        log("formats corpus: the conversion failed (scripts/make-bench-format-corpus.py needs python3 with Pillow, tifffile "
            + "and imagecodecs, and heif-enc from Debian's libheif-examples); stage skipped")
        return nil
    }
    _ = FileManager.default.createFile(atPath: marker, contents: Data())
    return folder
}

/// Decodes one file at full size through the format table and discards the rows.
private func decodeFullSize(_ path: String) throws -> Int {
    let (_, decoder) = try ImageFormats.fullSizeDecoder(for: InputFile(path: path), limits: DecodeLimits())
    var sink: UInt8 = 0
    try decoder.readRows { _, row in sink &+= row[row.count - 1] }
    if sink == 1 { FileHandle.nullDevice.write(Data([sink])) }   // keep the read observable
    return decoder.width * decoder.height
}

func files(in folder: String) -> [String] {
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    let paths = names.map { folder + "/" + $0 }
    let sizes = paths.map { (try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) ?? 0 }
    return zip(paths, sizes).sorted { $0.1 > $1.1 }.map(\.0)   // largest first balances the floor
}

/// The formats stage: per format, the sheet against the format's floor; for HEIC with 320 px
/// thumbnails, the sheet at 8, 4 and 2 columns against the same files without thumbnails.
func formatsStage(photosFolder: String, root: String, masonry: String, outDir: String, cores: Int, runs: Int,
                  count: Int) throws {
    guard let corpus = prepareFormatCorpus(photosFolder: photosFolder, root: root, count: count) else { return }
    let known = Set(ImageFormats.all.map(\.name))
    for entry in formatCorpora {
        guard known.contains(entry.formatName) else {
            log("formats: \(entry.formatName) is not in the format table; skipped")
            continue
        }
        let folder = corpus + "/" + entry.folder
        let paths = files(in: folder)
        guard !paths.isEmpty else { throw BenchError("formats: no files in \(folder)") }
        let pixels = paths.reduce(0) { $0 + ((try? decodeFullSize($1)) ?? 0) }   // also the warm-up
        _ = try runChild(masonry, [folder, "-o", outDir + "/\(entry.folder)-sheet.png", "--page-height", "0", "-q"])
        var ratios: [Double] = [], cpuRatios: [Double] = [], floors: [Double] = [], sheets: [Double] = [], rss: [Int] = []
        for _ in 0..<runs {
            let start = now(), startCPU = processCPUSeconds()
            _ = parallelMap(count: paths.count, jobs: cores) { _ = try? decodeFullSize(paths[$0]) }
            let floor = now() - start, floorCPU = processCPUSeconds() - startCPU
            let sheet = try runChild(masonry, [folder, "-o", outDir + "/\(entry.folder)-sheet.png", "--page-height", "0", "-q"])
            guard sheet.exitStatus == 0 else { throw BenchError("masonry (\(entry.folder)) exited with \(sheet.exitStatus)") }
            floors.append(floor); sheets.append(sheet.wallSeconds); rss.append(sheet.peakRSSBytes)
            ratios.append(sheet.wallSeconds / floor)
            cpuRatios.append(sheet.cpuSeconds / floorCPU)
        }
        let ratio = Stats(samples: ratios), floor = Stats(samples: floors), sheet = Stats(samples: sheets)
        record(ResultRow(stage: "\(entry.folder)", metric: "masonry ÷ \(entry.formatName) floor, wall (same round)",
                         value: ratio.median, unit: "×", spread: ratio.spreadPercent, goal: "≤ \(entry.goal)",
                         pass: ratio.median <= entry.goal,
                         note: String(format: "%d files, %.1f MP; floor %.2f s (%.1f MP/s), masonry %.2f s; CPU time masonry ÷ floor %.3f; peak RSS %.1f MiB; per round: %@",
                                      paths.count, Double(pixels) / 1e6, floor.median, Double(pixels) / 1e6 / floor.median,
                                      sheet.median, Stats(samples: cpuRatios).median, Double(rss.max() ?? 0) / 1_048_576,
                                      ratios.map { String(format: "%.3f", $0) }.joined(separator: " "))))
    }
    if known.contains("TIFF") {
        try tiffStage(photosFolder: photosFolder, corpus: corpus, masonry: masonry, outDir: outDir, cores: cores, runs: runs,
                      count: count)
    }
    guard known.contains("HEIF") else { return }
    // HEIC with 320 px thumbnails: a thumbnail serves a tile of at most 160 px (twice the tile).
    let plain = corpus + "/heic", thumbnails = corpus + "/heic-thumbnails"
    for columns in [8, 4, 2] {
        var ratios: [Double] = [], withThumbnails: [Double] = []
        for _ in 0..<runs {
            let a = try runChild(masonry, [plain, "-c", "\(columns)", "-o", outDir + "/heic-plain.png", "--page-height", "0", "-q"])
            let b = try runChild(masonry, [thumbnails, "-c", "\(columns)", "-o", outDir + "/heic-thumbnails.png", "--page-height", "0", "-q"])
            guard a.exitStatus == 0, b.exitStatus == 0 else { throw BenchError("masonry (heic, \(columns) columns) failed") }
            withThumbnails.append(b.wallSeconds); ratios.append(b.wallSeconds / a.wallSeconds)
        }
        let ratio = Stats(samples: ratios)
        let tile = (1200 - 16 - 8 * (columns - 1)) / columns
        record(ResultRow(stage: "heic thumbnails", metric: "\(columns) columns (\(tile) px tiles): with ÷ without 320 px thumbnails",
                         value: ratio.median, unit: "×", spread: ratio.spreadPercent,
                         note: String(format: "with thumbnails %.2f s; the thumbnail %@ (it must be at least twice the tile)",
                                      Stats(samples: withThumbnails).median, 320 >= 2 * tile ? "serves these tiles" : "is too small")))
    }
}

/// TIFF against libtiff's own full decode (issue #31's floor: every strip or tile of the first
/// page through TIFFReadEncodedStrip/Tile, no conversion), as a whole process (`masonry-floor
/// tiff`) and in the bench's process on all cores, round by round with masonry on the folder;
/// also Masonry's full-size decode (the bridge's conversion to 8-bit rows) against the
/// in-process floor. The folder is added to an older corpus when it lacks it.
func tiffStage(photosFolder: String, corpus: String, masonry: String, outDir: String, cores: Int, runs: Int,
                       count: Int) throws {
    let folder = corpus + "/tiff"
    if files(in: folder).isEmpty {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/make-bench-format-corpus.py").path
        log("formats corpus: converting \(count) photos to TIFF (one-off)")
        guard let result = try? runChild("/usr/bin/env", ["python3", script, photosFolder, corpus, "\(count)", "tiff"], quiet: false),
              result.exitStatus == 0 else {
            log("formats corpus: the TIFF conversion failed (needs python3 with tifffile and imagecodecs); TIFF skipped")
            return
        }
    }
    let paths = files(in: folder)
    guard !paths.isEmpty else { throw BenchError("formats: no files in \(folder)") }
    let floors = FormatFloors(stage: "tiff", floorName: "libtiff's own full decode", processKind: "tiff") {
        (try? TIFFDecoder.libraryFloorDecode(file: InputFile(path: $0))) ?? 0
    }
    let decodeRatios = try compareSheetWithFloors(floors, folder: folder, paths: paths, masonry: masonry, outDir: outDir,
                                                  cores: cores, runs: runs) { _ = try? decodeFullSize($0) }
    let decode = Stats(samples: decodeRatios)
    record(ResultRow(stage: "tiff", metric: "Masonry's full-size decode (8-bit rows) ÷ libtiff's own in the bench's process, wall (same round)",
                     value: decode.median, unit: "×", spread: decode.spreadPercent))
}
