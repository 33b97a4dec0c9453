#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Names of the temporary files outputs are written to, and the clean-up of
/// those a dead run left behind.
///
/// A name is `.` + the target's name (cut short when needed) + a fixed-length
/// suffix `.masonry-<pid, 10 digits>-<8 hex digits>.tmp` (32 bytes), so it
/// never exceeds NAME_MAX (255 bytes), whatever the target's name, the PID or
/// the random part.
enum TemporaryName {
    static let nameMax = 255
    static let marker = Array(".masonry-".utf8)
    static let ending = Array(".tmp".utf8)
    static let suffixLength = marker.count + 10 + 1 + 8 + ending.count

    /// A fresh temporary name for a target named `targetName`.
    static func make(for targetName: [UInt8]) -> [UInt8] {
        let pid = String(getpid())
        let random = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let suffix = marker + Array((String(repeating: "0", count: 10 - pid.count) + pid).utf8) + [UInt8(ascii: "-")]
            + Array((String(repeating: "0", count: 8 - random.count) + random).utf8) + ending
        return [UInt8(ascii: ".")] + targetName.prefix(nameMax - 1 - suffixLength) + suffix
    }

    /// The PID in a name of this pattern (also the variable-length names of
    /// earlier versions, `.<name>.masonry-<pid>-<base 36>.tmp`), or nil.
    static func writerPID(_ name: [UInt8]) -> pid_t? {
        guard name.first == UInt8(ascii: "."), name.suffix(ending.count).elementsEqual(ending) else { return nil }
        let body = name.dropLast(ending.count)
        guard let dash = body.lastIndex(of: UInt8(ascii: "-")),
              body[(dash + 1)...].allSatisfy({ isDigit($0) || (0x61...0x7A).contains($0) }) else { return nil }
        let digits = body[..<dash].reversed().prefix { isDigit($0) }.reversed()
        let markerEnd = dash - digits.count
        guard !digits.isEmpty, digits.count <= 10, markerEnd >= marker.count,
              body[(markerEnd - marker.count)..<markerEnd].elementsEqual(marker),
              let pid = pid_t(String(decoding: digits, as: UTF8.self)) else { return nil }
        return pid
    }

    /// Removes the temporary files of dead runs from `folder`: names of this
    /// pattern whose PID is no longer alive, or which are over a day old (the
    /// PID may have been reused). Files that cannot be removed are left alone;
    /// anything else in the folder is never touched.
    static func removeAbandoned(in folder: RawPath) {
        let descriptor = folder.open(O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0, let directory = fdopendir(descriptor) else {
            if descriptor >= 0 { close(descriptor) }
            return
        }
        defer { closedir(directory) }
        let now = time(nil)
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix(while: { $0 != 0 })) }
            guard let pid = writerPID(name) else { continue }
            (name + [0]).withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { cName in
                    var status = stat()
                    guard fstatat(descriptor, cName.baseAddress!, &status, AT_SYMLINK_NOFOLLOW) == 0,
                          status.st_mode & S_IFMT == S_IFREG else { return }
                    let dead = pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH
                    if dead || now - status.st_mtim.tv_sec > 24 * 3600 {
                        _ = unlinkat(descriptor, cName.baseAddress!, 0)
                    }
                }
            }
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
}
