import CodecCore
import PNGCodec
import WebPCodec

extension FuzzTarget {
    /// The WebP header reader: the RIFF chunk walk (VP8, VP8L, VP8X, ANMF count, EXIF, ICCP), no libwebp.
    static let webpHeader = FuzzTarget(name: "webp-header") { bytes in
        _ = withInputFile(bytes) { file in try WebPHeader(file: file) }
    }

    /// The WebP decoder (header, then libwebp's incremental decoder, every row): inputs of even
    /// length are decoded for a 16 × 16 tile (libwebp's scaling), odd ones at full size.
    static let webpDecode = FuzzTarget(name: "webp-decode") { bytes in
        let minimum = bytes.count % 2 == 0 ? 16 : 1 << 20
        _ = withInputFile(bytes) { file in
            let decoder = try WebPDecoder(file: file, limits: .fuzzing, minimumWidth: minimum, minimumHeight: minimum)
            while try decoder.nextRow() != nil {}
        }
    }
}
