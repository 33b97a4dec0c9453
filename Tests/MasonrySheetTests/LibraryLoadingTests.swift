import Foundation
import Testing
import TestSupport

/// Issue #34, goal 3: a run pays for a format's decoding library only when it reads a file of
/// that format. libheif (with libde265, dav1d, aom and x265) and libtiff (with zstd, lzma, LERC
/// and JBIG) and LibRaw (OpenMP, libstdc++) are loaded by their bridges on first use (`mb_library_load`), not linked. Seen from
/// outside: the dynamic loader's own report (`LD_DEBUG=files`) of every file it loads.
@Suite struct LibraryLoadingTests {
    static let samples = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/Formats")

    /// The shared libraries the loader brought in while `masonry` drew a sheet of `samples`
    /// (or, with `options`, did what they ask).
    static func librariesLoaded(drawing samples: [String], options: [String] = []) throws -> Set<String> {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("in"), withIntermediateDirectories: true)
        for sample in samples {
            try FileManager.default.copyItem(atPath: Self.samples.appendingPathComponent(sample).path, toPath: folder.file("in/\(sample)"))
        }
        let result = try MasonryExecutable.run(["in", "-o", "sheet.png", "--quiet"] + options, in: folder.path, environment: ["LD_DEBUG": "files"])
        try #require(result.status == 0, "masonry failed: \(result.standardError.suffix(400))")
        // "   1234:	file=libheif.so.1 [0];  dynamically loaded by …"
        let loaded = result.standardError.split(separator: "\n").compactMap { line -> String? in
            guard let start = line.range(of: "file=") else { return nil }
            return String(line[start.upperBound...].prefix { $0 != " " && $0 != "[" })
        }
        try #require(loaded.contains { $0.hasPrefix("libc.so") }, "LD_DEBUG=files reported no libraries: \(result.standardError.prefix(400))")
        return Set(loaded)
    }

    @Test func aSheetOfPNGAndJPEGLoadsNoneOfTheLoadedLibraries() throws {
        let loaded = try Self.librariesLoaded(drawing: ["sample.png", "sample.jpg"])
        for library in ["libheif.so.1", "libtiff.so.6", "libde265.so.0", "libx265.so.199", "libaom.so.3", "libdav1d.so.6", "libraw_r.so.20",
                        "libjxl.so.0.7"] {
            #expect(!loaded.contains(library), "\(library) was loaded for a sheet of a PNG and a JPEG")
        }
    }

    /// The command imports no Foundation (issue #34: its ICU data and relocations were most of a
    /// one-picture sheet's start-up); the test build links Swift's libraries dynamically, so an
    /// `import Foundation` anywhere in the command's modules would show here.
    @Test func theCommandLoadsNoFoundationLibrary() throws {
        let loaded = try Self.librariesLoaded(drawing: ["sample.png", "sample.jpg"])
        let foundation = loaded.filter { $0.contains("Foundation") }
        #expect(foundation.isEmpty, "a sheet loaded \(foundation.sorted())")
        #expect(loaded.contains("libswiftCore.so"), "the test build is expected to load the Swift runtime dynamically")
    }

    @Test func aHEICLoadsLibheifAndATIFFLoadsLibtiff() throws {
        let heic = try Self.librariesLoaded(drawing: ["sample.heic"])
        #expect(heic.contains("libheif.so.1"))
        #expect(!heic.contains("libtiff.so.6"))
        let tiff = try Self.librariesLoaded(drawing: ["sample.tif"])
        #expect(tiff.contains("libtiff.so.6"))
        #expect(!tiff.contains("libheif.so.1"))
    }

    /// FFmpeg (libavformat with libavcodec and libavutil, and libswscale) only for a video.
    @Test func aVideoLoadsFFmpegAndAPNGDoesNot() throws {
        let ffmpeg = ["libavformat.so.59", "libavcodec.so.59", "libavutil.so.57", "libswscale.so.6"]
        let png = try Self.librariesLoaded(drawing: ["sample.png"])
        for library in ffmpeg { #expect(!png.contains(library), "\(library) was loaded for a sheet of a PNG") }
        let video = try Self.librariesLoaded(drawing: ["sample.mp4"])
        for library in ffmpeg { #expect(video.contains(library), "\(library) was not loaded for an MP4") }
        #expect(!video.contains("libheif.so.1"))
    }

    /// The header pass reads every video container with Masonry's own walk: a `--plan-only` run
    /// of MP4, MOV, Matroska and AVI files maps no FFmpeg library; drawing the Matroska and
    /// AVI samples does.
    @Test func aPlanOfVideosLoadsNoFFmpeg() throws {
        let ffmpeg = ["libavformat.so.59", "libavcodec.so.59", "libavutil.so.57", "libswscale.so.6"]
        let videos = ["sample.mp4", "sample.mov", "sample.mkv", "sample.avi"]
        let plan = try Self.librariesLoaded(drawing: videos, options: ["--plan-only", "--manifest", "plan.json"])
        for library in ffmpeg { #expect(!plan.contains(library), "\(library) was loaded for a plan of videos") }
        for sample in ["sample.mkv", "sample.avi"] {
            let drawn = try Self.librariesLoaded(drawing: [sample])
            #expect(drawn.contains("libavformat.so.59"), "FFmpeg was not loaded to draw \(sample)")
        }
    }

    /// librsvg (with cairo, Pango, fontconfig, GIO and libxml2) only for an SVG, and then in its
    /// drawing process, not in the command's own (`SVGDrawingProcess`); an SVG loads none of the
    /// other formats' libraries.
    @Test func anSVGLoadsLibrsvgInItsDrawingProcessAndAPNGDoesNot() throws {
        let librsvg = ["librsvg-2.so.2", "libcairo.so.2", "libpangocairo-1.0.so.0", "libxml2.so.2"]
        let png = try Self.librariesLoaded(drawing: ["sample.png", "sample.jpg"])
        for library in librsvg { #expect(!png.contains(library), "\(library) was loaded for a sheet of a PNG and a JPEG") }
        let svg = try Self.librariesLoaded(drawing: ["sample.svg"])
        for library in librsvg { #expect(!svg.contains(library), "\(library) was loaded by the command itself for an SVG") }
        #expect(!svg.contains("libheif.so.1") && !svg.contains("libtiff.so.6") && !svg.contains("libavformat.so.59"))
        // Every process's loads, one file each (LD_DEBUG_OUTPUT): the drawing process's has librsvg.
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("in"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.samples.appendingPathComponent("sample.svg").path, toPath: folder.file("in/sample.svg"))
        let result = try MasonryExecutable.run(["in", "-o", "sheet.png", "--quiet"], in: folder.path,
                                               environment: ["LD_DEBUG": "files", "LD_DEBUG_OUTPUT": folder.file("loads")])
        try #require(result.status == 0, "masonry failed: \(result.standardError.suffix(400))")
        let logs = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("loads.") }
        #expect(logs.count == 2, "one log for the command, one for its drawing process: \(logs)")
        let drawing = try logs.filter { try String(contentsOfFile: folder.file($0), encoding: .utf8).contains("file=librsvg-2.so.2") }
        #expect(drawing.count == 1, "librsvg loaded in \(drawing.count) of \(logs.count) processes")
    }

    /// libjxl (with libhwy and libbrotlidec) only for a JPEG XL file.
    @Test func aJPEGXLLoadsLibjxlAndAPNGDoesNot() throws {
        let png = try Self.librariesLoaded(drawing: ["sample.png"])
        #expect(!png.contains("libjxl.so.0.7"))
        let jxl = try Self.librariesLoaded(drawing: ["sample.jxl"])
        #expect(jxl.contains("libjxl.so.0.7"))
        #expect(!jxl.contains("libheif.so.1") && !jxl.contains("libtiff.so.6"))
    }
}
