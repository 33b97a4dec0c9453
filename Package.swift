// swift-tools-version: 6.0
import PackageDescription

/// The resampler's hot loops multiply SIMD4<Int32>; x86-64's baseline (SSE2) has no
/// 32-bit vector multiply and emulates it with shuffles. Nehalem (2008, SSE4.2) has
/// `pmulld`. Integer results are identical either way; only the speed changes.
#if arch(x86_64)
let rasterSettings: [SwiftSetting] = [.unsafeFlags(["-target-cpu", "nehalem"])]
#else
let rasterSettings: [SwiftSetting] = []
#endif

let package = Package(
    name: "Masonry",
    products: [
        .executable(name: "masonry", targets: ["masonry"]),
        .executable(name: "masonry-bench", targets: ["masonry-bench"]),
        .library(name: "PNGCodec", targets: ["PNGCodec"]),
        .library(name: "JPEGCodec", targets: ["JPEGCodec"]),
        .library(name: "WebPCodec", targets: ["WebPCodec"]),
        .library(name: "GIFCodec", targets: ["GIFCodec"]),
        .library(name: "HEIFCodec", targets: ["HEIFCodec"]),
        .library(name: "TIFFCodec", targets: ["TIFFCodec"]),
        .library(name: "RAWCodec", targets: ["RAWCodec"]),
        .library(name: "SVGCodec", targets: ["SVGCodec"]),
        .library(name: "JXLCodec", targets: ["JXLCodec"]),
        .library(name: "VideoCodec", targets: ["VideoCodec"]),
        .library(name: "WaterfallLayout", targets: ["WaterfallLayout"]),
        .library(name: "Raster", targets: ["Raster"]),
        .library(name: "MasonrySheet", targets: ["MasonrySheet"]),
        .library(name: "BitmapText", targets: ["BitmapText"]),
        .library(name: "ImageDiff", targets: ["ImageDiff"]),
        .library(name: "TileCache", targets: ["TileCache"]),
        .library(name: "GalleryPage", targets: ["GalleryPage"]),
    ],
    targets: [
        // libpng and zlib from Debian (libpng-dev, zlib1g-dev).
        .systemLibrary(
            name: "CLibPNG",
            pkgConfig: "libpng",
            providers: [.apt(["libpng-dev", "zlib1g-dev"])]
        ),
        // zlib alone, for Swift: CRC-32 and Adler-32 (and `uncompress` in tests).
        .systemLibrary(
            name: "CLibZ",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // libdeflate from Debian (libdeflate-dev): fast whole-buffer inflate, vector Adler-32/CRC-32.
        .systemLibrary(
            name: "CLibDeflate",
            pkgConfig: "libdeflate",
            providers: [.apt(["libdeflate-dev"])]
        ),
        // The only code that calls libpng: owns every setjmp.
        .target(name: "CPNGBridge", dependencies: ["CBridgeSupport", "CLibPNG"]),
        // The fast whole-image decoder for plain PNGs (libdeflate, SSE2); no libpng.
        .target(name: "CPNGFastDecode", dependencies: ["CLibDeflate"]),
        // Masonry's own deflate encoder (runs and dynamic Huffman codes) for the PNG writer.
        .target(name: "Deflate", dependencies: ["CDeflateKernels"]),
        // The deflate encoder's run search in C (SSE2 compares into bitmaps, bit scans).
        .target(name: "CDeflateKernels"),
        // The one thread pool: threads with 1 MiB stacks, a parallel map in index order, job threads.
        .target(name: "WorkerThreads", dependencies: ["CSanitizerRuntime", "CProcessorAffinity"]),
        // sched_getaffinity's CPU count, which needs _GNU_SOURCE (the default of --jobs).
        .target(name: "CProcessorAffinity"),
        // The seeded generator of the tests and of the bench's corpus.
        .target(name: "SeededRandom"),
        // What every codec shares: the input file and positioned reads, RowSource, ImageError, DecodeLimits.
        .target(name: "CodecCore", dependencies: ["CBridgeSupport", "Raster"]),
        // What every C bridge shares: mb_status, mb_pread_full, the captured-message buffer.
        .target(name: "CBridgeSupport"),
        .target(name: "PNGCodec", dependencies: ["CodecCore", "CPNGBridge", "CPNGFastDecode", "CLibDeflate", "CLibZ", "Deflate", "WorkerThreads", "Raster", "ColorManagement"]),
        // Little CMS from Debian (liblcms2-dev).
        .systemLibrary(
            name: "CLibLCMS",
            pkgConfig: "lcms2",
            providers: [.apt(["liblcms2-dev"])]
        ),
        // The only code that calls lcms: a context and error handler per transform build.
        .target(name: "CColorBridge", dependencies: ["CLibLCMS"]),
        // ICC profiles checked before lcms sees them, colour decisions, shared transforms to sRGB.
        .target(name: "ColorManagement", dependencies: ["CColorBridge", "Digest", "WorkerThreads"]),
        // libjpeg-turbo from Debian (libjpeg62-turbo-dev).
        .systemLibrary(
            name: "CLibJPEG",
            pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg62-turbo-dev"])]
        ),
        // The only code that calls libjpeg: owns every setjmp.
        .target(name: "CJPEGBridge", dependencies: ["CBridgeSupport", "CLibJPEG"]),
        .target(name: "JPEGCodec", dependencies: ["CodecCore", "CJPEGBridge", "Raster", "ColorManagement"]),
        // libwebp from Debian (libwebp-dev).
        .systemLibrary(
            name: "CLibWebP",
            pkgConfig: "libwebp",
            providers: [.apt(["libwebp-dev"])]
        ),
        // The only code that calls libwebp: the incremental decoder, fed with pread blocks.
        .target(name: "CWebPBridge", dependencies: ["CBridgeSupport", "CLibWebP"]),
        .target(name: "WebPCodec", dependencies: ["CodecCore", "CWebPBridge", "Raster"]),
        // giflib from Debian (libgif-dev); it ships no pkg-config file, so the module map links `gif`.
        .systemLibrary(name: "CLibGIF", providers: [.apt(["libgif-dev"])]),
        // The only code that calls giflib: reads through pread, keeps giflib's error text. C code
        // includes gif_lib.h without the module, so the module map's `link` needs repeating here.
        .target(name: "CGIFBridge", dependencies: ["CBridgeSupport", "CLibGIF"], linkerSettings: [.linkedLibrary("gif")]),
        .target(name: "GIFCodec", dependencies: ["CodecCore", "CGIFBridge", "Raster"]),
        // libheif from Debian (libheif-dev 1.15: libde265 for HEVC, dav1d and aom for AV1): its
        // headers only. It is not linked (no pkg-config, whose flags would link it): CHEIFBridge
        // loads libheif.so.1 on the first HEIF or AVIF file (issue #34).
        .systemLibrary(name: "CLibHEIF", providers: [.apt(["libheif-dev"])]),
        // The only code that calls libheif: loads it, copies its error messages, reads through pread.
        .target(name: "CHEIFBridge", dependencies: ["CLibHEIF", "CBridgeSupport"]),
        // HEIC/HEIF and AVIF: Masonry's own box parser (HEIFHeader) in front of libheif.
        .target(name: "HEIFCodec", dependencies: ["CodecCore", "CHEIFBridge", "Raster"]),
        // libtiff from Debian (libtiff-dev 4.5): its headers only; CTIFFBridge loads libtiff.so.6
        // on the first TIFF file (issue #34), as CHEIFBridge does libheif.
        .systemLibrary(name: "CLibTIFF", providers: [.apt(["libtiff-dev"])]),
        // The only code that calls libtiff: reads through pread callbacks, captures its messages,
        // converts rows to 8 bits (libm for the float samples' transfer table).
        .target(name: "CTIFFBridge", dependencies: ["CLibTIFF", "CBridgeSupport"], linkerSettings: [.linkedLibrary("m")]),
        // TIFF: Masonry's own IFD walk (TIFFHeader) in front of libtiff.
        .target(name: "TIFFCodec", dependencies: ["CodecCore", "CTIFFBridge", "CBridgeSupport", "ColorManagement", "Raster"]),
        // LibRaw from Debian (libraw-dev 0.20), its reentrant C interface: headers here, the library
        // loaded by CRAWBridge with dlopen (linking it costs every run its resident memory).
        .systemLibrary(
            name: "CLibRaw",
            providers: [.apt(["libraw-dev"])]
        ),
        // The only code that calls LibRaw (loaded on first use, as libheif): its C interface over the file's bytes read from
        // Masonry's descriptor (libraw_open_buffer), its message callbacks captured, half-size demosaic.
        .target(name: "CRAWBridge", dependencies: ["CLibRaw", "CBridgeSupport"]),
        // Camera RAW: Masonry's own header (TIFF's directory walk, RAF's header), previews through JPEGCodec.
        .target(name: "RAWCodec", dependencies: ["CodecCore", "CRAWBridge", "CBridgeSupport", "JPEGCodec", "TIFFCodec", "Raster"]),
        // The only code that calls librsvg (librsvg2-dev 2.54; cairo and GLib through it): loaded on the
        // first SVG file with dlopen, its few functions declared by the bridge itself (librsvg's headers
        // need GLib's, cairo's and gdk-pixbuf's include folders, which only pkg-config names, and
        // pkg-config would link them), fed bytes Masonry read, no base URL, GLib's messages captured.
        // Also the gzip layer of .svgz files (zlib's inflate, SVGGzip.c).
        .target(name: "CSVGBridge", dependencies: ["CBridgeSupport", "CLibZ"]),
        // SVG: Masonry's own prolog and root reader (SVGHeader) and document scan in front of librsvg.
        .target(name: "SVGCodec", dependencies: ["CodecCore", "CSVGBridge", "CBridgeSupport", "Raster"]),
        // libjxl from Debian (libjxl-dev 0.7): its decoder headers only; CJXLBridge loads libjxl.so.0.7
        // on the first JPEG XL file, as CTIFFBridge does libtiff.
        .systemLibrary(name: "CLibJXL", providers: [.apt(["libjxl-dev"])]),
        // The only code that calls libjxl: reads with pread in blocks, allocates within a budget, words its failures.
        .target(name: "CJXLBridge", dependencies: ["CLibJXL", "CBridgeSupport"]),
        // JPEG XL: Masonry's own codestream and container reader (JXLHeader) in front of libjxl.
        .target(name: "JXLCodec", dependencies: ["CodecCore", "CJXLBridge", "CBridgeSupport", "ColorManagement", "Raster"]),
        // FFmpeg 5.1 from Debian (libavformat-dev, libavcodec-dev, libswscale-dev, libavutil-dev):
        // its headers only; CVideoBridge loads libavformat.so.59 and libswscale.so.6 on the first
        // video (issue #30): linked, they double a run's start-up memory.
        .systemLibrary(name: "CLibAV", providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswscale-dev", "libavutil-dev"])]),
        // The only code that calls FFmpeg: its own IO over pread, named demuxers only, no other file opened, messages captured.
        .target(name: "CVideoBridge", dependencies: ["CLibAV", "CBridgeSupport"], linkerSettings: [.linkedLibrary("m")]),
        // MP4/MOV, Matroska/WebM and AVI poster frames: Masonry's own MP4 box walk (MP4Header) in front of FFmpeg.
        .target(name: "VideoCodec", dependencies: ["CodecCore", "CVideoBridge", "CBridgeSupport", "Raster"]),
        .target(name: "WaterfallLayout"),
        .target(name: "Raster", dependencies: ["CRasterKernels", "WorkerThreads"], swiftSettings: rasterSettings),
        // Raster's hot loops in AVX2, chosen at run time (same integers as Raster's Swift code).
        .target(name: "CRasterKernels"),
        // GNU FriBidi from Debian (libfribidi-dev): the Unicode bidirectional algorithm, Arabic shaping.
        .systemLibrary(
            name: "CLibFriBiDi",
            pkgConfig: "fribidi",
            providers: [.apt(["libfribidi-dev"])]
        ),
        // The only code that calls FriBidi: one line's visual order and Arabic joining forms.
        .target(name: "CBidiBridge", dependencies: ["CBridgeSupport", "CLibFriBiDi"], linkerSettings: [.linkedLibrary("fribidi")]),
        // The built-in fonts (Misc-Fixed, and GNU Unifont as the fallback) and the text and box
        // painters; FONT-LICENSE and UNIFONT-LICENSE are the fonts' notices.
        .target(name: "BitmapText", dependencies: ["Raster", "CBidiBridge", "CLibDeflate", "WorkerThreads"],
                exclude: ["FONT-LICENSE", "UNIFONT-LICENSE"]),
        .target(name: "ImageDiff"),
        // SHA-256 alone: profile digests, compare's file identities, test goldens.
        .target(name: "Digest"),
        // openat(2) for Swift (variadic in libc): the baseline update opens each folder below the baseline's descriptor.
        .target(name: "CFileAt"),
        // masonry compare's --config: a JSON reader with positions, path globs, per-pair options and rules.
        .target(name: "CompareConfig", dependencies: ["ImageDiff"]),
        .target(name: "MasonrySheet", dependencies: ["Digest", "CodecCore", "ColorManagement", "CLibDeflate", "PNGCodec", "WaterfallLayout", "Raster", "BitmapText", "TileCache", "JPEGCodec", "WebPCodec", "GIFCodec", "HEIFCodec", "TIFFCodec", "RAWCodec", "SVGCodec", "JXLCodec", "VideoCodec", "GalleryPage", "ImageDiff", "CompareConfig", "CFileAt", "WorkerThreads"]),
        .target(name: "MasonryCLI", dependencies: ["CodecCore", "MasonrySheet", "BitmapText", "ImageDiff", "CompareConfig", "WorkerThreads"]),
        // Thumbnails kept between runs (issue #15); CRC-32 from libdeflate.
        .target(name: "TileCache", dependencies: ["CLibDeflate", "WorkerThreads"]),
        .executableTarget(name: "masonry", dependencies: ["MasonryCLI", "MasonrySheet", "SVGCodec"]),
        .executableTarget(name: "masonry-bench", dependencies: ["CodecCore", "ColorManagement", "MasonrySheet", "PNGCodec", "JPEGCodec", "TIFFCodec", "RAWCodec", "SVGCodec", "JXLCodec", "WaterfallLayout", "Raster", "SeededRandom", "WorkerThreads", "BitmapText"]),
        // The decode floors masonry-bench times as whole processes (issue #34): C, libjpeg-turbo and libpng alone.
        .executableTarget(name: "masonry-floor", linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("png16"), .linkedLibrary("pthread")]),
        .target(name: "GalleryPage", dependencies: ["BitmapText"]),
        .executableTarget(name: "gallery-page-bench", dependencies: ["CodecCore", "GalleryPage", "PNGCodec", "BrowserHarness"]),
        // Headless Chromium over the DevTools pipe, for gallery-page-bench and the browser tests.
        .target(name: "BrowserHarness"),

        // Every parser of outside bytes as a fuzz target: libFuzzer (scripts/fuzz.sh) and FuzzReplayTests call it.
        .target(name: "FuzzHarness", dependencies: ["CodecCore", "PNGCodec", "JPEGCodec", "WebPCodec", "GIFCodec", "HEIFCodec", "TIFFCodec", "RAWCodec", "SVGCodec", "JXLCodec", "VideoCodec", "CompareConfig", "TileCache", "MasonrySheet", "MasonryCLI", "ColorManagement", "BitmapText", "Raster"]),
        // The libFuzzer driver over FuzzTargets (scripts/fuzz.sh); in an ordinary build, a replayer of files.
        .executableTarget(name: "masonry-fuzz", dependencies: ["FuzzHarness", "CSanitizerRuntime"]),
        // Declarations of the sanitizer runtimes' entry points (libFuzzer's driver, TSan's annotations); links nothing.
        .systemLibrary(name: "CSanitizerRuntime"),

        // Tests. TestSupport holds what several test targets share.
        .target(name: "TestSupport", dependencies: ["CodecCore", "PNGCodec", "SeededRandom", "CLibZ", "WorkerThreads", "Raster"], path: "Tests/TestSupport"),
        .testTarget(name: "PNGCodecTests", dependencies: ["CodecCore", "PNGCodec", "CPNGBridge", "CLibZ", "Raster", "TestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(name: "DeflateTests", dependencies: ["CodecCore", "Deflate", "CDeflateKernels", "TestSupport"]),
        .testTarget(name: "WorkerThreadsTests", dependencies: ["CodecCore", "WorkerThreads"]),
        .testTarget(name: "WaterfallLayoutTests", dependencies: ["CodecCore", "WaterfallLayout", "TestSupport"]),
        .testTarget(name: "ColorManagementTests", dependencies: ["CodecCore", "ColorManagement", "WorkerThreads", "PNGCodec", "JPEGCodec", "WebPCodec", "HEIFCodec", "Raster", "SeededRandom", "FuzzHarness", "TestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(name: "JPEGCodecTests", dependencies: ["CodecCore", "JPEGCodec", "PNGCodec", "Raster", "TestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(name: "WebPCodecTests", dependencies: ["CodecCore", "WebPCodec", "PNGCodec", "Raster", "TestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(name: "GIFCodecTests", dependencies: ["CodecCore", "GIFCodec", "PNGCodec", "Raster", "TestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(name: "HEIFCodecTests", dependencies: ["CodecCore", "HEIFCodec", "PNGCodec", "Raster", "TestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(name: "TIFFCodecTests", dependencies: ["Digest", "CodecCore", "TIFFCodec", "ColorManagement", "PNGCodec", "Raster", "TestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(name: "SVGCodecTests", dependencies: ["CodecCore", "SVGCodec", "CSVGBridge", "PNGCodec", "Raster", "TestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(name: "JXLCodecTests", dependencies: ["Digest", "CodecCore", "JXLCodec", "ColorManagement", "PNGCodec", "Raster", "TestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(name: "RAWCodecTests", dependencies: ["Digest", "CodecCore", "RAWCodec", "JPEGCodec", "PNGCodec", "Raster", "TestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(name: "RasterTests", dependencies: ["CodecCore", "Raster", "TestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(name: "MasonrySheetTests", dependencies: ["CodecCore", "MasonrySheet", "MasonryCLI", "WaterfallLayout", "BitmapText", "PNGCodec", "Raster", "TestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(name: "BitmapTextTests", dependencies: ["CodecCore", "BitmapText", "MasonrySheet", "PNGCodec", "Raster", "TestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(name: "CompareConfigTests", dependencies: ["CodecCore", "CompareConfig", "ImageDiff", "TestSupport"]),
        .testTarget(name: "ImageDiffTests", dependencies: ["Digest", "CodecCore", "ImageDiff", "PNGCodec", "TestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(name: "TileCacheTests", dependencies: ["CodecCore", "TileCache", "TestSupport", "WorkerThreads"], exclude: ["Golden"]),
        // Child process for ThumbnailCacheTests: a cache user with a file size limit, another uid, or in parallel.
        .executableTarget(name: "TileCacheProbe", dependencies: ["TileCache"], path: "Tests/TileCacheProbe"),
        .testTarget(name: "HostileInputTests", dependencies: ["CodecCore", "PNGCodec", "WaterfallLayout", "Raster", "MasonrySheet", "MasonryCLI", "TestSupport"]),
        .testTarget(name: "FuzzReplayTests", dependencies: ["CodecCore", "FuzzHarness"], exclude: ["CORPUS.md"], resources: [.copy("Corpus")]),
        .testTarget(name: "GalleryPageTests", dependencies: ["CodecCore", "GalleryPage", "PNGCodec", "BrowserHarness", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
