import Foundation
import WaterfallLayout
import MasonrySheet
import CodecCore
import PNGCodec
import Testing
import TestSupport

/// JPEGs whose sides the DCT scale does not divide, through the whole tool: libjpeg rounds the
/// scaled size up, and the painter must resample from the exact scaled extent, or the tile is
/// stretched by up to a scaled pixel (measured in the sheet before the fix: 40.8 and 45.3 dB
/// against Pillow's tile; goldens by Tests/JPEGCodecTests/Fixtures/make_fixtures.py).
@Suite struct JPEGSheetTests {
    static let fixtures = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/JPEG")

    /// A one-tile sheet, one column as wide as the tile, 8 px margins, over white: the tile's
    /// pixels are the sheet's at (8, 8). (name, tile width, tile height, the least dB.)
    @Test(arguments: [("chelsea-q80-422-progressive", 110, 73, 48.0), ("retina-q85-420", 100, 300, 53.0)])
    func oddSidedTileIsPillowsTile(_ example: (String, Int, Int, Double)) throws {
        let (name, width, height, least) = example
        let folder = TemporaryFolder()
        try FileManager.default.copyItem(atPath: Self.fixtures.appendingPathComponent(name + ".jpg").path,
                                         toPath: folder.file(name + ".jpg"))
        var options = SheetOptions(layout: try LayoutConfiguration(width: width + 16, columns: 1, columnGap: 8, rowGap: 8,
                                                                   insets: LayoutInsets(all: 8)))
        options.background = .white
        let output = RawPath(folder.file("sheet.png"))
        _ = try SheetPipeline.run(SheetRequest(inputs: [RawPath(folder.file(name + ".jpg"))], output: output, options: options))
        let sheet = try PNGDecoder.decodeRGBA(contentsOfFile: output.displayName)
        #expect((sheet.width, sheet.height) == (width + 16, height + 16))
        var drawn: [UInt8] = []
        for y in 8 ..< 8 + height {
            for x in 8 ..< 8 + width {
                let at: Int = (y * sheet.width + x) * 4
                drawn += sheet.pixels[at ..< at + 3]
            }
        }
        let decibels = psnr(drawn, try goldenRGB(Self.fixtures.appendingPathComponent(name + ".golden.png").path).rgb)
        TestLog.verbose(String(format: "%@ in a sheet: %.2f dB against Pillow's tile", name, decibels))
        #expect(decibels >= least, "\(name): \(decibels) dB")
    }
}
