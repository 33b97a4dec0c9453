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
        .library(name: "MasonryLayout", targets: ["MasonryLayout"]),
        .library(name: "Raster", targets: ["Raster"]),
        .library(name: "MasonrySheet", targets: ["MasonrySheet"]),
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
            name: "CZlib",
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
        .target(name: "CPNGBridge", dependencies: ["CLibPNG"]),
        // The fast whole-image decoder for plain PNGs (libdeflate, SSE2); no libpng.
        .target(name: "CPNGFastDecode", dependencies: ["CLibDeflate"]),
        .target(name: "PNGCodec", dependencies: ["CPNGBridge", "CPNGFastDecode", "CLibDeflate", "CZlib"]),
        .target(name: "MasonryLayout"),
        .target(name: "Raster", swiftSettings: rasterSettings),
        .target(name: "MasonrySheet", dependencies: ["PNGCodec", "MasonryLayout", "Raster"]),
        .target(name: "MasonryCommand", dependencies: ["MasonrySheet"]),
        .executableTarget(name: "masonry", dependencies: ["MasonryCommand", "MasonrySheet"]),
        .executableTarget(name: "masonry-bench", dependencies: ["MasonrySheet", "PNGCodec", "MasonryLayout", "Raster", "TestSupport"]),

        // Tests. TestSupport holds what several test targets share.
        .target(name: "TestSupport", dependencies: ["PNGCodec"], path: "Tests/TestSupport"),
        .testTarget(name: "PNGCodecTests", dependencies: ["PNGCodec", "CZlib", "TestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(name: "MasonryLayoutTests", dependencies: ["MasonryLayout", "TestSupport"]),
        .testTarget(name: "RasterTests", dependencies: ["Raster", "TestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(name: "MasonrySheetTests", dependencies: ["MasonrySheet", "PNGCodec", "Raster", "TestSupport"]),
        .testTarget(name: "HostileInputTests", dependencies: ["PNGCodec", "MasonryLayout", "Raster", "MasonrySheet", "MasonryCommand", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
