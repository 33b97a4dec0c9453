// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Masonry",
    products: [
        .executable(name: "masonry", targets: ["masonry"]),
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
        // The only code that calls libpng: owns every setjmp.
        .target(name: "CPNGBridge", dependencies: ["CLibPNG"]),
        .target(name: "PNGCodec", dependencies: ["CPNGBridge"]),
        .target(name: "MasonryLayout"),
        .target(name: "Raster"),
        .target(name: "MasonrySheet", dependencies: ["PNGCodec", "MasonryLayout", "Raster"]),
        .target(name: "MasonryCommand", dependencies: ["MasonrySheet"]),
        .executableTarget(name: "masonry", dependencies: ["MasonryCommand", "MasonrySheet"]),

        // Tests. TestSupport holds what several test targets share.
        .target(name: "TestSupport", dependencies: ["PNGCodec"], path: "Tests/TestSupport"),
        .testTarget(name: "PNGCodecTests", dependencies: ["PNGCodec", "TestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(name: "MasonryLayoutTests", dependencies: ["MasonryLayout", "TestSupport"]),
        .testTarget(name: "RasterTests", dependencies: ["Raster", "TestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(name: "MasonrySheetTests", dependencies: ["MasonrySheet", "PNGCodec", "Raster", "TestSupport"]),
        .testTarget(name: "HostileInputTests", dependencies: ["PNGCodec", "MasonryLayout", "Raster", "MasonrySheet", "MasonryCommand", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
