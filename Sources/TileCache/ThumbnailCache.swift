import CLibDeflate
import Synchronization
import WorkerThreads
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Resampled thumbnails kept on disk between runs, so an unchanged input need
/// not be decoded again, and page entries (`PageEntryFormat`: a sheet page's
/// compressed row groups), so unchanged rows need not be painted and compressed
/// again. Safe to share between threads, and between processes that open the
/// same folder. Both kinds of entry are written, checked, bounded and evicted alike.
///
/// Each entry is one self-checking file (see `EntryFormat`) under a fan-out of
/// 256 subfolders. It is written to a temporary file in its subfolder and
/// renamed into place, so a reader sees a whole entry or none; no `fsync`,
/// because an entry cut short by a power loss fails its size or CRC check and
/// is simply a miss. Anything wrong with an entry (truncated, damaged, written
/// for another key, a folder, FIFO or link in its place) makes `lookup` miss
/// with a warning, and the next `store` replaces it.
///
/// Recency lives in each entry's mtime: a hit sets it to now (`futimens` on
/// the descriptor already open for reading) and `finish` evicts the oldest.
/// No index file means nothing for concurrent runs to lock or merge and
/// nothing a crash can leave half written; the price is one folder scan per
/// run in `finish`. Sizes count apparent bytes (`st_size`).
///
/// Files in the cache folder that are not entries (other names, the
/// `CACHEDIR.TAG` written here) are never evicted. Temporary files older than
/// an hour (left by a killed run) are removed by `finish`.
public final class ThumbnailCache: Sendable {
    /// The bound `finish` evicts down to.
    public let maxBytes: Int
    /// The cache folder, open for `*at` calls: entries resolve against it, not the current folder.
    private let root: Int32
    private let state = Lock(Counters())
    private let temporaryCount = Atomic<UInt64>(0)
    private let instanceTag = UInt32.random(in: 0...UInt32.max)

    private struct Counters {
        var hits = 0, misses = 0, failedStores = 0, evicted = 0, reusedPictures = 0
        var warnings: [String] = []
        var droppedWarnings = 0

        mutating func warn(_ line: String) {
            if warnings.count < ThumbnailCache.warningLimit { warnings.append(line) } else { droppedWarnings += 1 }
        }
    }

    static let warningLimit = 32
    static let staleTemporaryAge: Int64 = 3600 * 1_000_000_000

    /// Opens the cache folder at `directory` (raw path bytes), creating it and
    /// any missing parent. Throws only when it cannot be used at all: an empty
    /// path, a NUL byte, a negative bound, or no folder there and none can be
    /// made. A folder that exists but cannot be written is accepted: lookups
    /// still hit, and stores fail and are counted.
    public init(directory: [UInt8], maxBytes: Int) throws(ThumbnailCacheError) {
        guard !directory.isEmpty, !directory.contains(0) else {
            throw ThumbnailCacheError("the cache folder's path is empty or contains a NUL byte")
        }
        guard maxBytes >= 0 else { throw ThumbnailCacheError("the cache bound must not be negative") }
        let made = Self.createFolders(directory)
        let fd = (directory + [0]).withUnsafeBufferPointer { path in
            path.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        }
        guard fd >= 0 else {
            let code = made == 0 || made == EEXIST ? errno : made
            throw ThumbnailCacheError("cannot use it as the cache folder: \(String(cString: strerror(code)))")
        }
        root = fd
        self.maxBytes = maxBytes
        writeTag()
    }

    deinit { close(root) }

    /// Thumbnails served from the cache so far.
    public var hits: Int { state.withLock { $0.hits } }
    /// Pictures not drawn at all because every row group they touch came from page entries.
    public var reusedPictures: Int { state.withLock { $0.reusedPictures } }

    /// Counts `count` pictures whose rows came from page entries (`reusedPictures`).
    public func countReused(pictures count: Int) {
        state.withLock { $0.reusedPictures += count }
    }

