import WorkerThreads
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// A file written beside its target under a temporary name and renamed into
/// place only when complete, so a failed or interrupted run leaves any earlier
/// file untouched. The temporary name (`TemporaryName`) never ends in `.png`
/// or `.json`, so a concurrent scan of the same folder cannot pick it up, and
/// it is removed on failure, on `discard()`, on deinit, by `SignalCleanup` on
/// Ctrl-C/SIGTERM, and, after a SIGKILL or a crash, by the next run that writes
/// in the same folder.
public final class AtomicOutputFile {
    public let target: RawPath
    public let temporary: RawPath
    /// The open descriptor of the temporary file.
    public let descriptor: Int32
    private var finished = false

    /// Creates the temporary file; fails with a readable reason when the
    /// target's folder is missing or not writable, or the target is a folder.
    public init(target: RawPath) throws(SheetError) {
        if let status = target.status(), status.st_mode & S_IFMT != S_IFREG {
            // The rename in `commit()` replaces whatever the target name points at.
            // For a device, FIFO or socket (`-o /dev/null` as root) that would
            // swap the node itself for a PNG file, so only regular files (or
            // links to them) may be replaced.
            let what = status.st_mode & S_IFMT == S_IFDIR ? "it is a folder" : "it is not a regular file"
            throw SheetError("cannot write \(target.displayName): \(what)")
        }
        let folder = target.parent
        if Self.isAppendOnly(folder) {
            // Files can be made there but never renamed or removed: the temporary file would stay forever.
            throw SheetError("cannot write \(target.displayName): folder \(folder.displayName) is append-only (chattr +a), "
                             + "so no file in it can be replaced")
        }
        TemporaryName.removeAbandoned(in: folder)
        var fd: Int32 = -1, code: Int32 = 0
        var temporary = target
        for _ in 0..<8 {   // another run's name may be taken by chance: draw again
            let name = TemporaryName.make(for: target.lastComponent)
            temporary = target.bytes.contains(UInt8(ascii: "/")) ? folder.appending(name) : RawPath(bytes: name)
            let path = temporary
            (fd, code) = SignalCleanup.create(path) { path.open(O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o666) }
            if fd >= 0 || code != EEXIST { break }
        }
        guard fd >= 0 else {
            let reason = code == ENOENT ? "folder \(folder.displayName) does not exist"
                : code == ENOTDIR ? "\(folder.displayName) is not a folder"
                : String(cString: strerror(code))
            throw SheetError("cannot write \(target.displayName): \(reason)")
        }
        self.target = target
        self.temporary = temporary
        self.descriptor = fd
    }

    /// Starts writing the finished file's data to disk without waiting, so the `fsync` of
    /// `commit` (after every page of a run is painted) finds little left to do. On Linux,
    /// `POSIX_FADV_DONTNEED` starts the writeback of dirty pages and drops clean ones (nothing
    /// reads the file back). Only a hint: errors are left for `commit`'s `fsync`.
    public func startWriteback() {
        _ = posix_fadvise(descriptor, 0, 0, POSIX_FADV_DONTNEED)
    }

    /// Flushes the data to disk and renames the file over the target.
    public func commit() throws(SheetError) {
        try Self.commit([self])
    }

    /// Flushes every file to disk, then renames them over their targets in
    /// order while holding `OutputLock` on their folders, so that runs writing
    /// the same outputs concurrently never leave files of one run beside files
    /// of another.
    public static func commit(_ files: [AtomicOutputFile]) throws(SheetError) {
        for file in files {
            precondition(!file.finished, "output file committed twice")
            let synced = fsync(file.descriptor) == 0 || errno == EINVAL
            if !synced { throw file.failure(errno) }
        }
        let lock = try OutputLock(folders: files.map(\.target.parent))
        defer { lock.release() }
        for file in files {
            file.finished = true
            close(file.descriptor)
            let renamed = file.temporary.withCString { from in file.target.withCString { to in rename(from, to) } }
            let code = errno
            SignalCleanup.unregister(file.temporary)
            guard renamed == 0 else {
                _ = file.temporary.withCString { unlink($0) }
                throw file.failure(code)
            }
        }
    }

    private func failure(_ code: Int32) -> SheetError {
        SheetError("cannot write \(target.displayName): \(String(cString: strerror(code)))")
    }

    /// Whether the folder has the append-only attribute (`FS_IOC_GETFLAGS`
    /// reports `FS_APPEND_FL`); false where the file system has no such flags.
    private static func isAppendOnly(_ folder: RawPath) -> Bool {
        let getFlags: UInt = 0x8008_6601   // FS_IOC_GETFLAGS: _IOR('f', 1, long) on 64-bit Linux
        let appendOnly = 0x20              // FS_APPEND_FL
        let descriptor = folder.open(O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var flags = 0   // the kernel writes an int into this
        guard ioctl(descriptor, getFlags, &flags) == 0 else { return false }
        return flags & appendOnly != 0
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
            guard wrote > 0 else { throw failure(errno) }
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
    private static let paths = Lock<Set<RawPath>>([])

    /// Creates the temporary file `path` with `create` (which returns a descriptor, or -1) and
    /// registers it, both under the lock the signal thread takes before removing files: a file
    /// is either registered when a signal comes, or not made at all (the signal thread keeps the
    /// lock until the process exits).
    /// Returns the descriptor and, when it is -1, the `errno` of the failure.
    static func create(_ path: RawPath, _ create: () -> Int32) -> (descriptor: Int32, errno: Int32) {
        paths.withLock { paths in
            let descriptor = create()
            let code = errno
            if descriptor >= 0 { paths.insert(path) }
            return (descriptor, code)
        }
    }

    static func unregister(_ path: RawPath) {
        paths.withLock { _ = $0.remove(path) }
    }

    public static func install() {
        var signals = sigset_t()
        sigemptyset(&signals)
        for signal in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&signals, signal) }
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        let waited = signals
        // Never joined: the thread ends the process.
        _ = ThreadGroup.start(1, stackSize: 1 << 16) { _ in
            var set = waited
            var received: Int32 = 0
            sigwait(&set, &received)
            paths.withLock { paths in   // held until exit: no new temporary file can appear
                for path in paths { _ = path.withCString { unlink($0) } }
                _exit(128 + received)
            }
        }
    }
}
