import Testing
@testable import Raster

/// Agreement with Pillow's `Image.resize(size, Image.LANCZOS)` on photographs
/// (fixtures and the script that made them: Fixtures/README.md).
@Suite struct ReferenceTests {
    static let photos = ["astronaut", "coffee", "chelsea"]

    /// Downscales by 1.5x, 3x and 7x of a 256x256 crop must reach 35 dB.
    @Test(arguments: photos, [(171, 171), (85, 85), (37, 37)])
    func downscaleMatchesPillowLanczos(photo: String, size: (width: Int, height: Int)) throws {
        let source = try TestImage(fixture: photo)
        let reference = try TestImage(fixture: "\(photo)-\(size.width)x\(size.height)")
        let psnr = source.resampled(toWidth: size.width, toHeight: size.height).psnr(against: reference)
        print("PSNR \(photo) 256x256 -> \(size.width)x\(size.height): \(psnr) dB")
        #expect(psnr >= 35, "\(photo) -> \(size.width)x\(size.height): \(psnr) dB")
    }

    /// Enlarging uses Catmull-Rom, not Lanczos-3 as the reference does: the bar is 30 dB.
    @Test(arguments: photos)
    func upscaleIsCloseToPillowLanczos(photo: String) throws {
        let source = try TestImage(fixture: "\(photo)-small")
        let reference = try TestImage(fixture: "\(photo)-small-160x120")
        let psnr = source.resampled(toWidth: 160, toHeight: 120).psnr(against: reference)
        print("PSNR \(photo) 64x48 -> 160x120: \(psnr) dB")
        #expect(psnr >= 30, "\(photo) 64x48 -> 160x120: \(psnr) dB")
    }
}
