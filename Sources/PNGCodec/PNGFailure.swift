import CodecCore

/// One case per cause of a PNG failure; each has one `kind` and one `message`.
public enum PNGFailure: ImageFailureCause, Hashable {
    // MARK: The file breaks the PNG format (.malformed)

    /// The file does not start with the PNG signature.
    case notPNG
    /// The signature's bytes were changed by a newline conversion.
    case textModeTransfer
    /// The header read found something other than a 13-byte IHDR first.
    case firstChunkNotIHDR
    /// libpng met a chunk before IHDR.
    case missingIHDR
    /// A chunk's CRC does not match its bytes (`chunk`: its name, when known).
    case badCRC(chunk: String?)
    /// IHDR's width or height is zero.
    case zeroSize(width: Int, height: Int)
    /// IHDR's width or height is over 2^31-1.
    case sizeOverPNGMaximum(width: Int, height: Int)
    /// IHDR's colour type is not 0, 2, 3, 4 or 6.
    case invalidColourType(Int)
    /// IHDR's bit depth is not allowed with its colour type.
    case invalidBitDepth(Int, colourType: Int)
    /// IHDR's compression, filter or interlace method is unknown.
    case invalidMethods
    /// libpng's verdict on IHDR (size, bit depth, colour type or a method).
    case invalidIHDR
    /// A row's filter type is not 0...4.
    case badFilterType
    /// The header claims a `width`×`height` image that a file of `fileSize` bytes cannot hold.
    case imageDataCannotFit(width: Int, height: Int, fileSize: Int)
    /// IEND came before any IDAT.
    case noImageData
    /// A palette image has no PLTE before its image data.
    case missingPalette
    /// A chunk where the format does not allow it (`chunk`: its name, when known).
    case chunkOutOfPlace(chunk: String?)
    /// A chunk that may appear once appears again (`chunk`: its name, when known).
    case duplicateChunk(chunk: String?)
    /// The image data does not inflate; `detail` is zlib's (or libpng's) explanation.
    case corruptImageData(detail: String)
    /// Any other verdict of libpng on the file, in libpng's words.
    case otherFormatError(String)

    // MARK: More than the limits allow (.limitExceeded)

    /// A chunk over libpng's allocation limits, in libpng's words.
    case chunkLimit(String)
    /// The whole-image buffer of an interlaced `width`×`height` image could not be allocated.
    case outOfMemoryForInterlacedImage(width: Int, height: Int)

    // MARK: The caller's fault (.unsupported)

    /// zlib levels are 0...9.
    case compressionLevelOutOfRange(Int)

    /// Whose fault this cause is: one kind per case.
    public var kind: ImageError.Kind {
        switch self {
        case .notPNG, .textModeTransfer, .firstChunkNotIHDR, .missingIHDR, .badCRC,
             .zeroSize, .sizeOverPNGMaximum, .invalidColourType, .invalidBitDepth, .invalidMethods, .invalidIHDR,
             .badFilterType, .imageDataCannotFit, .noImageData, .missingPalette,
             .chunkOutOfPlace, .duplicateChunk, .corruptImageData, .otherFormatError:
            .malformed
        case .chunkLimit, .outOfMemoryForInterlacedImage:
            .limitExceeded
        case .compressionLevelOutOfRange:
            .unsupported
        }
    }

    /// The short phrase users see, without the file name.
    public var message: String {
        switch self {
        case .notPNG: "not a PNG file"
        case .textModeTransfer: "not a PNG file (corrupted by text-mode transfer)"
        case .firstChunkNotIHDR: "first chunk is not IHDR"
        case .missingIHDR: "missing IHDR chunk"
        case .badCRC(let chunk): "bad CRC in \(chunk ?? "a") chunk"
        case .zeroSize(let width, let height): "image has zero width or height (\(width)×\(height))"
        case .sizeOverPNGMaximum(let width, let height): "image size \(width)×\(height) exceeds the PNG maximum of 2^31-1"
        case .invalidColourType(let type): "invalid colour type \(type)"
        case .invalidBitDepth(let depth, let type): "invalid bit depth \(depth) for colour type \(type)"
        case .invalidMethods: "invalid compression, filter or interlace method in IHDR"
        case .invalidIHDR: "invalid IHDR chunk (size, bit depth or colour type)"
        case .badFilterType: "bad filter type in image data"
        case .imageDataCannotFit(let width, let height, let size):
            "truncated image data (a \(width)×\(height) image cannot fit in \(size) bytes)"
        case .noImageData: "missing image data (no IDAT chunk)"
        case .missingPalette: "missing palette"
        case .chunkOutOfPlace(let chunk): "\(chunk ?? "a") chunk out of place"
        case .duplicateChunk(let chunk): chunk.map { "duplicate \($0) chunk" } ?? "duplicate chunk"
        case .corruptImageData(let detail): "corrupt image data (\(detail))"
        case .otherFormatError(let words), .chunkLimit(let words): words
        case .outOfMemoryForInterlacedImage(let width, let height):
            "out of memory for a \(width)×\(height) interlaced image"
        case .compressionLevelOutOfRange(let level): "compression level \(level) is not in 0...9"
        }
    }
}

extension ImageError {
    /// A PNG cause (`ImageError(.badCRC(chunk: "IDAT"))`).
    public init(_ failure: PNGFailure) {
        self.init(failure as any ImageFailureCause)
    }

    /// The PNG cause, when the error has one.
    public var pngFailure: PNGFailure? { cause as? PNGFailure }
}
