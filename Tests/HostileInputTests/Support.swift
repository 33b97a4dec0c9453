// Helpers for the hostile-input suite (the PNG builder and the seeded
// generator live in TestSupport): scratch folders, and a runner that starts the real `masonry`
// executable with raw-byte arguments, times it, samples its peak memory and
// kills it if it hangs. Every hostile file is generated here: nothing opaque
// is checked in.

import Foundation
@_exported import TestSupport
import Testing
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

// MARK: - Seeded generator helpers

extension SplitMix64 {
    mutating func chance(_ oneIn: Int) -> Bool { Int.random(in: 0..<oneIn, using: &self) == 0 }

    /// `MASONRY_FUZZ_SEED` (decimal or 0x-hex) when set, else a fixed default,
    /// so CI runs are reproducible and a failing seed can be replayed.
    static let fuzzSeed: UInt64 = {
        if let text = ProcessInfo.processInfo.environment["MASONRY_FUZZ_SEED"] {
            if text.hasPrefix("0x"), let v = UInt64(text.dropFirst(2), radix: 16) { return v }
            if let v = UInt64(text) { return v }
        }
        return 0x486F_7374_696C_6521  // "Hostile!"
    }()
}

// MARK: - Scratch folders

/// A fresh folder under the system temporary folder, removed (with
/// permissions restored) when the test ends.
final class ScratchFolder {
    let path: String

    init(_ label: String) {
        var template = Array("/tmp/masonry-hostile-\(label)-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        path = String(decoding: template.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func sub(_ name: String) -> String { path + "/" + name }

    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) -> String {
        let full = sub(name)
        writeRaw(Array(full.utf8), bytes)
        return full
    }

    func mkdir(_ name: String) -> String {
        let full = sub(name)
        _ = Glibc.mkdir(full, 0o755)
        return full
    }

    deinit {
        // MASONRY_KEEP_SCRATCH=1 keeps the folders to replay a run by hand.
        if ProcessInfo.processInfo.environment["MASONRY_KEEP_SCRATCH"] == "1" { return }
        // chmod back anything a test locked, then remove the tree.
        let fm = FileManager.default
        if let walker = fm.enumerator(atPath: path) {
            for case let name as String in walker { chmod(path + "/" + name, 0o755) }
        }
        try? fm.removeItem(atPath: path)
    }
}

/// Writes `bytes` to the file whose path is the raw `pathBytes` (names need not be UTF-8).
func writeRaw(_ pathBytes: [UInt8], _ bytes: [UInt8]) {
    let fd = (pathBytes + [0]).withUnsafeBufferPointer {
        $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
    }
    precondition(fd >= 0, "cannot create \(String(decoding: pathBytes, as: UTF8.self)): \(errno)")
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, bytes.count - offset) }
        precondition(n > 0)
        offset += n
    }
    close(fd)
}

func readFile(_ path: String) -> [UInt8]? {
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    return [UInt8](data)
}

func listFolder(_ path: String) -> [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
}

// MARK: - Running the real executable

/// The outcome of one run of `masonry`.
struct RunResult: CustomStringConvertible {
    /// The exit status, or 128 + signal when the child was killed by a signal.
    var status: Int32
    var stdout: String
    var stderr: String
    var seconds: Double
    /// The highest VmHWM seen while sampling /proc/<pid>/status (a lower bound of the true
    /// peak; sampling every few milliseconds). `ru_maxrss` from `wait4` is not used: after
    /// posix_spawn's vfork it counts the test process's own memory.
    var peakRSS: Int
    var timedOut: Bool

    var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }
    var description: String {
        "status \(status) in \(String(format: "%.2f", seconds)) s, peak RSS \(peakRSS / 1024) KiB\(timedOut ? " (TIMED OUT)" : "")\n\(stderr)"
    }
}

