#if canImport(Glibc)
import Glibc
#endif

/// Turns raw file paths into URLs relative to the folder an HTML page is written to.
///
/// Paths are resolved lexically (`.` and `..` are folded, links are not followed) against the
/// current directory when relative. Every byte outside RFC 3986's unreserved set and `/` is
/// percent-encoded on its own, so a name that is not UTF-8 still names the same file.
struct PageLink {
    /// The components of the folder holding the page.
    private let folder: [[UInt8]]
    /// What relative paths are relative to.
    private let currentDirectory: [UInt8]

    init(htmlPath: [UInt8], currentDirectory: [UInt8] = PageLink.currentDirectory()) {
        folder = Array(Self.components(of: htmlPath, currentDirectory: currentDirectory).dropLast())
        self.currentDirectory = currentDirectory
    }

    /// The URL of `path` relative to the page's folder.
    func href(_ path: [UInt8]) -> String {
        let target = Self.components(of: path, currentDirectory: currentDirectory)
        var shared = 0
        while shared < folder.count, shared < target.count - 1, folder[shared] == target[shared] { shared += 1 }
        var parts = [[UInt8]](repeating: Array("..".utf8), count: folder.count - shared)
        parts += target[shared...]
        return parts.map(Self.percentEncoded).joined(separator: "/")
    }

    /// Absolute, normalised components of `path` (`..` at the root stays at the root).
    static func components(of path: [UInt8], currentDirectory: [UInt8]) -> [[UInt8]] {
        let slash = UInt8(ascii: "/")
        let full = path.first == slash ? path : currentDirectory + [slash] + path
        var result: [[UInt8]] = []
        for part in full.split(separator: slash, omittingEmptySubsequences: true) {
            switch Array(part) {
            case Array(".".utf8): continue
            case Array("..".utf8): _ = result.popLast()
            default: result.append(Array(part))
            }
        }
        return result
    }

    /// One path component percent-encoded byte by byte (only `A-Z a-z 0-9 - . _ ~` stay as they are).
    static func percentEncoded(_ component: [UInt8]) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(component.count)
        for byte in component {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The process's current directory as raw bytes ("/" if it cannot be read).
    static func currentDirectory() -> [UInt8] {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return Array("/".utf8) }
        return buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }
    }
}
