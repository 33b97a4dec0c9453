import CodecCore
import TIFFCodec

extension FuzzTarget {
    /// The TIFF header walk (the IFD chain, the first page's entries, its levels; no libtiff).
    static let tiffHeader = FuzzTarget(name: "tiff-header") { bytes in
        _ = try? TIFFHeader(bytes: Array(bytes))
    }

    /// The TIFF decoder: the header walk, then libtiff and every row of the first page, within
    /// a small budget so that a claimed size costs nothing.
    static let tiffDecode = FuzzTarget(name: "tiff-decode") { bytes in
        _ = withInputFile(bytes) { file in
            let decoder = try TIFFDecoder(file: file, limits: .fuzzing, minimumWidth: 1 << 20, minimumHeight: 1 << 20,
                                          memoryBudget: 16 << 20)
            while try decoder.nextRow() != nil {}
        }
    }
}
