// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Masonry",
    products: [
        .library(name: "PNGCodec", targets: ["PNGCodec"]),
    ],
    targets: [
        .systemLibrary(
            name: "CLibPNG",
            pkgConfig: "libpng",
            providers: [.apt(["libpng-dev", "zlib1g-dev"])]
        ),
        .target(name: "CPNGBridge", dependencies: ["CLibPNG"]),
        .target(name: "PNGCodec", dependencies: ["CPNGBridge"]),
    ],
    swiftLanguageModes: [.v6]
)
