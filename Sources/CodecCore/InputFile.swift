#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// An open, regular, readable file: the only kind of input the codec reads.
///
/// Opening never blocks (a FIFO opened with `O_NONBLOCK` is refused by the
/// `fstat` check), follows links to regular files, and reports FIFOs,
/// devices, sockets and folders with a reason (`PNGFailure.notARegularFile`). Paths are raw bytes, so names
/// that are not valid UTF-8 still open. The descriptor closes on deinit.
public final class InputFile {
    public let descriptor: Int32
    /// The size in bytes at the time of opening.
    public let size: Int

    /// Opens the file whose path is the given bytes (no terminating NUL).
    public init(pathBytes: [UInt8]) throws(ImageError) {
        guard !pathBytes.contains(0) else { throw ImageError(.pathContainsNUL) }
        let fd = (pathBytes + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        }
        guard fd >= 0 else { throw ImageError(.fileSystem(errno: errno)) }
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            let code = errno
            close(fd)
            throw ImageError(.fileSystem(errno: code))
        }
        let kind = status.st_mode & S_IFMT
        guard kind == S_IFREG else {
            close(fd)
            throw ImageError(.notARegularFile(fileType: kind))
        }
        descriptor = fd
        size = Int(status.st_size)
    }

    public convenience init(path: String) throws(ImageError) {
        try self.init(pathBytes: Array(path.utf8))
    }

    deinit { close(descriptor) }

    /// Reads up to `buffer.count` bytes from the start of the file; returns how many were read.
    public func readPrefix(into buffer: inout [UInt8]) throws(ImageError) -> Int {
        do {
            return try buffer.withUnsafeMutableBufferPointer { bytes throws(ImageError) in try read(at: 0, into: bytes) }
        } catch {
            if case .readFailed(let code) = error.failure { throw ImageError(.fileSystem(errno: code)) }
            throw error
        }
    }

    /// Reads up to `buffer.count` bytes from `offset` with positioned reads (the descriptor's
    /// offset is not used); returns how many were read, fewer only at the end of the file.
    public func read(at offset: Int, into buffer: UnsafeMutableBufferPointer<UInt8>) throws(ImageError) -> Int {
        var total = 0
        while total < buffer.count {
            let got = pread(descriptor, buffer.baseAddress! + total, buffer.count - total, off_t(offset + total))
            if got < 0 {
                if errno == EINTR { continue }
                throw ImageError(.readFailed(errno: errno))
            }
            if got == 0 { break }
            total += got
        }
        return total
    }
}
