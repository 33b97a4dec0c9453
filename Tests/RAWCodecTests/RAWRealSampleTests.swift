// Real cameras' files (ExifTool's test images, pixel data stripped; Fixtures/exiftool/LICENSE.md)
// against LibRaw's own reading of them through rawpy (rawpy-sizes.txt).
import Foundation
import CodecCore
import RAWCodec
import Raster
import Testing

struct RealSample: Sendable, CustomTestStringConvertible {
    let name: String
    /// LibRaw's size as shown, nil when LibRaw does not open the file.
    let libRaw: (width: Int, height: Int)?
    var testDescription: String { name }

    static let everyLine: [RealSample] = {
        let lines = fixtureFolder.goldenFields("exiftool/rawpy-sizes.txt")
        precondition(lines.count == 7, "Tests/RAWCodecTests/Fixtures/exiftool/rawpy-sizes.txt should list 7 samples")
        return lines.map { fields in
            guard fields[1] != "unsupported" else { return RealSample(name: fields[0], libRaw: nil) }
            let width = Int(fields[1])!, height = Int(fields[2])!, flip = Int(fields[3])!
            return RealSample(name: fields[0], libRaw: flip & 4 != 0 ? (height, width) : (width, height))
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
