import Digest
import CFileAt
import ImageDiff
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// `--update-baseline[=changed|missing|all]` (SPEC §9): which pairs' current files are copied
/// into the baseline folder after a compare.
public enum BaselineUpdateMode: String, Sendable, CaseIterable {
    /// Added, changed and resized pairs (failing or passing) are copied.
    case changed
    /// Only added pairs are copied.
    case missing
    /// As `changed`, and removed pairs are deleted: the baseline mirrors the current folder.
    case all

    /// What this mode does to a pair, or nil when it leaves it alone (errors and unchanged pairs
    /// are never touched).
    func action(for status: PairStatus) -> BaselineChange.Action? {
        switch (self, status) {
        case (_, .added): .write
        case (.changed, .changed), (.changed, .resized), (.all, .changed), (.all, .resized): .write
        case (.all, .removed): .delete
        default: nil
        }
    }
}

/// What `--update-baseline` asks for: the mode, and whether to only say what would change.
public struct BaselineUpdate: Sendable, Hashable {
    public var mode: BaselineUpdateMode
    public var dryRun: Bool

    public init(mode: BaselineUpdateMode, dryRun: Bool = false) {
        self.mode = mode
        self.dryRun = dryRun
    }
}

/// One file of the baseline folder that an update wrote, deleted, would change (`--dry-run`),
/// or could not change (with the reason).
public struct BaselineChange: Sendable, Hashable {
    public enum Action: String, Sendable { case write, delete }

    public let relativePath: RawPath
    public let action: Action
    public let status: PairStatus
    /// Nil when done (or, in a dry run, when it would be attempted); otherwise why not.
    public let refusal: String?
    public let dryRun: Bool

    /// Whether the pair passes because of this change (in a dry run: would pass, since the
    /// dry run makes every check the update makes and only the writing is left out).
    public var fixesPair: Bool { refusal == nil }

    /// One stderr line: `masonry: baseline: wrote ui/new.png (added)`.
    public var line: String {
        let path = relativePath.displayName
        if let refusal { return "masonry: baseline: not updated \(path): \(refusal)" }
        let verb = switch (action, dryRun) {
        case (.write, false): "wrote"
        case (.delete, false): "deleted"
        case (.write, true): "would write"
        case (.delete, true): "would delete"
        }
        return "masonry: baseline: \(verb) \(path) (\(status.rawValue))"
    }
}

/// Copies current files into the baseline folder, or deletes them from it, inside that folder
/// only: every folder below it is opened with `O_NOFOLLOW` from the one above (`openat`), so a
/// symbolic link anywhere on the way (one that leads out of the folder included) is refused,
/// never followed; a link at the file's own name is replaced, never written through. Each
/// file is written to a temporary name beside it and renamed into place (`TemporaryName`,
/// `SignalCleanup`, as `AtomicOutputFile` does), after checking that the current file still
/// has the SHA-256 it was judged by.
enum BaselineUpdater {
    static func apply(_ update: BaselineUpdate, items: [PairResult], baseline: RawPath) -> [BaselineChange] {
        items.compactMap { item in
            guard let action = update.mode.action(for: item.verdict.status) else { return nil }
            var refusal: String?
            do throws(BaselineRefusal) {
                switch action {
                case .write: try write(item, into: baseline, dryRun: update.dryRun)
                case .delete: try delete(item.relativePath, in: baseline, dryRun: update.dryRun)
                }
            } catch {
                refusal = error.reason
            }
            return BaselineChange(relativePath: item.relativePath, action: action, status: item.verdict.status,
                                  refusal: refusal, dryRun: update.dryRun)
        }
    }

