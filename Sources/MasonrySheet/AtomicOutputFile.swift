import Foundation
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// A file written beside its target under a temporary name and renamed into
/// place only when complete, so a failed or interrupted run leaves any earlier
/// file untouched. The temporary name never ends in `.png` or `.json`, so a
/// concurrent scan of the same folder cannot pick it up, and it is removed on
/// failure, on `discard()`, on deinit, and by `SignalCleanup` on Ctrl-C/SIGTERM.
public final class AtomicOutputFile {
    public let target: RawPath
    public let temporary: RawPath
    /// The open descriptor of the temporary file.
    public let descriptor: Int32
    private var finished = false

    /// Creates the temporary file; fails with a readable reason when the
    /// target's folder is missing or not writable, or the target is a folder.
    public init(target: RawPath) throws(SheetError) {
        var status = stat()
        if target.withCString({ stat($0, &status) }) == 0, status.st_mode & S_IFMT == S_IFDIR {
            throw SheetError("cannot write \(target.displayName): it is a folder")
        }
        // The rename in `commit()` replaces whatever the target name points at.
        // For a device, FIFO or socket (`-o /dev/null` as root) that would
        // swap the node itself for a PNG file, so only regular files (or
        // links to them) may be replaced.
        if target.withCString({ stat($0, &status) }) == 0, status.st_mode & S_IFMT != S_IFREG {
            throw SheetError("cannot write \(target.displayName): it is not a regular file")
        }
        let folder = target.parent
        var name = Array(".".utf8) + target.lastComponent + Array(".masonry-\(getpid())-".utf8)
        name += Array(String(UInt32.random(in: 0...UInt32.max), radix: 36).utf8) + Array(".tmp".utf8)
        let temporary = target.bytes.contains(UInt8(ascii: "/")) ? folder.appending(name) : RawPath(bytes: name)
        let fd = temporary.withCString { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666) }
        guard fd >= 0 else {
            let code = errno
            let reason = code == ENOENT ? "folder \(folder.displayName) does not exist"
                : code == ENOTDIR ? "\(folder.displayName) is not a folder"
                : String(cString: strerror(code))
            throw SheetError("cannot write \(target.displayName): \(reason)")
        }
        self.target = target
        self.temporary = temporary
        self.descriptor = fd
        SignalCleanup.register(temporary)
    }

    /// Flushes the data to disk and renames the file over the target.
    public func commit() throws(SheetError) {
        precondition(!finished, "output file committed twice")
        finished = true
        defer { SignalCleanup.unregister(temporary) }
        let synced = fsync(descriptor) == 0 || errno == EINVAL
        let syncError = errno
        close(descriptor)
        guard synced else {
            _ = temporary.withCString { unlink($0) }
            throw SheetError("cannot write \(target.displayName): \(String(cString: strerror(syncError)))")
        }
        let renamed = temporary.withCString { from in target.withCString { to in rename(from, to) } }
        guard renamed == 0 else {
            let reason = String(cString: strerror(errno))
            _ = temporary.withCString { unlink($0) }
            throw SheetError("cannot write \(target.displayName): \(reason)")
        }
    }

    /// Removes the temporary file; the target is untouched.
    public func discard() {
        guard !finished else { return }
        finished = true
        close(descriptor)
        _ = temporary.withCString { unlink($0) }
        SignalCleanup.unregister(temporary)
    }

    /// Writes all of `bytes`.
    public func write(_ bytes: [UInt8]) throws(SheetError) {
        var offset = 0
        while offset < bytes.count {
            let wrote = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if wrote < 0 && errno == EINTR { continue }
            guard wrote > 0 else {
                throw SheetError("cannot write \(target.displayName): \(String(cString: strerror(errno)))")
            }
            offset += wrote
        }
    }

    deinit { discard() }
}

/// Removes registered temporary files when the process is interrupted.
///
/// `install()` must run first thing in `main`, before any thread exists: it
/// blocks SIGINT, SIGTERM and SIGHUP in the calling thread (so every thread
/// started later inherits the mask) and starts one thread that waits for
/// them with `sigwait`, removes the temporary files and exits with 128 +
/// the signal number, as a shell reports a killed process.
public enum SignalCleanup {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var paths: Set<RawPath> = []

    static func register(_ path: RawPath) {
        lock.withLock { _ = paths.insert(path) }
    }

    static func unregister(_ path: RawPath) {
        lock.withLock { _ = paths.remove(path) }
    }

    public static func install() {
        var signals = sigset_t()
        sigemptyset(&signals)
        for signal in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&signals, signal) }
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        let waited = signals
        let thread = Thread {
            var set = waited
            var received: Int32 = 0
            sigwait(&set, &received)
            lock.lock()   // held until exit: no new temporary file can appear
            for path in paths { _ = path.withCString { unlink($0) } }
            _exit(128 + received)
        }
        thread.stackSize = 1 << 16
        thread.start()
    }
}
