// A cache user in its own process, for ThumbnailCacheTests: with a file size
// limit (a full disk), as another user (a read-only folder, even for root),
// or several at once on one folder (concurrent runs).
//
//   TileCacheProbe DIR FIRST COUNT [--size WxH] [--rounds R] [--finish]
//                       [--max-bytes N] [--file-size-limit N] [--as-nobody]
//                       [--no-free-descriptors]
//
// For each round and each key FIRST ..< FIRST+COUNT: look up; on a hit check
// the pixels, on a miss store them. Prints one line:
// "hits=H misses=M failedStores=F wrong=W evicted=E warnings=N". Exit 0 unless the
// arguments or the setup fail (exit 2, reason on stderr).

import TileCache
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

func fail(_ reason: String) -> Never {
    fputs("TileCacheProbe: \(reason)\n", stderr)
    exit(2)
}

/// The key of workload item `index`: a made-up file identity.
func key(_ index: Int, width: Int, height: Int) -> ThumbnailKey {
    ThumbnailKey(device: 7, inode: UInt64(index), size: Int64(index) * 1000, modified: 1_700_000_000_000_000_000 + Int64(index),
                 changed: 1_700_000_001_000_000_000 + Int64(index), targetWidth: width, targetHeight: height, variant: 1)
}

/// The pixels of workload item `index`: different for every item and position.
func pixels(_ index: Int, count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: ($0 &* 131) ^ ($0 >> 7) ^ (index &* 0x9D)) }
}

var arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 3, let first = Int(arguments[1]), let count = Int(arguments[2]) else {
    fail("usage: TileCacheProbe DIR FIRST COUNT [options]")
}
let directory = Array(arguments[0].utf8)
var width = 16, height = 16, rounds = 1, finish = false, maxBytes = 1 << 30, noFreeDescriptors = false
var options = arguments.dropFirst(3).makeIterator()
while let option = options.next() {
    func value<T: LosslessStringConvertible>() -> T {
        guard let text = options.next(), let value = T(text) else { fail("\(option) needs a value") }
        return value
    }
    switch option {
    case "--size":
        let parts = (value() as String).split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2 else { fail("--size wants WxH") }
        (width, height) = (parts[0], parts[1])
    case "--rounds": rounds = value()
    case "--finish": finish = true
    case "--max-bytes": maxBytes = value()
    case "--file-size-limit":
        let limit: rlim_t = value()
        signal(SIGXFSZ, SIG_IGN)   // over the limit, write() then fails with EFBIG instead of killing us
        var bound = rlimit(rlim_cur: limit, rlim_max: limit)
        guard setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &bound) == 0 else { fail("setrlimit: \(String(cString: strerror(errno)))") }
    case "--as-nobody":
        // Root ignores permission bits; user "nobody" (65534) does not.
        if geteuid() == 0 {
            guard setgroups(0, nil) == 0, setgid(65534) == 0, setuid(65534) == 0 else {
                fail("cannot become nobody: \(String(cString: strerror(errno)))")
            }
        }
    case "--no-free-descriptors": noFreeDescriptors = true   // applied once the cache is open
    default: fail("unknown option \(option)")
    }
}

let cache: ThumbnailCache
do {
    cache = try ThumbnailCache(directory: directory, maxBytes: maxBytes)
} catch {
    fail("cache: \(error)")
}
var descriptorLimit = rlimit()
getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &descriptorLimit)
if noFreeDescriptors {
    // EMFILE for every open from now on: the limit is the lowest free descriptor. Only the soft
    // limit, so the workload's end can restore it (LeakSanitizer needs descriptors at exit).
    let lowest = dup(0)
    close(lowest)
    var bound = rlimit(rlim_cur: rlim_t(lowest), rlim_max: descriptorLimit.rlim_max)
    guard lowest >= 0, setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &bound) == 0 else { fail("cannot limit descriptors") }
}
var wrong = 0
for _ in 0..<rounds {
    for index in first..<(first + count) {
        let itemKey = key(index, width: width, height: height)
        let expected = pixels(index, count: width * height * 4)
        if let found = cache.lookup(itemKey) {
            if found != expected { wrong += 1 }
        } else {
            expected.withUnsafeBufferPointer { cache.store(itemKey, pixels: $0) }
        }
    }
}
if finish { cache.finish() }
setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &descriptorLimit)
print("hits=\(cache.hits) misses=\(cache.misses) failedStores=\(cache.failedStores) wrong=\(wrong) evicted=\(cache.evicted) warnings=\(cache.warnings.count)")