enum Masonry {
    /// The `masonry` executable built beside this test bundle (swift build puts
    /// products and the test runner in the same folder), `MASONRY_EXECUTABLE` if set.
    static let executable: String = {
        if let path = ProcessInfo.processInfo.environment["MASONRY_EXECUTABLE"] { return path }
        var candidates: [String] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("masonry").path)
        }
        candidates.append(Bundle.main.bundleURL.appendingPathComponent("masonry").path)
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("masonry").path)
        // Walk up from this file to the package root's .build/debug.
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        candidates.append(url.appendingPathComponent(".build/debug/masonry").path)
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0]
    }()

    /// Runs `masonry` with raw-byte arguments; stdout and stderr go to files.
    /// The child is killed (and `timedOut` set) after `timeout` seconds.
    /// `whileRunning` is called every few milliseconds with the child's pid and the
    /// elapsed time (used to send signals at the right moment). With `shellLimits`
    /// (such as `ulimit -n 8`), `/bin/sh` applies them and then becomes `masonry`.
    static func run(_ arguments: [[UInt8]], timeout: Double = 30, shellLimits: String? = nil,
                    whileRunning: ((pid_t, Double) -> Void)? = nil) -> RunResult {
        let logs = ScratchFolder("log")
        let outPath = logs.sub("stdout"), errPath = logs.sub("stderr")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The test runner may have signals blocked or ignored; the child must start clean.
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let program = shellLimits == nil ? executable : "/bin/sh"
        let shell: [[UInt8]] = shellLimits.map { [Array("/bin/sh".utf8), Array("-c".utf8), Array("\($0); exec \"$0\" \"$@\"".utf8)] } ?? []
        let argv: [[UInt8]] = shell + [Array(executable.utf8)] + arguments
        var cStrings: [UnsafeMutablePointer<CChar>?] = argv.map { bytes in
            let p = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            for (i, b) in bytes.enumerated() { p[i] = CChar(bitPattern: b) }
            p[bytes.count] = 0
            return p
        }
        cStrings.append(nil)
        defer { for p in cStrings { p?.deallocate() } }
        var pid: pid_t = 0
        let spawner = threadName()
        let start = DispatchTime.now()
        let spawned = posix_spawn(&pid, program, &actions, &attributes, cStrings, environ)
        precondition(spawned == 0, "cannot start \(program): \(String(cString: strerror(spawned)))")

        var status: Int32 = 0
        var peak = 0
        var timedOut = false
        func elapsed() -> Double { Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9 }
        while true {
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid { break }
            if done < 0 && errno != EINTR { break }
            peak = max(peak, vmHWM(pid, spawnerName: spawner))
            let now = elapsed()
            if now > timeout && !timedOut {
                timedOut = true
                kill(pid, SIGKILL)
            }
            whileRunning?(pid, now)
            usleep(2_000)
        }
        let seconds = elapsed()
        let code: Int32 = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return RunResult(status: code,
                         stdout: String(decoding: readFile(outPath) ?? [], as: UTF8.self),
                         stderr: String(decoding: readFile(errPath) ?? [], as: UTF8.self),
                         seconds: seconds, peakRSS: peak, timedOut: timedOut)
    }

    static func run(_ arguments: [String], timeout: Double = 30, shellLimits: String? = nil,
                    whileRunning: ((pid_t, Double) -> Void)? = nil) -> RunResult {
        run(arguments.map { Array($0.utf8) }, timeout: timeout, shellLimits: shellLimits, whileRunning: whileRunning)
    }

    /// VmHWM of a live process in bytes (0 once it has exited, or while it still runs in the
    /// test process's memory).
    ///
    /// posix_spawn's vfork parent resumes when the child's execve releases the old memory, a
    /// moment before the kernel gives the child its new one; a sample in that window reads the
    /// test process's own VmHWM (seen in CI: 591 MiB under ASan for an 8 × 8 sheet). The
    /// child's name changes only after the switch, so a sample still carrying the test
    /// spawner's name (`threadName()`) is not the child's.
    static func vmHWM(_ pid: pid_t, spawnerName: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        var name: Substring?, hwm = 0
        for line in text.split(separator: "\n") {
            if line.hasPrefix("Name:") { name = line.dropFirst(5).drop { $0 == " " || $0 == "\t" } }
            if line.hasPrefix("VmHWM:") {
                let fields = line.dropFirst(6).split(whereSeparator: { $0 == " " || $0 == "\t" })
                hwm = (fields.first.flatMap { Int($0) } ?? 0) * 1024
            }
        }
        return name == spawnerName[...] ? 0 : hwm
    }

    /// The name /proc gives the calling thread, which a child it spawns carries until its
    /// execve completes.
    static func threadName() -> String {
        let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
        return name.trimmingCharacters(in: .newlines)
    }
}

let MiB = 1 << 20

/// Honest bounds for one hostile run of the debug build on a shared 2-core
/// machine: a normal run takes well under a second; 5 s means a hang or a
/// quadratic blow-up. Peak memory: a few MiB of runtime plus one image row
/// per worker; 256 MiB means something allocated what a file asked for.
enum Bounds {
    static let seconds = 5.0
    static let peakRSS = 256 * MiB
}

/// Records one line per run for the report table (printed with MASONRY_TEST_VERBOSE=1).
func note(_ label: String, _ result: RunResult) {
    let warning = result.stderrLines.first { !$0.contains("masonry: wrote") } ?? "-"
    TestLog.verbose("HOSTILE | \(label) | exit \(result.status) | \(String(format: "%.2f", result.seconds)) s | \(result.peakRSS / MiB) MiB | \(warning)")
}

/// True when this process runs as root (chmod tests are then meaningless).
var runningAsRoot: Bool { geteuid() == 0 }
