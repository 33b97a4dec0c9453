import HEIFCodec
import CodecCore
import PNGCodec

extension FuzzTarget {
    /// The HEIF/AVIF box parser (ftyp, meta and its item boxes; no libheif).
    static let heifHeader = FuzzTarget(name: "heif-header") { bytes in
        _ = withInputFile(bytes) { file in try HEIFHeader(file: file) }
    }

    /// The whole HEIF/AVIF decode: the box parser, then libheif on what it lets through, every
    /// row read (the smallest thumbnail that can stand in, when there is one).
    static let heifDecode = FuzzTarget(name: "heif-decode") { bytes in
        _ = withInputFile(bytes) { file in
            let decoder = try HEIFDecoder(file: file, limits: .fuzzing, minimumWidth: 0, minimumHeight: 0)
            try decoder.readRows { _, _ in }
        }
    }
}
