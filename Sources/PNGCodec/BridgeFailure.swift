import CodecCore
import CPNGBridge

extension ImageError {
    /// The error for a CPNGBridge failure: the bridge has already read libpng's
    /// text into a status; this only maps statuses to causes and copies details.
    init(bridge failure: mpng_failure) {
        let chunk = Self.text(failure.chunk)
        let named: String? = chunk.isEmpty ? nil : chunk
        let detail = Self.text(failure.detail)
        let width = Int(clamping: failure.width), height = Int(clamping: failure.height)
        let limit = Int(clamping: failure.limit)
        let cause: any ImageFailureCause = switch failure.status {
        case MPNG_NOT_PNG: PNGFailure.notPNG
        case MPNG_TEXT_MODE_TRANSFER: PNGFailure.textModeTransfer
        case MPNG_TRUNCATED_FILE: ImageFailure.truncatedFile
        case MPNG_TRUNCATED_IMAGE_DATA: ImageFailure.truncatedImageData
        case MPNG_IMAGE_DATA_CANNOT_FIT: PNGFailure.imageDataCannotFit(width: width, height: height, fileSize: limit)
        case MPNG_BAD_CRC: PNGFailure.badCRC(chunk: named)
        case MPNG_BAD_FILTER: PNGFailure.badFilterType
        case MPNG_MISSING_IHDR: PNGFailure.missingIHDR
        case MPNG_INVALID_IHDR: PNGFailure.invalidIHDR
        case MPNG_NO_IMAGE_DATA: PNGFailure.noImageData
        case MPNG_MISSING_PALETTE: PNGFailure.missingPalette
        case MPNG_CHUNK_OUT_OF_PLACE: PNGFailure.chunkOutOfPlace(chunk: named)
        case MPNG_DUPLICATE_CHUNK: PNGFailure.duplicateChunk(chunk: named)
        case MPNG_CORRUPT_IMAGE_DATA: PNGFailure.corruptImageData(detail: detail)
        case MPNG_PIXEL_LIMIT: ImageFailure.pixelLimit(width: width, height: height, limit: limit)
        case MPNG_WIDTH_LIMIT: ImageFailure.widthLimit(width: width, limit: limit)
        case MPNG_CHUNK_LIMIT: PNGFailure.chunkLimit(detail)
        case MPNG_OUT_OF_MEMORY: ImageFailure.outOfMemory
        case MPNG_READ_FAILED: ImageFailure.readFailed(errno: failure.error_number)
        case MPNG_WRITE_FAILED: ImageFailure.writeFailed(errno: failure.error_number == 0 ? nil : failure.error_number)
        case MPNG_MISUSE: ImageFailure.misuse(detail)
        default: PNGFailure.otherFormatError(detail)
        }
        self.init(cause)
    }

    /// A NUL-terminated C array field as a String.
    private static func text<Field>(_ field: Field) -> String {
        withUnsafeBytes(of: field) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
