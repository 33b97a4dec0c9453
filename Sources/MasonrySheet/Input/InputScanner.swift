import CodecCore
#if canImport(Glibc)
import Glibc
#endif

/// One file the scan found, with what sorting needs.
public struct InputCandidate: Sendable, Hashable {
    public let path: RawPath
    /// Size, modification time and inode from the scan's `stat`, when it made one: for files named
    /// on the command line, links and files a listing does not type, and for every file when the
    /// order needs sizes or times (`--sort mtime|size`). Nil for a folder's regular file: the
    /// header pass takes those from the file it opens, so a file costs one system call less.
    let scannedStamp: FileStamp?
    /// The file's device and inode: from the scan's `stat`, or set once the header pass has opened
    /// the file; nil when neither could (look it up by path).
    var identity: FileIdentity?
    /// True for a file named on the command line, false for one found in a folder.
    public let namedDirectly: Bool

    /// The modification time the order sorts by (0 when the scan made no `stat`).
    var modificationTime: Int64 { scannedStamp?.modificationTime ?? 0 }
    /// The size the order sorts by (0 when the scan made no `stat`).
    var byteSize: Int64 { scannedStamp?.byteSize ?? 0 }

    init(path: RawPath, scannedStamp: FileStamp?, identity: FileIdentity? = nil, namedDirectly: Bool = false) {
        self.path = path
        self.scannedStamp = scannedStamp
        self.identity = identity
        self.namedDirectly = namedDirectly
    }

    /// A candidate with the stamp the scan saw (tests, orders).
    init(path: RawPath, modificationTime: Int64, byteSize: Int64) {
        self.init(path: path, scannedStamp: FileStamp(byteSize: byteSize, modificationTime: modificationTime, inode: 0))
    }
}

/// An input left out, and why.
public struct SkippedInput: Sendable, Hashable {
    public let path: RawPath
    public let reason: String
    /// True for an argument of the command line that does not exist or cannot be read: the run
    /// is then incomplete whatever `--strict` says (SPEC §3).
    public let isUnusableArgument: Bool

    public init(path: RawPath, reason: String, isUnusableArgument: Bool = false) {
        self.path = path
        self.reason = reason
        self.isUnusableArgument = isUnusableArgument
    }
}

/// The identity of a file on disk, to recognise the same file under two names.
struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }

    /// The identity of an open file.
    init(_ file: InputFile) {
        device = file.device
        inode = file.inode
    }

    /// The identity of the file at `path` (following links), if it exists.
    init?(path: RawPath) {
        guard let status = path.status() else { return nil }
        self.init(status)
    }
}

/// Turns the command's input arguments into candidate files (SPEC §3, §5).
///
/// Folders contribute their entries whose names end in an extension of the format table
/// (`ImageFormats.all`, any letter case; other files are counted in `otherFiles`); with `recursive` they also contribute their sub-folders' entries,
/// never entering a folder twice (so link loops end). Files named directly are
/// read whatever their name. Only regular files (or links to them) are kept;
/// everything else named like a PNG is reported with the reason.
///
/// Entries are examined with `fstatat` relative to their open folder (a regular file the listing
/// types is not: see `InputCandidate.scannedStamp`), and
/// folders are opened with `RawPath.open`, so depth is not limited by
/// PATH_MAX; one folder is open at a time. Running out of descriptors or
/// memory is the run's fault, not the entry's: `scan` then throws.
///
/// A file found in a folder that is one of the outputs (an earlier sheet or
/// manifest, or a link to one) is not an input (SPEC §5); an output that is
/// itself a link to an input is left to `OutputSafety`, which refuses it.
struct InputScanner {
    let recursive: Bool
    /// Whether every file gets a `stat` (the order needs sizes or times), not only untyped entries.
    let statsEveryFile: Bool
    /// The outputs' identities: a folder's file that is one of them is not an input. A regular
    /// file the scan made no `stat` of is checked once the header pass knows its identity
    /// (`isExcluded`).
    let excluded: Set<FileIdentity>
    private(set) var candidates: [InputCandidate] = []
    private(set) var skipped: [SkippedInput] = []
    private(set) var missingArguments: [SkippedInput] = []
    /// Entries of scanned folders that are neither images (by name) nor folders: ignored, and counted.
    private(set) var otherFiles = 0
    /// `otherFiles` by kind, their extension in capitals (`BMP`, `TIFF`; `TIF` counts as `TIFF`),
    /// for the message of a run that found no image. At most `maxKinds` kinds are told apart.
    private(set) var otherKinds: [String: Int] = [:]
    static let maxKinds = 32
    private var visitedFolders: Set<FileIdentity> = []

