#if canImport(Glibc)
import Glibc
#endif

/// A small file read whole, until its end (so /proc files, whose size `stat` gives as 0, read
/// too): what Foundation's `FileManager.contents(atPath:)` did before the command stopped
/// linking Foundation (issue #34).
public enum WholeFile {
    /// The bytes of `path`, or nil when it cannot be opened or read.
    public static func read(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var block = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = block.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return count == 0 ? bytes : nil }
            bytes += block[0..<count]
        }
    }
}
