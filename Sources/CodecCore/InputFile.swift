#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// An open, regular, readable file: the only kind of input the codec reads.
///
/// Opening never blocks (a FIFO opened with `O_NONBLOCK` is refused by the
/// `fstat` check), follows links to regular files, and reports FIFOs,
/// devices, sockets and folders with a reason (`PNGFailure.notARegularFile`). Paths are raw bytes, so names
/// that are not valid UTF-8 still open. The descriptor closes on deinit.
///
/// The file's first `headBytes` are read once, by the first read that starts inside them, and
/// kept: detection and a header reader ask for a few pieces of a file's start (a PNG's
/// signature, IHDR and colour chunks), which then cost one `pread` together instead of one each.
/// A million inputs' header pass makes a million fewer system calls per piece.
public final class InputFile {
    public let descriptor: Int32
    /// The size in bytes at the time of opening.
    public let size: Int
    /// The file system and inode of the open file: which file this is, whatever its name.
    public let device: UInt64
    public let inode: UInt64
    /// The modification time at the time of opening, in nanoseconds since 1970.
    public let modificationTime: Int64
    /// The first bytes of the file once a read has asked for them (empty before).
    private var head: [UInt8] = []
    private var headLoaded = false

    /// How many leading bytes the first read near the start loads and keeps: one page.
    public static let headBytes = 4096

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
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        modificationTime = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
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
        guard !buffer.isEmpty else { return 0 }
        if offset >= 0 && offset < Self.headBytes {
            if !headLoaded { try loadHead() }
            // Served from the head when the whole request lies in it, or the head holds the
            // whole file (it is shorter than a page): the bytes a `pread` would give.
            let end = offset + buffer.count
            if end <= head.count || (head.count < Self.headBytes && offset <= head.count) {
                let count = min(end, head.count) - offset
                head.withUnsafeBufferPointer { bytes in
                    buffer.baseAddress!.update(from: bytes.baseAddress! + offset, count: count)
                }
                return count
            }
        }
        return try readDirectly(at: offset, into: buffer)
    }

    private func loadHead() throws(ImageError) {
        var bytes = [UInt8](repeating: 0, count: Self.headBytes)
        let count = try bytes.withUnsafeMutableBufferPointer { buffer throws(ImageError) in
            try readDirectly(at: 0, into: buffer)
        }
        bytes.removeLast(Self.headBytes - count)
        head = bytes
        headLoaded = true
    }

    private func readDirectly(at offset: Int, into buffer: UnsafeMutableBufferPointer<UInt8>) throws(ImageError) -> Int {
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
