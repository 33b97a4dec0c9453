import JPEGCodec
import CodecCore
import PNGCodec

extension FuzzTarget {
    /// The libjpeg bridge (CJPEGBridge): every row, at the DCT scale (1/8, 1/4, 1/2 or 1) that
    /// the input's length picks, with the product's memory budget.
    static let jpegDecode = FuzzTarget(name: "jpeg-decode") { bytes in
        let eighths = [1, 2, 4, 8][bytes.count % 4]
        _ = withInputFile(bytes) { file in
            let header = try JPEGHeader(file: file)
            // The smallest tile for which `scaleEighths` picks `eighths`: half the scaled size.
            let decoder = try JPEGDecoder(file: file, limits: .fuzzing,
                                          minimumWidth: (header.width * eighths + 7) / 8 / 2,
                                          minimumHeight: (header.height * eighths + 7) / 8 / 2)
            try decoder.readRows { _, _ in }
        }
    }
}
