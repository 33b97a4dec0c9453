#if canImport(Glibc)
import Glibc
#endif

/// Why an image could not be read or written, whatever its format, and whose fault it is.
///
/// `cause` is the typed cause: a shared `ImageFailure` (files, limits, the system, the caller),
/// a codec's own cause type (`PNGFailure`), or a reason worded by a codec or a library
/// (`ImageError(.malformed, "truncated GIF file")`). `reason` is its short human phrase without
/// the file name; callers prefix the name. Two errors are equal when their kinds and reasons are.
public struct ImageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Whose fault an error is.
    public enum Kind: Sendable, Hashable {
        /// The bytes break the file's format (the file's fault).
        case malformed
        /// The file is valid but asks for more than the configured limits, or the memory at
        /// hand, allow (every out-of-memory failure is of this kind).
        case limitExceeded
        /// Reading or writing the underlying file failed (the system's fault).
        case io
        /// The file is valid but uses what the codec does not read, or the caller asked for
        /// something the codec does not do.
        case unsupported
    }

    /// The typed cause.
    public let cause: any ImageFailureCause

    public init(_ cause: any ImageFailureCause) {
        self.cause = cause
    }

    /// A shared cause (`ImageError(.truncatedFile)`).
    public init(_ failure: ImageFailure) {
        cause = failure
    }

    /// A cause worded by its codec or library, with the kind its author chose.
    public init(_ kind: Kind, _ reason: String) {
        cause = DescribedFailure(kind: kind, message: reason)
    }

    public var kind: Kind { cause.kind }
    public var reason: String { cause.message }
    public var description: String { reason }

    /// The shared cause, when the error has one.
    public var failure: ImageFailure? { cause as? ImageFailure }

    public static func == (a: ImageError, b: ImageError) -> Bool { a.kind == b.kind && a.reason == b.reason }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(reason)
    }
}

/// A typed cause of an `ImageError`: one kind and one message. Each codec may define its own
/// enum of causes beside `ImageFailure`.
public protocol ImageFailureCause: Sendable {
    var kind: ImageError.Kind { get }
    /// The short phrase users see, without the file name.
    var message: String { get }
}

/// A reason in a codec's or a library's words.
struct DescribedFailure: ImageFailureCause {
    let kind: ImageError.Kind
    let message: String
}

/// The causes every format shares; each has one `kind` and one `message`.
public enum ImageFailure: ImageFailureCause, Hashable {
    // MARK: The file's fault (.malformed)

    /// A file of no bytes.
    case emptyFile
    /// The file ends inside its header.
    case truncatedFile
    /// The file ends inside the image data.
    case truncatedImageData
    /// The file is shorter than the shortest signature of any format (`ImageFormats`).
    case tooShortForAnyFormat(size: Int)

    // MARK: More than the limits allow (.limitExceeded)

    /// `width`×`height` pixels is over `limit` (`DecodeLimits.maxPixels`).
    case pixelLimit(width: Int, height: Int, limit: Int)
    /// `width` is over `limit` (`DecodeLimits.maxWidth`).
    case widthLimit(width: Int, limit: Int)
    /// An allocation failed. Kind `.limitExceeded` wherever it happens (decoder, encoder,
    /// bridge): the file needs more memory than there is, which skips that file only.
    case outOfMemory

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
    /// The file is not the one the header pass read (its header differs now).
    case changedWhileReading

    // MARK: The caller's fault (.unsupported)

    /// A decoder's rows are read once.
    case rowsAlreadyRead
    /// An encoder takes 1...2^31-1 pixels a side.
    case cannotEncodeSize(width: Int, height: Int)
    /// A row of the wrong length, or past the last row.
    case wrongRow(index: Int, byteCount: Int)
    /// `finish()` before every row was written.
    case missingRows(written: Int, height: Int)
    /// A whole image of the wrong byte count.
    case wrongPixelCount(expected: Int, got: Int)
    /// The codec was used against its contract, or its library refused what it was asked to do.
    case misuse(String)

    public var kind: ImageError.Kind {
        switch self {
        case .emptyFile, .truncatedFile, .truncatedImageData, .tooShortForAnyFormat: .malformed
        case .pixelLimit, .widthLimit, .outOfMemory: .limitExceeded
        case .readFailed, .writeFailed, .fileSystem, .pathContainsNUL, .notARegularFile, .changedWhileReading: .io
        case .rowsAlreadyRead, .cannotEncodeSize, .wrongRow, .missingRows, .wrongPixelCount, .misuse: .unsupported
        }
    }

    public var message: String {
        switch self {
        case .emptyFile: "empty file"
        case .truncatedFile: "truncated file"
        case .truncatedImageData: "truncated image data"
        case .tooShortForAnyFormat(let size): "too short for any image format (\(size) bytes)"
        case .pixelLimit(let width, let height, let limit): "image is \(width)×\(height), over the \(limit)-pixel limit"
        case .widthLimit(let width, let limit): "image is \(width) px wide, over the \(limit)-pixel width limit"
        case .outOfMemory: "out of memory"
        case .readFailed(let code): "read failed: \(Self.systemText(code))"
        case .writeFailed(let code): "write failed: \(code.map(Self.systemText) ?? "no progress")"
        case .fileSystem(let code): Self.fileSystemText(code)
        case .pathContainsNUL: "path contains a NUL byte"
        case .notARegularFile(let type): Self.fileTypeText(type)
        case .changedWhileReading: "file changed while it was being read"
        case .rowsAlreadyRead: "rows were already read"
        case .cannotEncodeSize(let width, let height): "cannot encode a \(width)×\(height) image"
        case .wrongRow(let index, let count): "row \(index) has \(count) bytes or is past the last row"
        case .missingRows(let written, let height): "only \(written) of \(height) rows were written"
        case .wrongPixelCount(let expected, let got): "expected \(expected) bytes, got \(got)"
        case .misuse(let words): words
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
