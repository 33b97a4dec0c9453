// Real cameras' files (ExifTool's test images, pixel data stripped; Fixtures/exiftool/LICENSE.md)
// against the picture LibRaw makes of them (libraw-shown-sizes.txt).
import Foundation
import CodecCore
import RAWCodec
import Raster
import Testing

struct RealSample: Sendable, CustomTestStringConvertible {
    let name: String
    /// The size of LibRaw's picture as shown, nil when LibRaw does not open the file.
    let libRaw: (width: Int, height: Int)?
    var testDescription: String { name }

    static let everyLine: [RealSample] = {
        let lines = fixtureFolder.goldenFields("exiftool/libraw-shown-sizes.txt")
        precondition(lines.count == 7, "Tests/RAWCodecTests/Fixtures/exiftool/libraw-shown-sizes.txt should list 7 samples")
        return lines.map { fields in
            guard fields[1] != "unsupported" else { return RealSample(name: fields[0], libRaw: nil) }
            return RealSample(name: fields[0], libRaw: (Int(fields[1])!, Int(fields[2])!))
        }
    }()
}

@Suite struct RAWRealSampleTests {
    @Test(arguments: RealSample.everyLine)
    func aRealCameraFileIsARAWWhoseHeaderAgreesWithLibRaw(_ sample: RealSample) throws {
        let bytes = try fixtureFolder.bytes("exiftool/" + sample.name)
        #expect(RAWHeader.container(prefix: Array(bytes.prefix(RAWHeader.signaturePrefixBytes))) != nil)
        let header: RAWHeader
        do {
            header = try RAWHeader(file: InputFile(path: fixtureFolder.path("exiftool/" + sample.name)))
        } catch {
            // Stripped files may lack what the walk needs: then a one-line reason, never a crash.
            #expect(!error.reason.isEmpty && !error.reason.contains("\n"))
            #expect(RAWRealSampleTests.refused[sample.name] == error.reason, "\(sample.name): \(error.reason)")
            return
        }
        #expect(RAWRealSampleTests.refused[sample.name] == nil, "\(sample.name) was read")
        guard let libRaw = sample.libRaw else { return }
        // Within 1 % of LibRaw's size on each side (LibRaw crops a few more columns of some sensors).
        // FujiFilm.raf is a SuperCCD: LibRaw lays its diagonal sensor out as 3584×3583 and makes a
        // 3030×2036 picture of it, which is what its tile must show.
        #expect(abs(header.displayWidth - libRaw.width) * 100 <= libRaw.width, "\(header.displayWidth) × \(header.displayHeight)")
        #expect(abs(header.displayHeight - libRaw.height) * 100 <= libRaw.height, "\(header.displayWidth) × \(header.displayHeight)")
    }

    /// The samples whose stripped structure the header refuses, with the reason.
    static let refused = ["CanonRaw.cr2": "Unsupported file format or not RAW file"]
}

extension RAWHeader {
    var displayWidth: Int { orientation.swapsAxes ? height : width }
    var displayHeight: Int { orientation.swapsAxes ? width : height }
}