    private struct BaselineRefusal: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
        init(_ what: String, _ code: Int32) { reason = "\(what): \(String(cString: strerror(code)))" }
    }

    /// What `openParent` does with a folder on the way that does not exist.
    private enum MissingFolder {
        /// Make it (an update writing a file).
        case create
        /// Refuse (an update deleting a file).
        case refuse
        /// Stop there and return no descriptor: the update would make it (a dry run's check).
        case stop
    }

    /// The folder holding `relativePath`'s file, opened component by component below the
    /// baseline without following links, and the file's name; the descriptor is nil when
    /// `missing` is `.stop` and a folder on the way does not exist.
    private static func openParent(of relativePath: RawPath, in baseline: RawPath, missing: MissingFolder) throws(BaselineRefusal)
        -> (descriptor: Int32?, name: [CChar]) {
        let components = relativePath.bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map(Array.init)
        guard let name = components.last,
              components.allSatisfy({ !$0.isEmpty && $0 != [0x2E] && $0 != [0x2E, 0x2E] && !$0.contains(0) }) else {
            throw BaselineRefusal("not a plain relative path")
        }
        var folder = baseline.open(O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw BaselineRefusal("cannot open the baseline folder", errno) }
        var walked: [UInt8] = []
        for component in components.dropLast() {
            walked += (walked.isEmpty ? [] : [UInt8(ascii: "/")]) + component
            let name = cString(component)
            var next = masonry_openat(folder, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0)
            if next < 0 && errno == ENOENT && missing == .stop {
                close(folder)
                return (nil, cString(components[components.count - 1]))
            }
            if next < 0 && errno == ENOENT && missing == .create {
                if mkdirat(folder, name, 0o777) != 0 && errno != EEXIST {
                    let code = errno
                    close(folder)
                    throw BaselineRefusal("cannot make folder \(RawPath(bytes: walked).displayName)", code)
                }
                next = masonry_openat(folder, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0)
            }
            let code = errno
            close(folder)
            guard next >= 0 else {
                let why = code == ELOOP || code == ENOTDIR
                    ? "\(RawPath(bytes: walked).displayName) in the baseline is a symbolic link or not a folder (never followed for writing)"
                    : "cannot open folder \(RawPath(bytes: walked).displayName): \(String(cString: strerror(code)))"
                throw BaselineRefusal(why)
            }
            folder = next
        }
        return (folder, cString(name))
    }

    /// A name as the NUL-terminated string the `*at` calls take.
    private static func cString(_ bytes: [UInt8]) -> [CChar] {
        bytes.map { CChar(bitPattern: $0) } + [0]
    }

    /// Copies the pair's current file over its baseline file; with `dryRun`, makes every
    /// check of the copy (the digest, links and folders on the way, a folder at the name) and
    /// writes nothing.
    private static func write(_ item: PairResult, into baseline: RawPath, dryRun: Bool) throws(BaselineRefusal) {
        guard let source = item.pair.current, let digest = item.current?.sha256 else { throw BaselineRefusal("no current file") }
        let bytes = try read(source)
        guard SHA256.hex(SHA256.digest(bytes)) == digest else {
            throw BaselineRefusal("the current file changed since it was compared")
        }
        let (opened, name) = try openParent(of: item.relativePath, in: baseline, missing: dryRun ? .stop : .create)
        guard let folder = opened else { return }   // dry run: the folder would be made
        defer { close(folder) }
        var status = stat()
        if fstatat(folder, name, &status, AT_SYMLINK_NOFOLLOW) == 0, status.st_mode & S_IFMT == S_IFDIR {
            throw BaselineRefusal("it is a folder in the baseline")
        }
        if dryRun { return }
        let temporaryBytes = TemporaryName.make(for: item.relativePath.lastComponent)
        let temporaryName = cString(temporaryBytes)
        let folderPrefix = item.relativePath.bytes.prefix(through: item.relativePath.bytes.lastIndex(of: UInt8(ascii: "/")) ?? -1)
        let registered = baseline.appending(Array(folderPrefix) + temporaryBytes)
        let (descriptor, code) = SignalCleanup.create(registered) {
            masonry_openat(folder, temporaryName, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
        }
        guard descriptor >= 0 else { throw BaselineRefusal("cannot write", code) }
        defer { SignalCleanup.unregister(registered) }
        var offset = 0, failure: Int32 = 0
        while offset < bytes.count && failure == 0 {
            let wrote = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if wrote > 0 { offset += wrote } else if wrote < 0 && errno == EINTR { continue } else { failure = wrote < 0 ? errno : EIO }
        }
        if failure == 0 && fsync(descriptor) != 0 && errno != EINVAL { failure = errno }
        close(descriptor)
        if failure == 0 && renameat(folder, temporaryName, folder, name) != 0 { failure = errno }
        if failure != 0 {
            _ = unlinkat(folder, temporaryName, 0)
            throw BaselineRefusal("cannot write", failure)
        }
    }

    private static func delete(_ relativePath: RawPath, in baseline: RawPath, dryRun: Bool) throws(BaselineRefusal) {
        let (opened, name) = try openParent(of: relativePath, in: baseline, missing: .refuse)
        guard let folder = opened else { return }
        defer { close(folder) }
        if dryRun { return }
        guard unlinkat(folder, name, 0) == 0 || errno == ENOENT else { throw BaselineRefusal("cannot delete", errno) }
    }

    /// The whole file (current screenshots are small; the judged digest is checked against it).
    private static func read(_ path: RawPath) throws(BaselineRefusal) -> [UInt8] {
        let descriptor = path.open(O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw BaselineRefusal("cannot read \(path.displayName)", errno) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var block = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let got = block.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { throw BaselineRefusal("cannot read \(path.displayName)", errno) }
            if got == 0 { return bytes }
            bytes += block[..<got]
        }
    }
}