    /// Lookups that found no usable entry (absent or ignored).
    public var misses: Int { state.withLock { $0.misses } }
    /// Stores that did not leave an entry (read-only folder, full disk, ...).
    public var failedStores: Int { state.withLock { $0.failedStores } }
    /// Entries removed by `finish` to respect `maxBytes`.
    public var evicted: Int { state.withLock { $0.evicted } }
    /// One line per ignored entry or failed write, for `--verbose`; at most
    /// `warningLimit` lines plus one that counts the rest.
    public var warnings: [String] {
        state.withLock { counters in
            counters.warnings + (counters.droppedWarnings > 0 ? ["\(counters.droppedWarnings) more cache warnings"] : [])
        }
    }

    /// The stored pixels (exactly `key.pixelBytes` bytes: premultiplied RGBA8,
    /// as Raster's `StreamingResampler` emits), or nil on a miss or any damage.
    /// Never throws, never blocks on a FIFO, never reads more than the key's
    /// size. A hit marks the entry as recently used.
    public func lookup(_ key: ThumbnailKey) -> [UInt8]? {
        let outcome = read(key)
        return state.withLock { counters in
            switch outcome {
            case .hit(let pixels):
                counters.hits += 1
                return pixels
            case .absent:
                counters.misses += 1
            case .ignored(let name, let reason):
                counters.misses += 1
                counters.warn("cache entry \(name) ignored: \(reason)")
            }
            return nil
        }
    }

    /// Writes `pixels` (exactly `key.pixelBytes` bytes) as the entry for `key`,
    /// replacing whatever is there. Best effort: a failure (read-only folder,
    /// full disk, no descriptors left...) is counted and warned, never thrown,
    /// and leaves no partial entry behind.
    public func store(_ key: ThumbnailKey, pixels: UnsafeBufferPointer<UInt8>) {
        guard let failure = write(key, pixels) else { return }
        state.withLock { counters in
            counters.failedStores += 1
            counters.warn(failure)
        }
    }

    /// The page entry stored under `key` (`PageEntryFormat`), checked whole, or nil on a miss or any
    /// damage (warned, as for thumbnails). A hit marks the entry as recently used.
    public func lookupPage(_ key: [UInt8]) -> PageEntry? {
        let (folder, file) = PageEntryFormat.name(key: key)
        let path = folder + "/" + file
        let outcome: Outcome
        var entry: PageEntry?
        switch openEntry(folder: folder, file: file) {
        case .failure(let failure):
            outcome = failure.outcome
        case .success(let (fd, status)):
            do throws(ThumbnailCacheError) {
                entry = try PageEntry(fd: fd, size: Int(status.st_size), key: key)
                futimens(fd, nil)   // recency for eviction; fails harmlessly on a read-only cache
                outcome = .absent
            } catch {
                outcome = .ignored(name: path, reason: error.reason)
            }
            close(fd)
        }
        if case .ignored(let name, let reason) = outcome {
            state.withLock { $0.warn("cache entry \(name) ignored: \(reason)") }
        }
        return entry
    }

    /// Writes `groups` as the page entry for `key` (a 32-byte digest), replacing whatever is
    /// there. Best effort, like `store`.
    public func storePage(_ key: [UInt8], groups: [PageGroup]) {
        precondition(key.count == PageEntryFormat.digestSize, "a page key is a 32-byte digest")
        let (folder, file) = PageEntryFormat.name(key: key)
        let header = PageEntryFormat.header(key: key, groups: groups)
        var crc = header.withUnsafeBufferPointer { libdeflate_crc32(0, $0.baseAddress, $0.count) }
        for group in groups where group.bytes.count > 0 { crc = libdeflate_crc32(crc, group.bytes.baseAddress, group.bytes.count) }
        let trailer = withUnsafeBytes(of: UInt32(truncatingIfNeeded: crc).littleEndian) { Array($0) }
        let failure = header.withUnsafeBytes { header in
            trailer.withUnsafeBytes { trailer in
                writeEntry(folder: folder, file: file, parts: [header] + groups.map(\.bytes) + [trailer])
            }
        }
        guard let failure else { return }
        state.withLock { counters in
            counters.failedStores += 1
            counters.warn(failure)
        }
    }

