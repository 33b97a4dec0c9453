import Raster
import Testing

/// `ExifOrientation.apply` on a tiny asymmetric image, checked against where EXIF 2.32 puts the
/// stored picture's corners (the Pillow goldens check the same on real photos).
@Suite struct ExifOrientationTests {
    /// A 3×2 image whose every pixel is distinct: pixel (x, y) holds bytes (x, y, 7, 255).
    static let width = 3, height = 2
    static let pixels: [UInt8] = (0..<height).flatMap { y in (0..<width).flatMap { x in [UInt8(x), UInt8(y), 7, 255] } }

    static func pixel(_ buffer: [UInt8], _ x: Int, _ y: Int, width: Int) -> [UInt8] {
        Array(buffer[(y * width + x) * 4 ..< (y * width + x) * 4 + 4])
    }

    /// For each orientation, the display corner (0 top-left, 1 top-right, 2 bottom-right,
    /// 3 bottom-left) where the stored top-left and top-right pixels end up.
    static let corners: [ExifOrientation: (topLeft: Int, topRight: Int)] = [
        .up: (0, 1), .upMirrored: (1, 0), .down: (2, 3), .downMirrored: (3, 2),
        .leftMirrored: (0, 3), .right: (1, 2), .rightMirrored: (2, 1), .left: (3, 0),
    ]

    @Test(arguments: ExifOrientation.allCases)
    func cornersLandWhereExifSays(_ orientation: ExifOrientation) throws {
        let shown = orientation.apply(to: Self.pixels, width: Self.width, height: Self.height)
        let (w, h) = orientation.displaySize(width: Self.width, height: Self.height)
        #expect(shown.count == Self.pixels.count)
        #expect((w, h) == (orientation.swapsAxes ? (2, 3) : (3, 2)))
        let cornerPositions = [(0, 0), (w - 1, 0), (w - 1, h - 1), (0, h - 1)]
        let expected = try #require(Self.corners[orientation])
        let topLeft = cornerPositions[expected.topLeft], topRight = cornerPositions[expected.topRight]
        #expect(Self.pixel(shown, topLeft.0, topLeft.1, width: w) == [0, 0, 7, 255])
        #expect(Self.pixel(shown, topRight.0, topRight.1, width: w) == [2, 0, 7, 255])
        // Every stored pixel appears exactly once.
        let shownPixels = stride(from: 0, to: shown.count, by: 4).map { Array(shown[$0 ..< $0 + 4]) }
        let storedPixels = stride(from: 0, to: Self.pixels.count, by: 4).map { Array(Self.pixels[$0 ..< $0 + 4]) }
        #expect(Set(shownPixels) == Set(storedPixels))
    }

    /// `displayedPosition` puts every stored pixel where `apply` shows it, and undoes `storedPosition`.
    @Test(arguments: ExifOrientation.allCases)
    func displayedPositionIsWhereApplyShowsAPixel(_ orientation: ExifOrientation) {
        let shown = orientation.apply(to: Self.pixels, width: Self.width, height: Self.height)
        let shownWidth = orientation.displaySize(width: Self.width, height: Self.height).width
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                let at = orientation.displayedPosition(x: x, y: y, width: Self.width, height: Self.height)
                #expect(Self.pixel(shown, at.x, at.y, width: shownWidth) == [UInt8(x), UInt8(y), 7, 255])
                let back = orientation.storedPosition(x: at.x, y: at.y, width: Self.width, height: Self.height)
                #expect(back == (x, y))
            }
        }
    }

    @Test func rawValuesAreExifs() {
        #expect(ExifOrientation.allCases.map(\.rawValue) == Array(1...8))
        #expect(ExifOrientation.allCases.filter(\.swapsAxes).map(\.rawValue) == [5, 6, 7, 8])
        #expect(ExifOrientation(rawValue: 0) == nil && ExifOrientation(rawValue: 9) == nil)
    }

    /// Turning right (6) four times, or mirroring (2) twice, gives the picture back; right
    /// then left (8) too.
    @Test func compositionsUndoEachOther() {
        var turned = Self.pixels, w = Self.width, h = Self.height
        for _ in 0..<4 {
            turned = ExifOrientation.right.apply(to: turned, width: w, height: h)
            (w, h) = (h, w)
        }
        #expect(turned == Self.pixels)
        let mirrored = ExifOrientation.upMirrored.apply(to: Self.pixels, width: 3, height: 2)
        #expect(mirrored != Self.pixels)
        #expect(ExifOrientation.upMirrored.apply(to: mirrored, width: 3, height: 2) == Self.pixels)
        let right = ExifOrientation.right.apply(to: Self.pixels, width: 3, height: 2)
        #expect(ExifOrientation.left.apply(to: right, width: 2, height: 3) == Self.pixels)
    }

    @Test func emptyAndSinglePixelImages() {
        for orientation in ExifOrientation.allCases {
            #expect(orientation.apply(to: [], width: 0, height: 5).isEmpty)
            #expect(orientation.apply(to: [1, 2, 3, 4], width: 1, height: 1) == [1, 2, 3, 4])
        }
    }
}
