#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// An advisory lock (`flock`) on the folders that hold a run's outputs, held
/// while the outputs are renamed into place. Runs writing the same outputs
/// concurrently then commit one whole set after the other, so the sheet and
/// the manifest always come from the same run. The folder itself is locked,
/// so no lock file is left beside the outputs; folders are locked in order of
/// device and inode, so two runs never wait for each other in a circle. A
/// folder that cannot be opened for reading (write-only permission) or whose
/// file system refuses `flock` is written without the lock.
struct OutputLock {
    private let descriptors: [Int32]

    /// Waits until every folder is locked.
    init(folders: [RawPath]) throws(SheetError) {
        var opened: [(FileIdentity, Int32)] = []
        for folder in folders {
            let descriptor = folder.open(O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard descriptor >= 0 else {
                let code = errno
                if code == EACCES { continue }   // a folder we may write to but not list: the lock is advisory, go without
                let reason = RunFault.describe(code) ?? String(cString: strerror(code))
                for (_, open) in opened { close(open) }
                throw SheetError("cannot lock \(folder.displayName) to write the outputs: \(reason)")
            }
            var status = stat()
            fstat(descriptor, &status)
            let identity = FileIdentity(status)
            if opened.contains(where: { $0.0 == identity }) { close(descriptor) } else { opened.append((identity, descriptor)) }
        }
        opened.sort { ($0.0.device, $0.0.inode) < ($1.0.device, $1.0.inode) }
        descriptors = opened.map(\.1)
        for descriptor in descriptors {
            while flock(descriptor, LOCK_EX) != 0 && errno == EINTR {}
        }
    }

    /// Unlocks and closes the folders.
    func release() {
        for descriptor in descriptors { close(descriptor) }
    }
}
