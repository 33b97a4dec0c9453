// The cache in conditions a single test process cannot make for itself: a
// folder it may not write (root ignores permission bits, so the probe child
// drops to user "nobody"), a full disk (the child runs under RLIMIT_FSIZE),
// and several runs sharing one folder at once.

import Foundation
import WorkerThreads
import Testing
import TestSupport
import TileCache
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

@Suite struct ProcessTests {
    /// The cache folder's every file and its bytes, to prove nothing changed.
    static func snapshot(_ folder: CacheFolder) -> [String: [UInt8]] {
        Dictionary(uniqueKeysWithValues: folder.files(where: { _ in true }).map { ($0, folder.read($0)) })
    }

    /// Sets every folder in the cache to `folderMode` and every file to `fileMode`.
    static func chmodAll(_ folder: CacheFolder, folderMode: mode_t, fileMode: mode_t) {
        var isFolder: ObjCBool = false
        for name in [""] + folder.files(where: { _ in true }) {
            let path = name.isEmpty ? folder.path : folder.full(name)
            _ = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
            chmod(path, isFolder.boolValue ? folderMode : fileMode)
        }
    }

    @Test func readOnlyFolderStillServesHits() throws {
        let folder = CacheFolder()
        let warm = try Probe.run([folder.path, "0", "10"])
        #expect(warm.status == 0 && warm.value("failedStores") == 0, "\(warm)")
        chmod(folder.base.path, 0o755)   // let "nobody" in
        Self.chmodAll(folder, folderMode: 0o555, fileMode: 0o444)
        defer { Self.chmodAll(folder, folderMode: 0o755, fileMode: 0o644) }
        let before = Self.snapshot(folder)

        let run = try Probe.run([folder.path, "0", "15", "--as-nobody", "--finish", "--max-bytes", "0"])
        #expect(run.status == 0, "\(run)")
        #expect(run.value("hits") == 10 && run.value("wrong") == 0, "\(run)")
        #expect(run.value("misses") == 5 && run.value("failedStores") == 5, "\(run)")
        #expect(run.value("evicted") == 0, "\(run)")
        #expect(Self.snapshot(folder) == before)
    }

    /// Under a 2000-byte file size limit, 8x8 entries (336 bytes) fit and 32x32
    /// ones (4176 bytes) do not: those stores fail, leave no file, and the
    /// cache keeps working.
    @Test func fullDiskLeavesNoPartialEntry() throws {
        let folder = CacheFolder()
        let small = try Probe.run([folder.path, "0", "4", "--size", "8x8", "--file-size-limit", "2000"])
        #expect(small.status == 0 && small.value("failedStores") == 0, "\(small)")
        let large = try Probe.run([folder.path, "100", "3", "--size", "32x32", "--file-size-limit", "2000"])
        #expect(large.status == 0 && large.value("failedStores") == 3, "\(large)")
        #expect(folder.files().count == 4)
        #expect(folder.files(where: { $0.hasPrefix(".tmp-") }).isEmpty)

        let smallAgain = try Probe.run([folder.path, "0", "4", "--size", "8x8"])
        #expect(smallAgain.value("hits") == 4 && smallAgain.value("wrong") == 0, "\(smallAgain)")
        let largeAgain = try Probe.run([folder.path, "100", "3", "--size", "32x32", "--rounds", "2"])
        #expect(largeAgain.value("misses") == 3 && largeAgain.value("hits") == 3 && largeAgain.value("warnings") == 0, "\(largeAgain)")
    }

    /// No descriptor left (EMFILE): every lookup misses and every store fails,
    /// counted, with no crash and nothing half written; entries made before stay good.
    @Test func noFreeDescriptors() throws {
        let folder = CacheFolder()
        let warm = try Probe.run([folder.path, "0", "5"])
        #expect(warm.status == 0 && warm.value("failedStores") == 0, "\(warm)")
        let starved = try Probe.run([folder.path, "0", "10", "--no-free-descriptors", "--finish", "--max-bytes", "0"])
        #expect(starved.status == 0, "\(starved)")
        #expect(starved.value("hits") == 0 && starved.value("misses") == 10 && starved.value("failedStores") == 10, "\(starved)")
        #expect(folder.files().count == 5)
        #expect(folder.files(where: { $0.hasPrefix(".tmp-") }).isEmpty)
        let after = try Probe.run([folder.path, "0", "5"])
        #expect(after.value("hits") == 5 && after.value("wrong") == 0, "\(after)")
    }

    /// Four runs at once over overlapping keys, each evicting to a bound that
    /// holds half of them: every hit has the right pixels, no run sees a
    /// damaged entry, and afterwards every entry left is whole.
    @Test func concurrentRunsShareOneFolder() throws {
        let folder = CacheFolder()
        let entryBytes = 80 + 24 * 24 * 4
        let bound = String(30 * entryBytes)
        let runs = try (0..<4).map { run in
            try Probe.start([folder.path, String(run * 10), "60", "--size", "24x24", "--rounds", "4", "--finish", "--max-bytes", bound])
        }.map { $0.wait() }
        for run in runs {
            #expect(run.status == 0 && run.value("wrong") == 0 && run.value("warnings") == 0, "\(run)")
            #expect(run.value("hits")! + run.value("misses")! == 240, "\(run)")
        }
        let check = try Probe.run([folder.path, "0", "90", "--size", "24x24", "--finish", "--max-bytes", bound])
        #expect(check.status == 0 && check.value("wrong") == 0 && check.value("warnings") == 0, "\(check)")
        #expect(folder.entryBytes() <= 30 * entryBytes)
        #expect(folder.files(where: { $0.hasPrefix(".tmp-") }).isEmpty)
    }

    /// Threads sharing one instance and threads with their own, on one folder.
    @Test func threadsShareOneFolder() throws {
        let folder = CacheFolder()
        let shared = try folder.open()
        let caches = [shared, shared, try folder.open(), try folder.open()]
        let keys = (0..<40).map { testKey($0, width: 20, height: 12) }
        let wrong = Lock(0)
        let done = DispatchGroup()
        for (index, cache) in caches.enumerated() {
            done.enter()
            Thread {
                for round in 0..<3 {
                    for key in keys.shuffled() where (key.inode + UInt64(round + index)) % 3 != 0 || round > 0 {
                        let pixels = testPixels(key, seed: 11)
                        if let found = cache.lookup(key) {
                            if found != pixels { wrong.withLock { $0 += 1 } }
                        } else {
                            cache.store(key, pixels)
                        }
                    }
                }
                done.leave()
            }.start()
        }
        done.wait()
        #expect(wrong.withLock { $0 } == 0)
        for cache in caches { #expect(cache.warnings.isEmpty && cache.failedStores == 0, "\(cache.warnings)") }
        let check = try folder.open()
        for key in keys { #expect(check.lookup(key) == testPixels(key, seed: 11)) }
    }
}
