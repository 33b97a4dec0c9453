#if canImport(Glibc)
import Glibc
#endif

/// One file the scan found, with what sorting needs.
public struct InputCandidate: Sendable, Hashable {
    public let path: RawPath
    public let modificationTime: Int64
    public let byteSize: Int64
}

/// An input left out, and why.
public struct SkippedInput: Sendable, Hashable {
    public let path: RawPath
    public let reason: String

    public init(path: RawPath, reason: String) {
        self.path = path
        self.reason = reason
    }
}

/// The identity of a file on disk, to recognise the same file under two names.
struct FileIdentity: Hashable {
    let device: UInt64
    let inode: UInt64

    init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }

    /// The identity of the file at `path` (following links), if it exists.
    init?(path: RawPath) {
        var status = stat()
        guard path.withCString({ stat($0, &status) }) == 0 else { return nil }
        self.init(status)
    }
}

/// Turns the command's input arguments into candidate files (SPEC §3, §5).
///
/// Folders contribute their entries whose names end in `.png` (any letter
/// case); with `recursive` they also contribute their sub-folders' entries,
/// never entering a folder twice (so link loops end). Files named directly are
/// read whatever their name. Only regular files (or links to them) are kept;
/// everything else named like a PNG is reported with the reason. Files in
/// `excluded` (the output sheet and manifest) are never inputs.
struct InputScanner {
    let recursive: Bool
    let excluded: Set<FileIdentity>
    private(set) var candidates: [InputCandidate] = []
    private(set) var skipped: [SkippedInput] = []
    private(set) var missingArguments: [SkippedInput] = []
    private var visitedFolders: Set<FileIdentity> = []

    init(recursive: Bool, excluding excludedPaths: [RawPath]) {
        self.recursive = recursive
        self.excluded = Set(excludedPaths.compactMap(FileIdentity.init(path:)))
    }

    mutating func scan(arguments: [RawPath]) {
        for argument in arguments {
            var status = stat()
            guard argument.withCString({ stat($0, &status) }) == 0 else {
                missingArguments.append(SkippedInput(path: argument, reason: Self.statFailure(argument, errno)))
                continue
            }
            if status.st_mode & S_IFMT == S_IFDIR {
                scanFolder(argument, status: status)
            } else {
                consider(argument, status: status)
            }
        }
    }

    private mutating func scanFolder(_ folder: RawPath, status: stat) {
        guard visitedFolders.insert(FileIdentity(status)).inserted else { return }
        guard let directory = folder.withCString({ opendir($0) }) else {
            skipped.append(SkippedInput(path: folder, reason: "cannot read folder: \(String(cString: strerror(errno)))"))
            return
        }
        defer { closedir(directory) }
        var names: [[UInt8]] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                Array(raw.prefix(while: { $0 != 0 }))
            }
            if name == [0x2E] || name == [0x2E, 0x2E] { continue }
            names.append(name)
        }
        for name in names {
            let path = folder.appending(name)
            var entryStatus = stat()
            let looksLikePNG = Self.hasPNGExtension(name)
            guard path.withCString({ stat($0, &entryStatus) }) == 0 else {
                if looksLikePNG { skipped.append(SkippedInput(path: path, reason: Self.statFailure(path, errno))) }
                continue
            }
            if entryStatus.st_mode & S_IFMT == S_IFDIR {
                if recursive {
                    scanFolder(path, status: entryStatus)
                } else if looksLikePNG {
                    skipped.append(SkippedInput(path: path, reason: "is a folder, not a file"))
                }
            } else if looksLikePNG {
                consider(path, status: entryStatus)
            }
        }
    }

    private mutating func consider(_ path: RawPath, status: stat) {
        guard !excluded.contains(FileIdentity(status)) else { return }
        let kind = status.st_mode & S_IFMT
        guard kind == S_IFREG else {
            let reason = switch kind {
            case S_IFDIR: "is a folder, not a file"
            case S_IFIFO: "is a FIFO, not a regular file"
            case S_IFCHR, S_IFBLK: "is a device, not a regular file"
            case S_IFSOCK: "is a socket, not a regular file"
            default: "is not a regular file"
            }
            skipped.append(SkippedInput(path: path, reason: reason))
            return
        }
        candidates.append(InputCandidate(path: path, modificationTime: Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec),
                                         byteSize: Int64(status.st_size)))
    }

    static func hasPNGExtension(_ name: [UInt8]) -> Bool {
        guard name.count > 4 else { return false }
        let suffix = name.suffix(4).map { $0 | 0x20 }   // ASCII lower-case; '.' (0x2E) is unchanged
        return suffix == Array(".png".utf8)
    }

    /// Why `stat` failed, telling a dangling link from a missing file.
    private static func statFailure(_ path: RawPath, _ code: Int32) -> String {
        switch code {
        case ELOOP: return "symbolic link loop"
        case ENOENT:
            var linkStatus = stat()
            if path.withCString({ lstat($0, &linkStatus) }) == 0 { return "broken symbolic link" }
            return "no such file or folder"
        case EACCES: return "permission denied"
        default: return String(cString: strerror(code))
        }
    }
}
