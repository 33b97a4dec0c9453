import CJPEGBridge
import CodecCore
#if canImport(Glibc)
import Glibc
#endif

/// Writes RGB8 pixels as a JFIF (4:2:0, libjpeg-turbo's standard tables scaled to a quality).
/// The benchmark uses it to make its JPEG corpus; sheets are always PNG.
public enum JPEGEncoder {
    /// Compresses `width` × `height` RGB8 pixels (row-major, 3 bytes a pixel).
    public static func encode(rgb: [UInt8], width: Int, height: Int, quality: Int = 90,
                              progressive: Bool = false) throws(ImageError) -> [UInt8] {
        guard width > 0, height > 0, width <= 65500, height <= 65500, rgb.count == width * height * 3 else {
            throw ImageError(.unsupported, "a JPEG is 1...65500 pixels a side, with 3 bytes a pixel")
        }
        var output: UnsafeMutablePointer<UInt8>?
        var count = 0
        var message = [CChar](repeating: 0, count: 200)
        let status = mjpg_encode_rgb(rgb, UInt32(width), UInt32(height), Int32(min(max(quality, 1), 100)),
                                     progressive ? 1 : 0, &output, &count, &message)
        guard status == MB_OK, let output else {
            throw ImageError(.limitExceeded, String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        defer { free(output) }
        return Array(UnsafeBufferPointer(start: output, count: count))
    }
}
