import JPEGCodec
import CodecCore
import PNGCodec

extension FuzzTarget {
    /// The PNG header reader (signature and IHDR, no libpng).
    static let pngHeader = FuzzTarget(name: "png-header") { bytes in
        _ = try? PNGHeader(parsing: Array(bytes))
    }

    /// The JPEG header reader: markers up to the first scan, EXIF orientation.
    static let jpegHeader = FuzzTarget(name: "jpeg-header") { bytes in
        _ = withInputFile(bytes) { file in try JPEGHeader(file: file) }
    }
}
