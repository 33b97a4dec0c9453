import ColorManagement
import Foundation
import Raster
import Testing
import TestSupport

/// Measures where the conversion belongs: before resampling (on every decoded pixel) or after
/// (on the tile's), both against the ImageCms-then-Lanczos tile goldens.
@Suite struct ConversionPlacementTests {
    @Test(arguments: SheetColorTests.cases.map { $0[0] })
    func convertingBeforeResampling(_ fixture: String) throws {
        let fields = try #require(SheetColorTests.cases.first { $0[0] == fixture })
        let picture = try ConvertedPicture(fixture)
        let golden = try ConvertedPicture.golden(fields[1].replacingOccurrences(of: ".golden.png", with: ".tile.golden.png"))
        let scaler = StreamingResampler(sourceWidth: picture.width, sourceHeight: picture.height, targetWidth: golden.width,
                                        targetHeight: golden.height, sourceFormat: .rgb8)
        var tile: [UInt8] = []
        picture.rgb.withUnsafeBufferPointer { all in
            for y in 0..<picture.height {
                scaler.push(row: UnsafeBufferPointer(rebasing: all[y * picture.width * 3 ..< (y + 1) * picture.width * 3])) { _, pixels in
                    tile += ConvertedPicture.narrow(Array(pixels))
                }
            }
        }
        let error = ColorErrorSummary(rgb: tile, golden.rgb)
        TestLog.verbose("\(fixture) converted before resampling: \(error)")
        #expect(error.mean <= 1.0 && error.percentile99 <= 3.0, "\(fixture): \(error)")
    }
}
