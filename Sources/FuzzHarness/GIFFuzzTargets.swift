import GIFCodec
import CodecCore
import PNGCodec

extension FuzzTarget {
    /// The GIF header walk (signature, screen, every record's sub-blocks; no giflib).
    static let gifHeader = FuzzTarget(name: "gif-header") { bytes in
        _ = try? GIFHeader(bytes: Array(bytes))
    }

    /// The GIF decoder: the header walk, then giflib up to the first frame and every row of it.
    static let gifDecode = FuzzTarget(name: "gif-decode") { bytes in
        _ = withInputFile(bytes) { file in
            let decoder = try GIFDecoder(file: file, limits: .fuzzing)
            while try decoder.nextRow() != nil {}
        }
    }
}
