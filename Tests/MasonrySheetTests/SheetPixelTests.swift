import Foundation
import WaterfallLayout
import MasonrySheet
import CodecCore
import PNGCodec
import Raster
import Testing
import TestSupport

/// Pixel-level checks of what the pipeline draws, run in-process.
@Suite struct SheetPixelTests {
    private func render(_ folder: TemporaryFolder, width: Int, columns: Int, background: RGBA8Color,
                        margin: Int = 8) throws -> DecodedImage {
        var options = SheetOptions(layout: try LayoutConfiguration(width: width, columns: columns, columnGap: 8, rowGap: 8,
                                                                   insets: LayoutInsets(all: margin)))
        options.background = background
        let output = RawPath(folder.file("sheet.png"))
        _ = try SheetPipeline.run(SheetRequest(inputs: [RawPath(folder.path)], output: output, options: options))
        return try PNGDecoder.decodeRGBA(contentsOfFile: output.displayName)
    }

    /// The sheet pixel at (x, y) as RGBA (alpha 255 for RGB sheets).
    private func pixel(_ sheet: DecodedImage, _ x: Int, _ y: Int) -> [UInt8] {
        Array(sheet.pixels[(y * sheet.width + x) * 4 ..< (y * sheet.width + x) * 4 + 4])
    }

    @Test func oneColumnAsWideAsTheImagesReproducesTheirPixels() throws {
        let folder = TemporaryFolder()
        let width = 64
        let heights = [40, 71, 13]
        var sources: [[UInt8]] = []
        for (index, height) in heights.enumerated() {
            let pixels = TestImages.photoLike(width: width, height: height, seed: UInt64(100 + index))
            sources.append(pixels)
            try TestImages.write(pixels, width: width, height: height, to: folder.file("\(index).png"))
        }
        let sheet = try render(folder, width: width + 16, columns: 1, background: .white)
        #expect(sheet.height == 8 + 40 + 8 + 71 + 8 + 13 + 8)
        var top = 8
        for (index, height) in heights.enumerated() {
            for y in 0..<height {
                for x in 0..<width {
                    let expected = Array(sources[index][(y * width + x) * 4 ..< (y * width + x) * 4 + 4])
                    let actual = pixel(sheet, 8 + x, top + y)
                    guard actual == expected else {
                        Issue.record("image \(index) pixel (\(x),\(y)): expected \(expected), got \(actual)")
                        return
                    }
                }
            }
            top += height + 8
        }
        #expect(pixel(sheet, 3, 3) == [255, 255, 255, 255], "margin keeps the background")
    }

    @Test func transparentPixelsShowTheColouredBackgroundAndHalfAlphaBlends() throws {
        let folder = TemporaryFolder()
        // Left half fully transparent green, right half 50 % red: same size as the column.
        let width = 50, height = 30
        var pixels = [UInt8]()
        for _ in 0..<height {
            for x in 0..<width { pixels += x < width / 2 ? [0, 255, 0, 0] : [255, 0, 0, 128] }
        }
        try TestImages.write(pixels, width: width, height: height, to: folder.file("a.png"))
        let background = RGBA8Color(r: 0x33, g: 0x66, b: 0x99)
        let sheet = try render(folder, width: width + 16, columns: 1, background: background)
        for y in 8..<(8 + height) {
            #expect(pixel(sheet, 8, y) == [0x33, 0x66, 0x99, 255], "transparent must show the background exactly")
            #expect(pixel(sheet, 8 + width / 2 - 1, y) == [0x33, 0x66, 0x99, 255])
            // 50 % red over #336699: c = red·128/255 + bg·127/255.
            let blended = pixel(sheet, 8 + width / 2, y)
            let weighted: [Int] = [255 * 128 + 0x33 * 127, 0x66 * 127, 0x99 * 127]
            let expected = weighted.map { Double($0) / 255 }
            for channel in 0..<3 {
                #expect(abs(Double(blended[channel]) - expected[channel]) <= 1, "channel \(channel): \(blended) vs \(expected)")
            }
        }
    }

    @Test func transparentBackgroundGivesAnRGBASheetThatKeepsAlpha() throws {
        let folder = TemporaryFolder()
        try TestImages.write(TestImages.flat(width: 20, height: 20, rgba: [10, 20, 30, 255]), width: 20, height: 20,
                             to: folder.file("a.png"))
        let sheet = try render(folder, width: 36, columns: 1, background: .transparent)
        let header = try PNGHeader(contentsOfFile: folder.file("sheet.png"))
        #expect(header.colorType == .rgba)
        #expect(pixel(sheet, 0, 0) == [0, 0, 0, 0])
        #expect(pixel(sheet, 10, 10) == [10, 20, 30, 255])
    }

    @Test(arguments: [(1000, 700, 3), (97, 61, 2), (5, 900, 4)])
    func flatImagesStayExactlyFlatAfterResampling(width: Int, height: Int, columns: Int) throws {
        let folder = TemporaryFolder()
        let colour: [UInt8] = [12, 200, 77, 255]
        try TestImages.write(TestImages.flat(width: width, height: height, rgba: colour), width: width, height: height,
                             to: folder.file("flat.png"))
        let sheet = try render(folder, width: 400, columns: columns, background: .black)
        let layout = MasonryLayout(configuration: try LayoutConfiguration(width: 400, columns: columns),
                                   sizes: [LayoutSize(width: width, height: height)])
        let image = try #require(layout.tiles.first).imageFrame
        for y in image.y..<image.maxY {
            for x in image.x..<image.maxX where pixel(sheet, x, y) != colour {
                Issue.record("(\(x),\(y)) is \(pixel(sheet, x, y)), not \(colour), in a \(width)×\(height) → \(image) tile")
                return
            }
        }
        #expect(pixel(sheet, image.x - 1, image.y) == [0, 0, 0, 255], "left of the tile is background")
    }
}
