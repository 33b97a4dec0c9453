// swift-tools-version: 6.0
// A Swift program that makes contact sheets with Masonry's library (README, "Use it from Swift").
import PackageDescription

let package = Package(
    name: "ContactSheetExample",
    dependencies: [.package(name: "Masonry", path: "../..")],
    targets: [
        .executableTarget(name: "ContactSheetExample", dependencies: [
            .product(name: "MasonrySheet", package: "Masonry"),
            .product(name: "WaterfallLayout", package: "Masonry"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
