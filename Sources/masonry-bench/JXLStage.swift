import Foundation
import CodecCore
import JXLCodec

// The JPEG XL stage (issue #31 §3): the bench's photos turned once into JPEG XL by cjxl
// (scripts/make-bench-format-corpus.py, `jxl`: lossy, distance 1, as cameras and browsers
// write it), then, round by round, interleaved:
//   - the floor: libjxl alone decodes every file's first frame in full to 8-bit RGBA, one
//     decode a core on the calling thread (no parallel runner), as the sheet's workers do: as a
//     whole process (`masonry-floor jxl`) and in the bench's process;
//   - masonry on the folder (default layout, one page).
// libjxl 0.7 has no cheaper sufficient level (its DC image is flushed at full size, SPEC §12),
// so the full decode is the floor. Goal: the sheet at most 1.1× the floor.

func jxlStage(photosFolder: String, corpus: String, masonry: String, outDir: String, cores: Int, runs: Int, count: Int) throws {
    let folder = corpus + "/jxl"
    if files(in: folder).count < count {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/make-bench-format-corpus.py").path
        log("formats corpus: converting \(count) photos to JPEG XL with cjxl (one-off)")
        try? FileManager.default.removeItem(atPath: folder)
        guard let result = try? runChild("/usr/bin/env", ["python3", script, photosFolder, corpus, "\(count)", "jxl"], quiet: false),
              result.exitStatus == 0 else {
            log("formats corpus: the JPEG XL conversion failed (needs cjxl, Debian's libjxl-tools); JPEG XL skipped")
            return
        }
    }
    let paths = files(in: folder)
    guard paths.count >= count else { throw BenchError("jxl: \(paths.count) files in \(folder), \(count) wanted") }
    let floors = FormatFloors(stage: "jxl", floorName: "libjxl's own full decode", processKind: "jxl") {
        (try? JXLDecoder.libraryFloorDecode(file: InputFile(path: $0))) ?? 0
    }
    try compareSheetWithFloors(floors, folder: folder, paths: paths, masonry: masonry, outDir: outDir, cores: cores, runs: runs)
}