    /// End of run: removes the least recently used entries (oldest mtime
    /// first, then by name) until the entries total at most `maxBytes`, and
    /// temporary files left by killed runs. Entries stored by a concurrent run
    /// after the scan are not counted, so the cache exceeds its bound by at
    /// most the entries of the runs still going.
    public func finish() {
        var entries: [(modified: Int64, folder: String, name: String, size: Int)] = []
        var total = 0
        let now = realTimeNanoseconds()
        for folder in Self.names(in: root, matching: EntryFormat.isFolderName) {
            let folderName = String(decoding: folder, as: UTF8.self)
            let folderDescriptor = openFolder(folderName, create: false)
            guard folderDescriptor >= 0 else { continue }
            defer { close(folderDescriptor) }
            for name in Self.names(in: folderDescriptor, matching: { _ in true }) {
                let isEntry = EntryFormat.isEntryName(name, inFolder: folder)
                guard isEntry || name.starts(with: Array(EntryFormat.temporaryPrefix.utf8)) else { continue }
                let nameText = String(decoding: name, as: UTF8.self)
                var status = stat()
                guard fstatat(folderDescriptor, nameText, &status, AT_SYMLINK_NOFOLLOW) == 0,
                      status.st_mode & S_IFMT == S_IFREG else { continue }
                let modified = ThumbnailKey.nanoseconds(status.st_mtim) ?? .min
                if isEntry {
                    entries.append((modified, folderName, nameText, Int(status.st_size)))
                    total += Int(status.st_size)
                } else if now &- modified > Self.staleTemporaryAge {
                    unlinkat(folderDescriptor, nameText, 0)
                }
            }
        }
        guard total > maxBytes else { return }
        entries.sort { ($0.modified, $0.folder, $0.name) < ($1.modified, $1.folder, $1.name) }
        var evicted = 0
        var failure: String?
        for entry in entries where total > maxBytes {
            let folderDescriptor = openFolder(entry.folder, create: false)
            let removed = folderDescriptor >= 0 && unlinkat(folderDescriptor, entry.name, 0) == 0
            let code = errno
            if folderDescriptor >= 0 { close(folderDescriptor) }
            if removed {
                evicted += 1
            } else if code != ENOENT {
                failure = "cannot evict cache entry \(entry.folder)/\(entry.name): \(String(cString: strerror(code)))"
                break
            }
            total -= entry.size
        }
        state.withLock { counters in
            counters.evicted += evicted
            if let failure { counters.warn(failure) }
        }
    }

    // MARK: - Reading

    private enum Outcome {
        case hit([UInt8])
        case absent
        case ignored(name: String, reason: String)
    }

    /// Where the entry for `key` lives inside the cache folder ("ab/ab…(16 hex).thumb"), or nil
    /// when the key's size cannot be cached (the fuzz target plants its bytes there).
    package static func entryPath(for key: ThumbnailKey) -> (folder: String, file: String)? {
        key.pixelBytes.map { EntryFormat.name(header: EntryFormat.header(for: key, pixelBytes: $0)) }
    }

    /// Where the page entry for `key` lives inside the cache folder ("ab/ab…(16 hex).page"; the
    /// fuzz target plants its bytes there).
    package static func pageEntryPath(for key: [UInt8]) -> (folder: String, file: String) {
        PageEntryFormat.name(key: key)
    }

