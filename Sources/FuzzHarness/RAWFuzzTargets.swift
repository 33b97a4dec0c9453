import CodecCore
import RAWCodec

extension FuzzTarget {
    /// The RAW header walks over TIFF-structured RAWs (the directories) and CR3s (the boxes),
    /// the previews' bounds and their JPEG frame headers; no LibRaw.
    static let rawHeader = FuzzTarget(name: "raw-header") { bytes in
        _ = try? RAWHeader(bytes: Array(bytes))
    }

    /// The RAW decoder both ways: the smallest preview through JPEGCodec, then LibRaw's half-size
    /// demosaic, within the fuzzing limits so that a claimed sensor size costs nothing.
    static let rawDecode = FuzzTarget(name: "raw-decode") { bytes in
        _ = withInputFile(bytes) { file in
            for minimum in [1, 1 << 20] {
                guard let decoder = try? RAWDecoder(file: file, limits: .fuzzing, minimumWidth: minimum, minimumHeight: minimum) else {
                    continue
                }
                while try decoder.nextRow() != nil {}
            }
        }
    }
}
