import MasonrySheet
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Input arguments that name lists of inputs (montage's and vipsthumbnail's habits): `@FILE`
/// reads names from FILE, `-` from standard input, one a line (a final line without its
/// newline counts; empty lines are skipped), or separated by NUL bytes with `-0`/`--null`
/// (as `find -print0` writes them). Names are raw bytes, never interpreted; a name read from
/// a list is itself an input, never another list.
enum InputList {
    /// The most bytes one list may hold: a million names of 64 bytes.
    static let maxBytes = 64 << 20

    /// `arguments` with every list argument replaced by the names it holds, in order.
    static func expand(_ arguments: [RawPath], nulSeparated: Bool,
                       standardInput: () throws(UsageError) -> [UInt8] = { () throws(UsageError) in try read(descriptor: 0, "standard input") })
        throws(UsageError) -> [RawPath] {
        var expanded: [RawPath] = []
        var readStandardInput = false
        for argument in arguments {
            let bytes: [UInt8]
            if argument.bytes == [UInt8(ascii: "-")] {
                guard !readStandardInput else { throw UsageError("'-' (names on standard input) is given twice") }
                readStandardInput = true
                bytes = try standardInput()
            } else if argument.bytes.first == UInt8(ascii: "@"), argument.bytes.count > 1 {
                bytes = try read(RawPath(bytes: Array(argument.bytes.dropFirst())))
            } else {
                expanded.append(argument)
                continue
            }
            let separator = nulSeparated ? UInt8(0) : UInt8(ascii: "\n")
            expanded += bytes.split(separator: separator).compactMap { line in
                let name = nulSeparated || line.last != UInt8(ascii: "\r") ? Array(line) : Array(line.dropLast())
                return name.isEmpty ? nil : RawPath(bytes: name)
            }
        }
        return expanded
    }

    /// The whole list file, or a usage error naming it.
    private static func read(_ path: RawPath) throws(UsageError) -> [UInt8] {
        let descriptor = path.open(O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw UsageError("cannot read the list of inputs @\(path.displayName): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        return try read(descriptor: descriptor, "the list of inputs @\(path.displayName)")
    }

    private static func read(descriptor: Int32, _ what: String) throws(UsageError) -> [UInt8] {
        var bytes: [UInt8] = []
        var block = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let got = block.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { throw UsageError("cannot read \(what): \(String(cString: strerror(errno)))") }
            if got == 0 { return bytes }
            bytes += block[..<got]
            guard bytes.count <= maxBytes else { throw UsageError("\(what) holds more than \(maxBytes >> 20) MiB of names") }
        }
    }
}
