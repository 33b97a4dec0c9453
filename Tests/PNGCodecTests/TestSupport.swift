// Helpers for the PNGCodec conformance tests: fixtures, goldens, PNG byte
// builders, stderr capture and process memory readings (SHA-256, CRC-32,
// Adler-32 and the seeded PRNG come from the shared TestSupport target). Nothing here uses PNGCodec, so the checks stay
// independent of the code under test.

import Foundation
@_exported import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Fixtures

/// This target's fixtures.
let fixtureFolder = FixtureFolder(in: .module)

/// One line of `Fixtures/goldens.txt` (see Fixtures/GOLDENS.md).
struct Golden: Sendable {
    struct IHDR: Sendable, Equatable {
        var width: Int, height: Int, bitDepth: Int, colorType: UInt8, interlaced: Bool
    }

    let name: String
    /// SHA-256 hex of the RGBA8 pixels; nil for a file that must be rejected.
    let digest: String?
    /// The IHDR fields; nil when the first 33 bytes are not a valid header.
    let ihdr: IHDR?

    var mustReject: Bool { digest == nil }

    static let all: [Golden] = {
        guard let text = try? String(contentsOfFile: fixtureFolder.path("goldens.txt"), encoding: .utf8) else {
            return []
        }
        return text.split(separator: "\n").compactMap { line -> Golden? in
            guard !line.hasPrefix("#"), let colon = line.firstIndex(of: ":") else { return nil }
            let name = String(line[..<colon])
            let fields = line[line.index(after: colon)...].split(separator: " ").map(String.init)
            guard fields.count == 6 else { return nil }
            let digest = fields[0] == "reject" ? nil : fields[0]
            var ihdr: IHDR?
            if let w = Int(fields[1]), let h = Int(fields[2]), let d = Int(fields[3]),
               let c = UInt8(fields[4]), let i = Int(fields[5]) {
                ihdr = IHDR(width: w, height: h, bitDepth: d, colorType: c, interlaced: i == 1)
            }
            return Golden(name: name, digest: digest, ihdr: ihdr)
        }
    }()

    static let byName: [String: Golden] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })
    static var validNames: [String] { all.filter { !$0.mustReject }.map(\.name) }
    static var rejectNames: [String] { all.filter(\.mustReject).map(\.name) }
}

// MARK: - Process state: stderr and memory

/// Runs `body` with file descriptor 2 pointed at a temporary file and returns
/// what was written there. Lines that Swift Testing itself prints to stderr
/// from concurrently running tests are passed back to the real stderr and not
/// counted. Captures are serialised with a lock.
func capturingStderr<T>(_ body: () throws -> T) rethrows -> (result: T, stderr: String) {
    StderrCapture.lock.lock()
    defer { StderrCapture.lock.unlock() }
    fflush(nil)
    var template = Array("/tmp/pngcodec-stderr-XXXXXX".utf8CString)
    let fd = mkstemp(&template)
    precondition(fd >= 0, "mkstemp failed")
    unlink(template)
    let saved = dup(2)
    dup2(fd, 2)
    func restore() -> String {
        fflush(nil)
        dup2(saved, 2)
        close(saved)
        var text: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        lseek(fd, 0, SEEK_SET)
        while true {
            let n = read(fd, &chunk, chunk.count)
            if n <= 0 { break }
            text += chunk[0..<n]
        }
        close(fd)
        return StderrCapture.separateTestingOutput(String(decoding: text, as: UTF8.self))
    }
    do {
        let result = try body()
        return (result, restore())
    } catch {
        let leaked = restore()
        if !leaked.isEmpty { Issue.record("stderr output: \(leaked)") }
        throw error
    }
}

enum StderrCapture {
    static let lock = NSLock()

    /// Swift Testing writes its event lines ("◇ Test x started.") to fd 2;
    /// they begin with a non-ASCII symbol. Echo those, return the rest.
    static func separateTestingOutput(_ text: String, echo: Bool = true) -> String {
        var rest: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if let first = line.unicodeScalars.first, !first.isASCII,
               line.contains("Test") || line.contains("Suite") || line.hasPrefix("↳") {
                if echo { FileHandle.standardError.write(Data((line + "\n").utf8)) }
            } else {
                rest.append(line)
            }
        }
        return rest.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

enum ProcessMemory {
    /// A field of /proc/self/status in bytes (VmRSS, VmHWM, VmPeak, VmSize).
    static func status(_ key: String) -> Int {
        // /proc files report size 0, so read them in a loop rather than by size.
        let fd = open("/proc/self/status", O_RDONLY)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(fd, &chunk, chunk.count)
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix(key + ":") {
            let fields = line.dropFirst(key.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" })
            return (fields.first.flatMap { Int($0) } ?? 0) * 1024
        }
        return 0
    }

    /// Resets VmHWM to the current RSS (Linux >= 4.0), so a later VmHWM is the
    /// peak of what ran in between. Returns false if that is not possible.
    static func resetPeak() -> Bool {
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return write(fd, "5", 1) == 1
    }

    static let lock = NSLock()

    struct Growth: CustomStringConvertible {
        /// VmHWM after - VmRSS before: how much resident memory the call added at its peak.
        var residentPeak: Int
        /// VmPeak after - VmPeak before: how far the call pushed the process's
        /// largest-ever address space. Reservations smaller than `headroom`
        /// (VmPeak - VmSize before the call) can't be seen, since VmPeak can't
        /// be reset; anything bigger than headroom + this value can.
        var virtualPeak: Int
        var headroom: Int
        var description: String {
            "peak RSS +\(residentPeak / 1024) KiB, peak VM +\(virtualPeak / 1024) KiB (VM headroom \(headroom / MiB) MiB)"
        }
    }

    /// Runs `body` and reports how much the process's peak resident memory
    /// and peak address space grew meanwhile. Measurements are serialised,
    /// but tests of other suites (and other test targets in the same process)
    /// run at the same time and can add their own allocations. So when the
    /// resident growth reaches `retryAbove`, `body` is run again (up to
    /// `attempts` times) and the smallest resident growth is reported: noise
    /// from elsewhere comes and goes, a real cost repeats. The virtual
    /// growth is the first run's (a second run can't raise VmPeak again).
    static func measuring<T>(attempts: Int = 3, retryAbove: Int = 64 * MiB,
                             _ body: () throws -> T) rethrows -> (result: T, growth: Growth) {
        var first: (result: T, growth: Growth)?
        for _ in 0..<max(1, attempts) {
            let run = try measureOnce(body)
            if first == nil {
                first = run
            } else if run.growth.residentPeak < first!.growth.residentPeak {
                first!.growth.residentPeak = run.growth.residentPeak
            }
            if first!.growth.residentPeak < retryAbove { break }
        }
        return first!
    }

    private static func measureOnce<T>(_ body: () throws -> T) rethrows -> (result: T, growth: Growth) {
        lock.lock()
        defer { lock.unlock() }
        let rssBefore = status("VmRSS")
        let peakBefore = status("VmPeak")
        let sizeBefore = status("VmSize")
        let canReset = resetPeak()
        let hwmBefore = status("VmHWM")
        let result = try body()
        let hwmAfter = status("VmHWM")
        let resident = canReset ? hwmAfter - rssBefore : hwmAfter - hwmBefore
        return (result, Growth(residentPeak: max(0, resident), virtualPeak: max(0, status("VmPeak") - peakBefore),
                               headroom: max(0, peakBefore - sizeBefore)))
    }
}

let MiB = 1 << 20
