// A folder of small PNGs with awkward names, the gallery and review models that point at
// them, and the pages written beside them (in a sub-folder, so links must climb with `..`).
import Foundation
import GalleryPage
import CodecCore
import PNGCodec
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

struct PageFixture {
    /// Names chosen to break naive HTML and URL escaping ("%41" must not become "A"); "latin\xe9" is not UTF-8.
    static let names: [[UInt8]] = [
        Array("plain.png".utf8),
        Array("with space.png".utf8),
        Array("hash#1.png".utf8),
        Array("100%.png".utf8),
        Array("percent%41.png".utf8),
        Array("what?.png".utf8),
        Array("quote\"s 'single'.png".utf8),
        Array("a<b>&c.png".utf8),
        Array("latin".utf8) + [0xE9] + Array(".png".utf8),
        Array("Ünïcode 猫.png".utf8),
        Array("sub dir/deep.png".utf8),
    ]

    let root: String
    let images: [[UInt8]]
    let galleryHTML: String
    let reviewHTML: String
    let gallery: Gallery
    let review: Review
    /// The colour of the difference panel's pixel (dx, dy) on the review's sheet page: a gradient,
    /// so a crop shifted by one pixel shows other colours.
    static func panelColour(_ dx: Int, _ dy: Int) -> [UInt8] { [255, UInt8(dx * 6), UInt8(dy * 8)] }
    static let baselineColour: [UInt8] = [220, 30, 30]
    static let currentColour: [UInt8] = [30, 60, 220]

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("masonry-html-\(UUID().uuidString)").path
        try Self.makeFolder(root + "/images/sub dir")
        try Self.makeFolder(root + "/out")
        let base = Array((root + "/images/").utf8), root = root
        images = Self.names.map { base + $0 }
        for (index, path) in images.enumerated() {
            let shade = UInt8(40 + index * 20)
            try Self.writePNG(path, width: 40, height: 30, colour: [shade, 255 - shade, 128])
        }

        // Gallery: two pages of 200 × 150, six tiles of 30 × 30 a page, in two rows.
        let pages = (1...2).map { SheetPage(file: Array((root + "/out/sheet-00\($0).png").utf8), width: 200, height: 150) }
        for page in pages { try Self.writePNG(page.file, width: page.width, height: page.height, colour: [200, 200, 200]) }
        let tiles = images.enumerated().map { index, path in
            Gallery.Tile(page: index / 6 + 1, x: 8 + (index % 6) * 32, y: 8 + (index % 2) * 40, width: 30, height: 30,
                         path: path, caption: index == 0 ? "caption of plain" : nil)
        }
        gallery = Gallery(title: "Fixture <gallery>", pages: pages, tiles: tiles)
        let galleryPath = root + "/out/gallery.html"
        galleryHTML = galleryPath
        try Self.write(Array(HTMLPage.render(gallery, htmlPath: Array(galleryPath.utf8)).utf8), to: Array(galleryPath.utf8))

