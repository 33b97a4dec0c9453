#if canImport(Glibc)
import Glibc
#endif

/// Why a PNG could not be read or written, and whose fault it is.
///
/// `failure` is the typed cause; `reason` is its short human phrase without the
/// file name ("truncated image data", "not a PNG file"); callers prefix the name.
public struct PNGError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Whose fault an error is.
    public enum Kind: Sendable, Hashable {
        /// The bytes break the PNG format (the file's fault).
        case malformed
        /// The file is valid but asks for more than the configured limits, or the
        /// memory at hand, allow (every out-of-memory failure is of this kind).
        case limitExceeded
        /// Reading or writing the underlying file failed (the system's fault).
        case io
        /// The caller asked for something the codec does not do (the caller's fault).
        case unsupported
    }

    public let failure: PNGFailure

    public init(_ failure: PNGFailure) {
        self.failure = failure
    }

    /// An error whose cause `PNGFailure` does not list (the JPEG codec and the
    /// sheet share this type): see `PNGFailure.described`.
    public init(_ kind: Kind, _ reason: String) {
        failure = .described(kind, reason)
    }

    public var kind: Kind { failure.kind }
    public var reason: String { failure.message }
    public var description: String { reason }
}

/// One case per cause of a PNG failure; each has one `kind` and one `message`.
public enum PNGFailure: Sendable, Hashable {
    // MARK: The file breaks the PNG format (.malformed)

    /// A file of no bytes.
    case emptyFile
    /// The file ends before the image data (or inside the 33-byte header).
    case truncatedFile
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
    /// The file ends inside the image data.
    case truncatedImageData
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

    /// `width`×`height` pixels is over `limit` (`PNGLimits.maxPixels`).
    case pixelLimit(width: Int, height: Int, limit: Int)
    /// `width` is over `limit` (`PNGLimits.maxWidth`).
    case widthLimit(width: Int, limit: Int)
    /// A chunk over libpng's allocation limits, in libpng's words.
    case chunkLimit(String)
    /// An allocation failed. Kind `.limitExceeded` wherever it happens (decoder, encoder,
    /// bridge): the file needs more memory than there is, which skips that file only.
    case outOfMemory
    /// The whole-image buffer of an interlaced `width`×`height` image could not be allocated.
    case outOfMemoryForInterlacedImage(width: Int, height: Int)

    // MARK: The system (.io)

    /// read(2) failed with `errno`.
    case readFailed(errno: Int32)
    /// write(2) failed with `errno`, or made no progress (nil).
    case writeFailed(errno: Int32?)
    /// Opening or reading an input failed with `errno` (see `InputFile`).
    case fileSystem(errno: Int32)
    /// An input path holds a NUL byte, which no file name can.
    case pathContainsNUL
    /// An input is a folder, FIFO, device or socket (`fileType`: `st_mode & S_IFMT`).
    case notARegularFile(fileType: UInt32)

    // MARK: The caller's fault (.unsupported)

    /// A decoder's rows are read once.
    case rowsAlreadyRead
    /// An encoder takes 1...2^31-1 pixels a side.
    case cannotEncodeSize(width: Int, height: Int)
    /// zlib levels are 0...9.
    case compressionLevelOutOfRange(Int)
    /// A row of the wrong length, or past the last row.
    case wrongRow(index: Int, byteCount: Int)
    /// `finish()` before every row was written.
    case missingRows(written: Int, height: Int)
    /// A whole image of the wrong byte count.
    case wrongPixelCount(expected: Int, got: Int)
    /// The codec was used against its contract, or libpng refused what it was asked to write.
    case misuse(String)

    // MARK: Other codecs

    /// A reason worded outside PNGCodec (the JPEG codec and the sheet reuse `PNGError`),
    /// with the kind its author chose.
    case described(PNGError.Kind, String)

