import BitmapText
#if canImport(Glibc)
import Glibc
#endif

/// A file path as the raw bytes the file system uses, so names that are not
/// valid UTF-8 still open. `displayName` is the safe text to print.
public struct RawPath: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) { self.bytes = bytes }
    public init(_ text: String) { self.bytes = Array(text.utf8) }

    /// This path joined with one more component, as the user named the folder.
    /// The bytes are allocated at their exact size (a scan keeps a million of these paths).
    public func appending(_ component: [UInt8]) -> RawPath {
        if bytes.isEmpty { return RawPath(bytes: component) }
        let slash: [UInt8] = bytes.last == UInt8(ascii: "/") ? [] : [UInt8(ascii: "/")]
        var joined: [UInt8] = []
        joined.reserveCapacity(bytes.count + slash.count + component.count)
        joined += bytes
        joined += slash
        joined += component
        return RawPath(bytes: joined)
    }

    /// The last component.
    public var lastComponent: [UInt8] {
        let trimmed = bytes.last == UInt8(ascii: "/") && bytes.count > 1 ? Array(bytes.dropLast()) : bytes
        guard let slash = trimmed.lastIndex(of: UInt8(ascii: "/")) else { return trimmed }
        return Array(trimmed[(slash + 1)...])
    }

    /// The folder part ("." when there is none).
    public var parent: RawPath {
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return RawPath(".") }
        return slash == 0 ? RawPath("/") : RawPath(bytes: Array(bytes[..<slash]))
    }

    /// The path as printable text: valid UTF-8 is kept (including non-Latin
    /// scripts); control characters, backslashes, quotes and bytes that are
    /// not UTF-8 are escaped (`\n`, `\x1b`, `\xff`), so one name is one line.
    /// (The escaping is `BitmapText.TextLine`'s, so captions draw exactly what messages print.)
    public var displayName: String { TextLine(bytes: bytes).string }

    public var description: String { displayName }

    public static func < (lhs: RawPath, rhs: RawPath) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }

    /// Calls `body` with a NUL-terminated C string of the path.
    func withCString<Result>(_ body: (UnsafePointer<CChar>) throws -> Result) rethrows -> Result {
        try (bytes + [0]).withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: CChar.self) { try body($0.baseAddress!) }
        }
    }
}

// MARK: - Paths longer than PATH_MAX

extension RawPath {
    /// The longest path the kernel resolves in one call (PATH_MAX, including the NUL).
    static let kernelPathLimit = 4096
    /// Linux's `O_PATH` (open a folder only to resolve names relative to it; no read
    /// permission needed), which Glibc's Swift module does not export.
    static let pathOnly: Int32 = 0o10000000

    /// `open(2)` for a path of any length: a path the kernel refuses as too
    /// long (PATH_MAX) is opened by walking it in pieces with `openat`, each
    /// piece relative to the folder the previous one opened, which resolves
    /// links and `..` exactly as one `open` would. Returns the descriptor, or
    /// -1 with `errno` set.
    public func open(_ flags: Int32, mode: mode_t = 0) -> Int32 {
        withResolvableParts { folder, rest in openat(folder, rest, flags, mode) }
    }

    /// `stat(2)` (or `lstat(2)` when `followingLinks` is false) for a path of
    /// any length; nil with `errno` set when it fails.
    func status(followingLinks: Bool = true) -> stat? {
        var status = stat()
        let done = withResolvableParts { folder, rest in
            fstatat(folder, rest, &status, followingLinks ? 0 : AT_SYMLINK_NOFOLLOW)
        }
        return done == 0 ? status : nil
    }

    /// Calls `body` with a folder descriptor and a path relative to it,
    /// shorter than PATH_MAX, that names the same file as this path. Returns
    /// -1 with `errno` set when a folder on the way cannot be opened.
    private func withResolvableParts(_ body: (Int32, UnsafePointer<CChar>) -> Int32) -> Int32 {
        var folder = AT_FDCWD
        var rest = bytes[...]
        defer { if folder != AT_FDCWD { close(folder) } }
        while rest.count >= Self.kernelPathLimit {
            // The longest leading piece that ends at a slash and fits in one call.
            guard let slash = rest.prefix(Self.kernelPathLimit - 1).lastIndex(of: UInt8(ascii: "/")) else {
                errno = ENAMETOOLONG   // one name longer than PATH_MAX: no file system allows it
                return -1
            }
            let piece = Array(rest[...slash]) + [0]
            let next = piece.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { openat(folder, $0.baseAddress!, Self.pathOnly | O_DIRECTORY | O_CLOEXEC) }
            }
            guard next >= 0 else { return -1 }
            if folder != AT_FDCWD { close(folder) }
            folder = next
            rest = rest[(slash + 1)...].drop { $0 == UInt8(ascii: "/") }   // a leading slash would make it absolute
        }
        let last = rest.isEmpty ? [UInt8(ascii: "."), 0] : Array(rest) + [0]
        return last.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { body(folder, $0.baseAddress!) }
        }
    }
}