    init(recursive: Bool, statsEveryFile: Bool = false, excluding outputs: [RawPath]) {
        self.recursive = recursive
        self.statsEveryFile = statsEveryFile
        self.excluded = Set(outputs.compactMap { output in
            guard let entry = output.status(followingLinks: false), entry.st_mode & S_IFMT != S_IFLNK else { return nil }
            return FileIdentity(entry)
        })
    }

    /// The candidates found, handed over (the scanner keeps none: a million of them are 56 MB).
    mutating func takeCandidates() -> [InputCandidate] {
        defer { candidates = [] }
        return candidates
    }

    mutating func scan(arguments: [RawPath]) throws(SheetError) {
        for argument in arguments {
            guard let status = argument.status() else {
                let code = errno
                try Self.refuseRunFault(code, argument)
                missingArguments.append(SkippedInput(path: argument, reason: Self.statFailure(argument, code),
                                                     isUnusableArgument: true))
                continue
            }
            if status.st_mode & S_IFMT == S_IFDIR {
                try scanFolder(argument, status: status, isArgument: true)
            } else {
                consider(argument, status: status, foundInFolder: false)
            }
        }
    }

    /// Whether a file found in a folder, of this identity, is one of the outputs (not an input).
    func isExcluded(_ identity: FileIdentity) -> Bool { excluded.contains(identity) }

    /// One folder entry worth a look: a file to consider or a folder to enter. No status for a
    /// regular file the listing typed as one (see `InputCandidate.scannedStamp`).
    private struct Entry {
        let path: RawPath
        let status: stat?
    }

    private mutating func scanFolder(_ folder: RawPath, status: stat, isArgument: Bool = false) throws(SheetError) {
        guard visitedFolders.insert(FileIdentity(status)).inserted else { return }
        // List and examine the entries while the folder is open, then close it
        // before entering sub-folders, so descriptors do not grow with depth.
        guard let entries = try list(folder, expected: FileIdentity(status), isArgument: isArgument) else { return }
        for entry in entries {
            guard let status = entry.status else {
                candidates.append(InputCandidate(path: entry.path, scannedStamp: nil))
                continue
            }
            if status.st_mode & S_IFMT == S_IFDIR {
                if recursive {
                    try scanFolder(entry.path, status: status)
                } else {
                    skipped.append(SkippedInput(path: entry.path, reason: "is a folder, not a file"))
                }
            } else {
                consider(entry.path, status: status, foundInFolder: true)
            }
        }
    }