    /// Whose fault this cause is: one kind per case.
    public var kind: PNGError.Kind {
        switch self {
        case .emptyFile, .truncatedFile, .notPNG, .textModeTransfer, .firstChunkNotIHDR, .missingIHDR, .badCRC,
             .zeroSize, .sizeOverPNGMaximum, .invalidColourType, .invalidBitDepth, .invalidMethods, .invalidIHDR,
             .badFilterType, .truncatedImageData, .imageDataCannotFit, .noImageData, .missingPalette,
             .chunkOutOfPlace, .duplicateChunk, .corruptImageData, .otherFormatError:
            .malformed
        case .pixelLimit, .widthLimit, .chunkLimit, .outOfMemory, .outOfMemoryForInterlacedImage:
            .limitExceeded
        case .readFailed, .writeFailed, .fileSystem, .pathContainsNUL, .notARegularFile:
            .io
        case .rowsAlreadyRead, .cannotEncodeSize, .compressionLevelOutOfRange, .wrongRow, .missingRows,
             .wrongPixelCount, .misuse:
            .unsupported
        case .described(let kind, _):
            kind
        }
    }

    /// The short phrase users see, without the file name.
    public var message: String {
        switch self {
        case .emptyFile: "empty file"
        case .truncatedFile: "truncated file"
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
        case .truncatedImageData: "truncated image data"
        case .imageDataCannotFit(let width, let height, let size):
            "truncated image data (a \(width)×\(height) image cannot fit in \(size) bytes)"
        case .noImageData: "missing image data (no IDAT chunk)"
        case .missingPalette: "missing palette"
        case .chunkOutOfPlace(let chunk): "\(chunk ?? "a") chunk out of place"
        case .duplicateChunk(let chunk): chunk.map { "duplicate \($0) chunk" } ?? "duplicate chunk"
        case .corruptImageData(let detail): "corrupt image data (\(detail))"
        case .otherFormatError(let words), .chunkLimit(let words), .misuse(let words): words
        case .pixelLimit(let width, let height, let limit): "image is \(width)×\(height), over the \(limit)-pixel limit"
        case .widthLimit(let width, let limit): "image is \(width) px wide, over the \(limit)-pixel width limit"
        case .outOfMemory: "out of memory"
        case .outOfMemoryForInterlacedImage(let width, let height):
            "out of memory for a \(width)×\(height) interlaced image"
        case .readFailed(let code): "read failed: \(Self.systemText(code))"
        case .writeFailed(let code): "write failed: \(code.map(Self.systemText) ?? "no progress")"
        case .fileSystem(let code): Self.fileSystemText(code)
        case .pathContainsNUL: "path contains a NUL byte"
        case .notARegularFile(let type): Self.fileTypeText(type)
        case .rowsAlreadyRead: "rows were already read"
        case .cannotEncodeSize(let width, let height): "cannot encode a \(width)×\(height) image"
        case .compressionLevelOutOfRange(let level): "compression level \(level) is not in 0...9"
        case .wrongRow(let index, let count): "row \(index) has \(count) bytes or is past the last row"
        case .missingRows(let written, let height): "only \(written) of \(height) rows were written"
        case .wrongPixelCount(let expected, let got): "expected \(expected) bytes, got \(got)"
        case .described(_, let reason): reason
        }
    }

    private static func systemText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    private static func fileSystemText(_ code: Int32) -> String {
        switch code {
        case ENOENT: "no such file"
        case EACCES, EPERM: "permission denied"
        case ELOOP: "too many levels of symbolic links"
        case EISDIR: "is a folder"
        default: systemText(code)
        }
    }

    private static func fileTypeText(_ type: UInt32) -> String {
        switch type {
        case S_IFDIR: "is a folder, not a file"
        case S_IFIFO: "is a FIFO, not a regular file"
        case S_IFCHR, S_IFBLK: "is a device, not a regular file"
        case S_IFSOCK: "is a socket, not a regular file"
        default: "is not a regular file"
        }
    }
}
