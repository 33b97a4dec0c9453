import CodecCore
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// How much memory painting may hold: `--max-memory`, or less when the process's address
/// space is limited (`ulimit -v`), so that a plan the limit cannot hold is refused with a
/// message instead of crashing on a failed allocation.
enum MemoryBudget {
    /// The budget in bytes for a run asked to stay under `maxMemory`, and whether the address
    /// space limit (rather than `maxMemory`) decided it.
    static func bytes(maxMemory: Int) -> (bytes: Int, limitedByAddressSpace: Bool) {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return (maxMemory, false) }
        // Thread stacks, libraries and the allocator's own reserve take address space too:
        // leave a quarter of what is free for them.
        let free = max(0, Int(clamping: limit.rlim_cur) - virtualSize())
        let usable = free / 4 * 3
        return usable < maxMemory ? (usable, true) : (maxMemory, false)
    }

    /// This process's current virtual size in bytes (`VmSize` in /proc/self/status), or 0.
    private static func virtualSize() -> Int {
        guard let status = WholeFile.read("/proc/self/status").map({ String(decoding: $0, as: UTF8.self) }),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmSize:") }),
              let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return 0 }
        return kilobytes * 1024
    }
}
