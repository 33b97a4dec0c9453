import Dispatch
import Foundation
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Monotonic seconds.
func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

/// Median, minimum and maximum of a set of runs.
struct Stats {
    let samples: [Double]
    var median: Double {
        let sorted = samples.sorted()
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }
    var min: Double { samples.min() ?? 0 }
    var max: Double { samples.max() ?? 0 }
    /// (max - min) / median, as a percentage.
    var spreadPercent: Double { median > 0 ? (max - min) / median * 100 : 0 }
}

/// Runs `body` `warmups` times unmeasured, then `runs` times; returns the seconds each run took.
func measure(warmups: Int = 1, runs: Int, _ body: () throws -> Void) rethrows -> Stats {
    for _ in 0..<warmups { try body() }
    var samples: [Double] = []
    for _ in 0..<runs {
        let start = now()
        try body()
        samples.append(now() - start)
    }
    return Stats(samples: samples)
}

/// The machine's CPU time counters from `/proc/stat` (all cores, in clock ticks): the time a
/// hypervisor gave to other guests ("steal") and the total. On a shared virtual machine the
/// wall time of a multi-threaded run depends on the steal while it ran, so the process stages
/// print the share next to their wall ratios. Nil where `/proc/stat` has no steal column.
struct MachineTicks {
    let steal: UInt64
    let total: UInt64

    init?() {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = text.split(separator: "\n").first, line.hasPrefix("cpu ") else { return nil }
        let values = line.split(separator: " ").dropFirst().compactMap { UInt64($0) }
        // user nice system idle iowait irq softirq steal guest guest_nice; guest time is in user's.
        guard values.count >= 8 else { return nil }
        steal = values[7]
        total = values.prefix(8).reduce(0, +)
    }

    /// The percentage of the machine's CPU time stolen between `start` and now, if known.
    static func stealPercent(since start: MachineTicks?) -> Double? {
        guard let start, let end = MachineTicks(), end.total > start.total else { return nil }
        return Double(end.steal - start.steal) / Double(end.total - start.total) * 100
    }
}

/// What `wait4` reports for a finished child.
struct ChildUsage {
    let wallSeconds: Double
    let userSeconds: Double
    let systemSeconds: Double
    let peakRSSBytes: Int
    let exitStatus: Int32
    var cpuSeconds: Double { userSeconds + systemSeconds }
}

/// Spawns `path` with `arguments` (output to /dev/null when `quiet`) and returns its wall
/// time, CPU time and peak RSS.
///
/// The child is started through a spawner (`masonry-floor spawn`, a small C program, else this
/// binary in `--spawn-helper` mode), which spawns the real child, waits for it with wait4 and
/// prints its rusage. The indirection matters for peak RSS: Linux carries the peak RSS of the
/// address space a process had at exec into the new program's ru_maxrss, and posix_spawn
/// execs from the parent's address space, so a child spawned straight from the bench
/// (hundreds of MiB by then) would report the bench's peak. The C spawner is about 1.5 MiB,
/// under anything masonry measures; this Swift binary is about 12 MiB, over masonry's start-up.
func runChild(_ path: String, _ arguments: [String], quiet: Bool = true) throws -> ChildUsage {
    let floor = (selfExecutablePath() as NSString).deletingLastPathComponent + "/masonry-floor"
    let (spawner, mode) = FileManager.default.isExecutableFile(atPath: floor) ? (floor, "spawn") : (selfExecutablePath(), "--spawn-helper")
    let pipe = Pipe()
    let start = now()
    let (status, _) = try spawnAndWait(spawner, [mode, quiet ? "quiet" : "loud", path] + arguments,
                                       stdoutFD: pipe.fileHandleForWriting.fileDescriptor)
    try? pipe.fileHandleForWriting.close()
    let wall = now() - start
    let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let fields = text.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    guard status == 0, fields.count == 5 else { throw BenchError("spawn helper failed (\(status)): \(text)") }
    return ChildUsage(wallSeconds: fields[0] > 0 ? fields[0] : wall, userSeconds: fields[1], systemSeconds: fields[2],
                      peakRSSBytes: Int(fields[3]), exitStatus: Int32(fields[4]))
}

/// `--spawn-helper quiet|loud path args...`: runs the child and prints
/// "wall user system maxrssBytes exitStatus" on stdout. Called first thing in main.
func spawnHelperMain(_ arguments: [String]) -> Never {
    do {
        let quiet = arguments[0] == "quiet"
        let start = now()
        let (status, usage) = try spawnAndWait(arguments[1], Array(arguments.dropFirst(2)),
                                               stdoutFD: quiet ? nil : 2, silence: quiet)
        let wall = now() - start
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        print(String(format: "%.6f %.6f %.6f %d %d", wall, seconds(usage.ru_utime), seconds(usage.ru_stime),
                     Int(usage.ru_maxrss) * 1024, status))
        exit(0)
    } catch {
        print("error \(error)")
        exit(1)
    }
}

/// posix_spawn + wait4; returns the exit status (128 + signal when killed) and the rusage.
func spawnAndWait(_ path: String, _ arguments: [String], stdoutFD: Int32?, silence: Bool = false) throws -> (Int32, rusage) {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if let stdoutFD { posix_spawn_file_actions_adddup2(&actions, stdoutFD, 1) }
    if silence {
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    }
    let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
    guard spawned == 0 else { throw BenchError("cannot start \(path): errno \(spawned)") }
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 {
        guard errno == EINTR else { throw BenchError("wait4 failed") }
    }
    let exit: Int32 = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    return (exit, usage)
}

func selfExecutablePath() -> String {
    var buffer = [CChar](repeating: 0, count: 4096)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    return count > 0 ? String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                     : CommandLine.arguments[0]
}

/// CPU seconds (user + system) this process has used so far, all threads.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}