        // Review: one pair of each status; the changed pair's difference panel sits at
        // (60, 20, 40, 30) of a 200 × 100 review page drawn in the panel colour there.
        let baselineImage = base + Array("baseline.png".utf8), currentImage = base + Array("current.png".utf8)
        try Self.writePNG(baselineImage, width: 40, height: 30, colour: Self.baselineColour)
        try Self.writePNG(currentImage, width: 40, height: 30, colour: Self.currentColour)
        let reviewPage = SheetPage(file: Array((root + "/out/review-001.png").utf8), width: 200, height: 100)
        try Self.writeReviewPage(reviewPage.file)
        let side = { (path: [UInt8]) in Review.Side(path: path, width: 40, height: 30) }
        let pairs = [
            Review.Pair(path: Array("changed <one>.png".utf8), status: "changed", failed: true, diffPixels: 1200,
                        aaPixels: 3, diffRatio: 1.0, baseline: side(baselineImage), current: side(currentImage),
                        diffPanel: Review.Panel(page: 1, x: 60, y: 20, width: 40, height: 30)),
            Review.Pair(path: images[8], status: "resized", failed: true, diffPixels: 0, aaPixels: 0, diffRatio: 0,
                        baseline: side(images[8]), current: Review.Side(path: images[9], width: 40, height: 30)),
            Review.Pair(path: images[2], status: "added", failed: false, diffPixels: 0, aaPixels: 0, diffRatio: 0,
                        baseline: nil, current: side(images[2])),
            Review.Pair(path: images[4], status: "removed", failed: false, diffPixels: 0, aaPixels: 0, diffRatio: 0,
                        baseline: side(images[4]), current: nil),
            Review.Pair(path: Array("broken.png".utf8), status: "error", failed: true, diffPixels: 0, aaPixels: 0,
                        diffRatio: 0, baseline: nil, current: nil, reason: "truncated image data"),
            Review.Pair(path: images[0], status: "unchanged", failed: false, diffPixels: 0, aaPixels: 0, diffRatio: 0,
                        baseline: side(images[0]), current: side(images[0])),
        ]
        let summary = ["unchanged", "changed", "resized", "added", "removed", "error"].map { status in
            Review.StatusCount(status: status, count: pairs.filter { $0.status == status }.count)
        }
        review = Review(summary: summary, failed: pairs.filter(\.failed).count, pages: [reviewPage], pairs: pairs)
        let reviewPath = root + "/out/review.html"
        reviewHTML = reviewPath
        try Self.write(Array(HTMLPage.render(review, htmlPath: Array(reviewPath.utf8)).utf8), to: Array(reviewPath.utf8))
    }

    func remove() { try? FileManager.default.removeItem(atPath: root) }

    static func makeFolder(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    static func writePNG(_ path: [UInt8], width: Int, height: Int, colour: [UInt8]) throws {
        let pixels = [[UInt8]](repeating: colour, count: width * height).flatMap { $0 }
        try write(PNGEncoder.encode(pixels: pixels, width: width, height: height, format: .rgb8), to: path)
    }

    /// A grey page with the difference panel's rectangle filled by `panelColour`.
    static func writeReviewPage(_ path: [UInt8]) throws {
        var pixels: [UInt8] = []
        for y in 0..<100 {
            for x in 0..<200 {
                pixels += (60..<100).contains(x) && (20..<50).contains(y) ? panelColour(x - 60, y - 20) : [190, 190, 190]
            }
        }
        try write(PNGEncoder.encode(pixels: pixels, width: 200, height: 100, format: .rgb8), to: path)
    }

    /// Writes a file whose path is raw bytes (names need not be UTF-8).
    static func write(_ bytes: [UInt8], to path: [UInt8]) throws {
        let descriptor = (path + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
        }
        guard descriptor >= 0 else { throw FixtureError("cannot create \(String(decoding: path, as: UTF8.self))") }
        defer { close(descriptor) }
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw FixtureError("short write") }
    }

    /// True when a regular file exists at the raw path.
    static func isFile(_ path: [UInt8]) -> Bool {
        var info = stat()
        let result = (path + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { stat($0.baseAddress!, &info) }
        }
        return result == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// The raw path of a `file://` URL, percent-decoded byte by byte.
    static func path(ofFileURL url: String) -> [UInt8]? {
        guard url.hasPrefix("file://") else { return nil }
        var out: [UInt8] = []
        var bytes = Array(url.utf8.dropFirst(7))[...]
        while let byte = bytes.popFirst() {
            if byte == UInt8(ascii: "%"), bytes.count >= 2,
               let value = UInt8(String(decoding: bytes.prefix(2), as: UTF8.self), radix: 16) {
                out.append(value)
                bytes = bytes.dropFirst(2)
            } else {
                out.append(byte)
            }
        }
        return out
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
