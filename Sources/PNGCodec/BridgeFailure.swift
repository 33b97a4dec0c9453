import CPNGBridge

extension PNGFailure {
    /// The case for a CPNGBridge failure: the bridge has already read libpng's
    /// text into a status; this only maps statuses to cases and copies details.
    init(bridge failure: mpng_failure) {
        let chunk = Self.text(failure.chunk)
        let named: String? = chunk.isEmpty ? nil : chunk
        let detail = Self.text(failure.detail)
        let width = Int(clamping: failure.width), height = Int(clamping: failure.height)
        let limit = Int(clamping: failure.limit)
        self = switch failure.status {
        case MPNG_NOT_PNG: .notPNG
        case MPNG_TEXT_MODE_TRANSFER: .textModeTransfer
        case MPNG_TRUNCATED_FILE: .truncatedFile
        case MPNG_TRUNCATED_IMAGE_DATA: .truncatedImageData
        case MPNG_IMAGE_DATA_CANNOT_FIT: .imageDataCannotFit(width: width, height: height, fileSize: limit)
        case MPNG_BAD_CRC: .badCRC(chunk: named)
        case MPNG_BAD_FILTER: .badFilterType
        case MPNG_MISSING_IHDR: .missingIHDR
        case MPNG_INVALID_IHDR: .invalidIHDR
        case MPNG_NO_IMAGE_DATA: .noImageData
        case MPNG_MISSING_PALETTE: .missingPalette
        case MPNG_CHUNK_OUT_OF_PLACE: .chunkOutOfPlace(chunk: named)
        case MPNG_DUPLICATE_CHUNK: .duplicateChunk(chunk: named)
        case MPNG_CORRUPT_IMAGE_DATA: .corruptImageData(detail: detail)
        case MPNG_PIXEL_LIMIT: .pixelLimit(width: width, height: height, limit: limit)
        case MPNG_WIDTH_LIMIT: .widthLimit(width: width, limit: limit)
        case MPNG_CHUNK_LIMIT: .chunkLimit(detail)
        case MPNG_OUT_OF_MEMORY: .outOfMemory
        case MPNG_READ_FAILED: .readFailed(errno: failure.error_number)
        case MPNG_WRITE_FAILED: .writeFailed(errno: failure.error_number == 0 ? nil : failure.error_number)
        case MPNG_MISUSE: .misuse(detail)
        default: .otherFormatError(detail)
        }
    }

    /// A NUL-terminated C array field as a String.
    private static func text<Field>(_ field: Field) -> String {
        withUnsafeBytes(of: field) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