    private func read(_ key: ThumbnailKey) -> Outcome {
        guard let pixelBytes = key.pixelBytes else { return .absent }
        let header = EntryFormat.header(for: key, pixelBytes: pixelBytes)
        let (folder, file) = EntryFormat.name(header: header)
        let path = folder + "/" + file
        let opened = openEntry(folder: folder, file: file)
        guard case .success(let (fd, status)) = opened else {
            if case .failure(let failure) = opened { return failure.outcome }
            return .absent
        }
        defer { close(fd) }
        guard status.st_size == EntryFormat.fileSize(pixelBytes: pixelBytes) else {
            return .ignored(name: path, reason: "wrong size \(status.st_size) (truncated or foreign)")
        }
        var stored = [UInt8](repeating: 0, count: EntryFormat.headerSize)
        guard stored.withUnsafeMutableBytes({ Self.readFully(fd, $0, at: 0) }) else {
            return .ignored(name: path, reason: "unreadable")
        }
        if let reason = EntryFormat.mismatch(stored: stored, expected: header) {
            return .ignored(name: path, reason: reason)
        }
        var complete = false
        let pixels = [UInt8](unsafeUninitializedCapacity: pixelBytes) { buffer, initialized in
            complete = Self.readFully(fd, UnsafeMutableRawBufferPointer(buffer), at: EntryFormat.headerSize)
            initialized = complete ? pixelBytes : 0
        }
        var trailer = [UInt8](repeating: 0, count: EntryFormat.trailerSize)
        guard complete, trailer.withUnsafeMutableBytes({ Self.readFully(fd, $0, at: EntryFormat.headerSize + pixelBytes) }) else {
            return .ignored(name: path, reason: "unreadable")
        }
        guard trailer == pixels.withUnsafeBytes({ EntryFormat.trailer(header: header, pixels: $0) }) else { return .ignored(name: path, reason: "checksum mismatch") }
        futimens(fd, nil)   // recency for eviction; fails harmlessly on a read-only cache
        return .hit(pixels)
    }

    /// Why an entry could not be opened, as a lookup's outcome.
    private struct EntryOpenFailure: Error {
        let outcome: Outcome
    }

