import CBridgeSupport
import CRAWBridge
import CodecCore
import Raster

/// What LibRaw read from a RAW's metadata (for the containers Masonry has no walk of its own for).
struct RAWMetadata {
    let width: Int
    let height: Int
    let orientation: ExifOrientation
    let sensorPixels: Int
}

/// The calls into CRAWBridge: LibRaw is handed the file's bytes, read from Masonry's own
/// descriptor, never a path.
enum RAWLibrary {
    /// LibRaw's version as it runs.
    static let version = String(cString: mraw_library_version())

    /// LibRaw may allocate at most this much at once (its `max_raw_memory_mb`).
    static let maxMemoryMB: UInt32 = 1024

    /// LibRaw's metadata (no pixel unpacked), with the size of the picture it makes (a Fuji
    /// SuperCCD's turned upright, pixels stretched square). The caller bounded the file's size.
    static func metadata(of file: InputFile) throws(ImageError) -> RAWMetadata {
        let opened = try Opened(file: file, maxPixels: UInt64.max)
        var width: UInt32 = 0, height: UInt32 = 0
        let status = mraw_decoder_shown_size(opened.decoder, &width, &height)
        guard status == MB_OK else {
            throw ImageError(bridge: status, message: mraw_decoder_message(opened.decoder).pointee, fallback: "LibRaw cannot size the picture")
        }
        return RAWMetadata(width: Int(width), height: Int(height), orientation: orientation(flip: opened.info.flip),
                           sensorPixels: Int(opened.info.raw_width) * Int(opened.info.raw_height))
    }

    /// LibRaw's `flip` as an EXIF orientation (dcraw maps EXIF 1…8 to flips 0, 1, 3, 2, 4, 6, 7, 5).
    static func orientation(flip: Int32) -> ExifOrientation {
        let exif = [1, 2, 4, 3, 5, 8, 6, 7]
        return ExifOrientation(rawValue: exif[Int(flip & 7)]) ?? .up
    }

    /// One LibRaw handle over the file's bytes, closed on deinit.
    final class Opened {
        let decoder: OpaquePointer
        let info: mraw_info

        init(file: InputFile, maxPixels: UInt64) throws(ImageError) {
            if let failure = mraw_library_failure() {
                throw ImageError(.unsupported, "LibRaw is not available: \(String(cString: failure))")
            }
            guard let decoder = mraw_decoder_create(maxPixels, maxMemoryMB) else { throw ImageError(.outOfMemory) }
            self.decoder = decoder
            var info = mraw_info()
            let status = mraw_decoder_open_fd(decoder, file.descriptor, file.size, &info)
            guard status == MB_OK else {
                let error = ImageError(bridge: status, message: mraw_decoder_message(decoder).pointee, fallback: "LibRaw cannot open the file")
                mraw_decoder_destroy(decoder)
                throw error
            }
            self.info = info
        }

        deinit { mraw_decoder_destroy(decoder) }
    }

    /// A demosaic, held whole (LibRaw makes it in one call) in RGB8: at half size (each 2×2
    /// cell of the sensor one pixel) when half of `shown` (the header's size of the picture
    /// LibRaw makes) is still at least twice `target`, else full size.
    final class Demosaic {
        let width: Int
        let height: Int
        /// Damage LibRaw filled while unpacking.
        let warning: ImageError?
        private let opened: Opened
        private let pixels: UnsafePointer<UInt8>

        init(file: InputFile, shown: (width: Int, height: Int), limits: DecodeLimits, target: DecodeTarget) throws(ImageError) {
            opened = try Opened(file: file, maxPixels: UInt64(max(limits.maxPixels, 0)))
            let half = target.accepts(width: shown.width / 2, height: shown.height / 2)
            var width: UInt32 = 0, height: UInt32 = 0
            let status = mraw_decoder_demosaic(opened.decoder, half ? 1 : 0, &width, &height)
            guard status == MB_OK, let pixels = mraw_decoder_pixels(opened.decoder) else {
                throw ImageError(bridge: status == MB_OK ? MB_USAGE : status, message: mraw_decoder_message(opened.decoder).pointee,
                                 fallback: "LibRaw cannot demosaic the file")
            }
            self.width = Int(width)
            self.height = Int(height)
            self.pixels = pixels
            let words = ImageError.text(mraw_decoder_warning(opened.decoder).pointee)
            warning = words.isEmpty ? nil : ImageError(.malformed, words)
        }

        /// Row `y` (width × 3 bytes), valid while the demosaic lives.
        func row(_ y: Int) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(start: pixels + y * width * 3, count: width * 3)
        }
    }
}