    /// The folder's entries to consider (PNG names; with `recursive` also
    /// folders), in listing order; failures are recorded as skipped. Nil when
    /// the folder cannot be read at all, or is no longer the `expected` one.
    private mutating func list(_ folder: RawPath, expected: FileIdentity, isArgument: Bool) throws(SheetError) -> [Entry]? {
        let descriptor = folder.open(O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0, let directory = fdopendir(descriptor) else {
            let code = errno
            if descriptor >= 0 { close(descriptor) }
            try Self.refuseRunFault(code, folder)
            skipped.append(SkippedInput(path: folder, reason: "cannot read folder: \(String(cString: strerror(code)))",
                                        isUnusableArgument: isArgument))
            return nil
        }
        var opened = stat()
        guard fstat(descriptor, &opened) == 0, FileIdentity(opened) == expected else {
            closedir(directory)
            skipped.append(SkippedInput(path: folder, reason: "folder changed while it was being read"))
            return nil
        }
        defer { closedir(directory) }
        var entries: [Entry] = []
        while true {
            errno = 0
            guard let entry = readdir(directory) else {
                let code = errno
                if code != 0 {
                    try Self.refuseRunFault(code, folder)
                    skipped.append(SkippedInput(path: folder, reason: "cannot read folder: \(String(cString: strerror(code)))",
                                        isUnusableArgument: isArgument))
                }
                return entries
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix(while: { $0 != 0 })) }
            if name == [0x2E] || name == [0x2E, 0x2E] { continue }
            let looksLikePNG = Self.hasImageExtension(name)
            // Without `recursive`, only image names matter: other entries are not even examined,
            // only counted when the listing says they are not folders.
            if !looksLikePNG && !recursive {
                if entry.pointee.d_type != UInt8(DT_DIR) { countOther(name) }
                continue
            }
            // A regular file by the listing's type needs no `stat` here: the header pass opens it
            // and takes its identity, size and time from that descriptor.
            if looksLikePNG && entry.pointee.d_type == UInt8(DT_REG) && !statsEveryFile {
                entries.append(Entry(path: folder.appending(name), status: nil))
                continue
            }
            var entryStatus = stat()
            let examined = (name + [0]).withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { fstatat(descriptor, $0.baseAddress!, &entryStatus, 0) }
            }
            let path = folder.appending(name)
            guard examined == 0 else {
                let code = errno
                try Self.refuseRunFault(code, path)
                // A link to nowhere under another name cannot hide images; anything else that
                // cannot be examined (permission, a name too long, an I/O error) might, so it is reported.
                if looksLikePNG || (code != ENOENT && code != ELOOP) {
                    skipped.append(SkippedInput(path: path, reason: Self.entryFailure(code, descriptor, name)))
                }
                continue
            }
            if looksLikePNG || entryStatus.st_mode & S_IFMT == S_IFDIR {
                entries.append(Entry(path: path, status: entryStatus))
            } else {
                countOther(name)
            }
        }
    }

    /// Counts an ignored file under its kind (see `otherKinds`).
    private mutating func countOther(_ name: [UInt8]) {
        otherFiles += 1
        var kind = "without an extension"
        if let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > 0, name.count - dot - 1 <= 8,
           name[(dot + 1)...].allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) }),
           dot + 1 < name.count {
            kind = String(decoding: name[(dot + 1)...], as: UTF8.self).uppercased()
            if kind == "TIF" { kind = "TIFF" }
        }
        if otherKinds[kind] == nil && otherKinds.count >= Self.maxKinds { kind = "other" }
        otherKinds[kind, default: 0] += 1
    }

    private mutating func consider(_ path: RawPath, status: stat, foundInFolder: Bool) {
        let identity = FileIdentity(status)
        guard !(foundInFolder && excluded.contains(identity)) else { return }
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
        candidates.append(InputCandidate(path: path, scannedStamp: FileStamp(status), identity: identity,
                                         namedDirectly: !foundInFolder))
    }

    /// Whether `name` ends in one of the format table's extensions (`.png`, `.jpg`, ...) in any
    /// letter case, after at least one other byte. (Only ASCII letters are folded: byte 0x0E
    /// before `png` is not a dot.)
    static func hasImageExtension(_ name: [UInt8]) -> Bool {
        func folded(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
        let lower = name.map(folded)
        return ImageFormats.folderExtensions.contains { suffix in
            lower.count > suffix.count && lower.suffix(suffix.count).elementsEqual(suffix)
        }
    }

    /// Running out of descriptors or memory says nothing about the file: the run stops.
    static func refuseRunFault(_ code: Int32, _ path: RawPath) throws(SheetError) {
        if let fault = RunFault.describe(code) {
            throw SheetError("cannot read \(path.displayName): \(fault)")
        }
    }

    /// Why `stat` failed, telling a dangling link from a missing file.
    private static func statFailure(_ path: RawPath, _ code: Int32) -> String {
        if code == ENOENT, path.status(followingLinks: false) != nil { return "broken symbolic link" }
        return describe(code)
    }

    /// Why `fstatat` failed for a folder entry, telling a dangling link from a missing file.
    private static func entryFailure(_ code: Int32, _ folder: Int32, _ name: [UInt8]) -> String {
        guard code == ENOENT else { return describe(code) }
        var linkStatus = stat()
        let isLink = (name + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { fstatat(folder, $0.baseAddress!, &linkStatus, AT_SYMLINK_NOFOLLOW) }
        } == 0
        return isLink ? "broken symbolic link" : describe(code)
    }

    private static func describe(_ code: Int32) -> String {
        switch code {
        case ELOOP: "symbolic link loop"
        case ENOENT: "no such file or folder"
        case EACCES: "permission denied"
        default: String(cString: strerror(code))
        }
    }
}