    /// The entry `folder/file` open for reading with its status: a regular file, reached
    /// without following a link and without blocking on a FIFO. The caller closes it.
    private func openEntry(folder: String, file: String) -> Result<(Int32, stat), EntryOpenFailure> {
        let path = folder + "/" + file
        let folderDescriptor = openFolder(folder, create: false)
        guard folderDescriptor >= 0 else {
            let code = errno
            if code == ENOENT { return .failure(EntryOpenFailure(outcome: .absent)) }
            return .failure(EntryOpenFailure(outcome: .ignored(
                name: folder, reason: code == ENOTDIR || code == ELOOP ? "not a folder" : String(cString: strerror(code)))))
        }
        defer { close(folderDescriptor) }
        // O_NOFOLLOW: a link is never followed out of the cache; O_NONBLOCK: a FIFO does not hang.
        let fd = openat(folderDescriptor, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { return .failure(EntryOpenFailure(outcome: .absent)) }
            return .failure(EntryOpenFailure(outcome: .ignored(
                name: path, reason: code == ELOOP ? "is a symbolic link" : String(cString: strerror(code)))))
        }
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            return .failure(EntryOpenFailure(outcome: .ignored(name: path, reason: reason)))
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            return .failure(EntryOpenFailure(outcome: .ignored(name: path, reason: "not a regular file")))
        }
        return .success((fd, status))
    }

    /// Reads exactly `buffer.count` bytes at `offset`; false on error or end of file.
    private static func readFully(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Bool {
        var done = 0
        while done < buffer.count {
            let got = pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { return false }
            done += got
        }
        return true
    }

    // MARK: - Writing

    /// Writes the entry; returns why it failed, or nil.
    private func write(_ key: ThumbnailKey, _ pixels: UnsafeBufferPointer<UInt8>) -> String? {
        guard let pixelBytes = key.pixelBytes, pixels.count == pixelBytes else {
            return "cannot store \(pixels.count) bytes as a \(key.targetWidth)x\(key.targetHeight) thumbnail"
        }
        let header = EntryFormat.header(for: key, pixelBytes: pixelBytes)
        let (folder, file) = EntryFormat.name(header: header)
        let raw = UnsafeRawBufferPointer(pixels)
        let trailer = EntryFormat.trailer(header: header, pixels: raw)
        return header.withUnsafeBytes { header in
            trailer.withUnsafeBytes { trailer in writeEntry(folder: folder, file: file, parts: [header, raw, trailer]) }
        }
    }

    /// Writes `parts`, one after the other, as the entry `folder/file`: under a temporary name,
    /// then renamed into place. Returns why it failed, or nil.
    private func writeEntry(folder: String, file: String, parts: [UnsafeRawBufferPointer]) -> String? {
        let path = folder + "/" + file
        let serial = temporaryCount.wrappingAdd(1, ordering: .relaxed).oldValue
        let temporary = EntryFormat.temporaryPrefix + "\(getpid())-\(instanceTag)-\(serial)"
        let folderDescriptor = openFolder(folder, create: true)
        guard folderDescriptor >= 0 else { return "cannot write cache entry \(path): \(String(cString: strerror(errno)))" }
        defer { close(folderDescriptor) }
        let fd = openat(folderDescriptor, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return "cannot write cache entry \(path): \(String(cString: strerror(errno)))" }
        var written = parts.allSatisfy { Self.writeAll(fd, $0) }
        var code = errno
        if close(fd) != 0 && written {
            written = false
            code = errno
        }
        guard written else {
            unlinkat(folderDescriptor, temporary, 0)
            return "cannot write cache entry \(path): \(String(cString: strerror(code)))"
        }
        var renamed = renameat(folderDescriptor, temporary, folderDescriptor, file)
        if renamed != 0 && (errno == EISDIR || errno == ENOTEMPTY || errno == EEXIST) {
            // A folder stands where the entry goes: replace it when it is empty.
            unlinkat(folderDescriptor, file, AT_REMOVEDIR)
            renamed = renameat(folderDescriptor, temporary, folderDescriptor, file)
        }
        guard renamed == 0 else {
            code = errno
            unlinkat(folderDescriptor, temporary, 0)
            return "cannot write cache entry \(path): \(String(cString: strerror(code)))"
        }
        return nil
    }

    /// Writes all of `bytes`; false on error (errno set).
    private static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var done = 0
        while done < bytes.count {
            let wrote = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
            if wrote < 0 && errno == EINTR { continue }
            guard wrote > 0 else { return false }
            done += wrote
        }
        return true
    }

    // MARK: - The folder

    /// Opens fan-out subfolder `name` (for `*at` calls) without following a
    /// link, so nothing is read, written or removed outside the cache folder.
    /// With `create`, makes it when missing, replacing a file or link that
    /// stands in its place. Returns -1 (errno set) on failure.
    private func openFolder(_ name: String, create: Bool) -> Int32 {
        let flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
        let fd = openat(root, name, flags)
        guard fd < 0, create, errno == ENOENT || errno == ENOTDIR || errno == ELOOP else { return fd }
        if errno != ENOENT { unlinkat(root, name, 0) }
        mkdirat(root, name, 0o777)
        return openat(root, name, flags)
    }

    /// Creates `path` and its missing parents; returns the last `mkdir`'s errno (0 when it made the folder).
    private static func createFolders(_ path: [UInt8]) -> Int32 {
        var result: Int32 = 0
        for end in path.indices where end == path.count - 1 || path[end + 1] == UInt8(ascii: "/") {
            let made = (Array(path[...end]) + [0]).withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { mkdir($0.baseAddress!, 0o777) }
            }
            result = made == 0 ? 0 : errno
        }
        return result
    }

    /// Marks the folder as a cache for backup tools (https://bford.info/cachedir/); best effort.
    private func writeTag() {
        let fd = openat(root, "CACHEDIR.TAG", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }
        let text = "Signature: 8a477f597d28d172789f06886806bc55\n"
            + "# This file is a cache directory tag created by masonry (thumbnail cache).\n"
            + "# For information about cache directory tags, see https://bford.info/cachedir/\n"
        _ = Array(text.utf8).withUnsafeBytes { Self.writeAll(fd, $0) }
        close(fd)
    }

    /// The names in the folder open as `fd` (which stays open) that satisfy `include`.
    private static func names(in fd: Int32, matching include: ([UInt8]) -> Bool) -> [[UInt8]] {
        let own = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard own >= 0 else { return [] }
        guard let directory = fdopendir(own) else {
            close(own)
            return []
        }
        defer { closedir(directory) }
        var result: [[UInt8]] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: &entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if include(name) { result.append(name) }
        }
        return result
    }
}
