// The cache's contract: a hit returns exactly what was stored for exactly this
// key; anything else on disk (damaged, truncated, swapped, foreign, not a
// file) is a miss that the next store repairs; nothing throws or crashes.
// Seeded tests name their seed (MASONRY_TEST_SEED replays it) in every failure.

import Foundation
import Testing
import TestSupport
import TileCache
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

@Suite struct RoundTripTests {
    @Test func storedPixelsComeBackInAnotherInstance() throws {
        let folder = CacheFolder()
        let seed = SplitMix64.suiteSeed
        let keys = [testKey(0), testKey(1, width: 1, height: 1), testKey(2, width: 33, height: 7)]
        let writer = try folder.open()
        for key in keys { writer.store(key, testPixels(key, seed: seed)) }
        #expect(writer.failedStores == 0, "\(writer.warnings)")
        #expect(folder.files().count == 3)

        let reader = try folder.open()
        for key in keys {
            #expect(reader.lookup(key) == testPixels(key, seed: seed), "seed \(seed)")
        }
        #expect(reader.hits == 3 && reader.misses == 0)
        #expect(reader.warnings.isEmpty, "\(reader.warnings)")
    }

    /// Every part of the key matters: change one field and the entry is not found.
    @Test func everyKeyFieldSeparatesEntries() throws {
        let folder = CacheFolder()
        let cache = try folder.open()
        let key = testKey(0)
        cache.store(key, testPixels(key, seed: 1))
        let neighbours = [
            ThumbnailKey(device: 43, inode: key.inode, size: key.size, modified: key.modified, changed: key.changed,
                         targetWidth: 16, targetHeight: 16, variant: key.variant),
            ThumbnailKey(device: key.device, inode: key.inode + 1, size: key.size, modified: key.modified, changed: key.changed,
                         targetWidth: 16, targetHeight: 16, variant: key.variant),
            ThumbnailKey(device: key.device, inode: key.inode, size: key.size + 1, modified: key.modified, changed: key.changed,
                         targetWidth: 16, targetHeight: 16, variant: key.variant),
            ThumbnailKey(device: key.device, inode: key.inode, size: key.size, modified: key.modified + 1, changed: key.changed,
                         targetWidth: 16, targetHeight: 16, variant: key.variant),
            ThumbnailKey(device: key.device, inode: key.inode, size: key.size, modified: key.modified, changed: key.changed + 1,
                         targetWidth: 16, targetHeight: 16, variant: key.variant),
            ThumbnailKey(device: key.device, inode: key.inode, size: key.size, modified: key.modified, changed: key.changed,
                         targetWidth: 8, targetHeight: 32, variant: key.variant),
            ThumbnailKey(device: key.device, inode: key.inode, size: key.size, modified: key.modified, changed: key.changed,
                         targetWidth: 16, targetHeight: 16, variant: key.variant + 1),
        ]
        for neighbour in neighbours { #expect(!cache.serves(neighbour), "\(neighbour)") }
        #expect(cache.lookup(key) == testPixels(key, seed: 1))
        #expect(cache.misses == neighbours.count && cache.hits == 1)
    }

    /// Random keys (any field values, sizes 1...40) and pixels: each comes back
    /// exactly, and a key differing in one random field is never served.
    @Test func randomKeysRoundTrip() throws {
        let seed = SplitMix64.suiteSeed ^ 0x6B657973
        var random = SplitMix64(seed: seed)
        let folder = CacheFolder()
        let cache = try folder.open()
        var stored: [(ThumbnailKey, [UInt8])] = []
        for _ in 0..<40 {
            let key = ThumbnailKey(device: random.next(), inode: random.next(), size: Int64(bitPattern: random.next()),
                                   modified: Int64(bitPattern: random.next()), changed: Int64(bitPattern: random.next()),
                                   targetWidth: random.int(1...40), targetHeight: random.int(1...40), variant: random.next())
            let pixels = random.bytes(key.pixelBytes!)
            cache.store(key, pixels)
            stored.append((key, pixels))
        }
        #expect(cache.failedStores == 0, "seed \(seed): \(cache.warnings)")
        for (key, pixels) in stored {
            #expect(cache.lookup(key) == pixels, "seed \(seed): \(key)")
            var fields = (key.device, key.inode, key.size, key.modified, key.changed, key.targetWidth, key.targetHeight, key.variant)
            switch random.int(0...7) {
            case 0: fields.0 &+= 1
            case 1: fields.1 ^= 1 << UInt64(random.int(0...63))
            case 2: fields.2 &-= 1
            case 3: fields.3 &+= 1
            case 4: fields.4 ^= 1 << Int64(random.int(0...63))
            case 5: fields.5 += 1
            case 6: fields.6 += 1
            default: fields.7 &+= 1
            }
            let other = ThumbnailKey(device: fields.0, inode: fields.1, size: fields.2, modified: fields.3, changed: fields.4,
                                     targetWidth: fields.5, targetHeight: fields.6, variant: fields.7)
            #expect(!cache.serves(other), "seed \(seed): \(other) served for \(key)")
        }
    }

    @Test func unusableSizesAreNeverStored() throws {
        let folder = CacheFolder()
        let cache = try folder.open()
        let empty = testKey(0, width: 0, height: 5)
        let huge = testKey(1, width: 1 << 20, height: 1 << 20)
        #expect(empty.pixelBytes == nil && huge.pixelBytes == nil)
        #expect(!cache.serves(empty) && !cache.serves(huge))
        [UInt8](repeating: 0, count: 4).withUnsafeBufferPointer { cache.store(empty, pixels: $0) }
        let key = testKey(2, width: 2, height: 2)
        [UInt8](repeating: 0, count: 15).withUnsafeBufferPointer { cache.store(key, pixels: $0) }   // one byte short
        #expect(cache.failedStores == 2)
        #expect(folder.files().isEmpty)
    }

    @Test func unusableFolderIsRefusedWithAReason() throws {
        let base = TemporaryFolder("masonry-cache-bad")
        makeFile(base.file("plain"), Array("x".utf8))
        // A folder whose parent is a regular file cannot exist, even for root.
        #expect(throws: ThumbnailCacheError.self) { try ThumbnailCache(directory: Array(base.file("plain/cache").utf8), maxBytes: 1) }
        do {
            _ = try ThumbnailCache(directory: Array(base.file("plain/cache").utf8), maxBytes: 1)
        } catch {
            #expect(error.reason == "cannot use it as the cache folder: Not a directory")
        }
        #expect(throws: ThumbnailCacheError.self) { try ThumbnailCache(directory: Array(base.file("plain").utf8), maxBytes: 1) }
        #expect(throws: ThumbnailCacheError.self) { try ThumbnailCache(directory: [], maxBytes: 1) }
        #expect(throws: ThumbnailCacheError.self) { try ThumbnailCache(directory: Array("a\u{0}b".utf8), maxBytes: 1) }
        #expect(throws: ThumbnailCacheError.self) { try ThumbnailCache(directory: Array(base.file("ok").utf8), maxBytes: -1) }
    }

    @Test func missingParentsAreCreated() throws {
        let base = TemporaryFolder("masonry-cache-deep")
        let path = base.path + "/a/b/c/"
        let cache = try ThumbnailCache(directory: Array(path.utf8), maxBytes: 1 << 20)
        let key = testKey(0)
        cache.store(key, testPixels(key, seed: 2))
        #expect(cache.lookup(key) == testPixels(key, seed: 2))
        #expect(FileManager.default.fileExists(atPath: path + "CACHEDIR.TAG"))
    }
}

@Suite struct KeyIdentityTests {
    /// The file's ctime in nanoseconds.
    static func changed(_ path: String) -> Int64 {
        var status = stat()
        precondition(stat(path, &status) == 0)
        return Int64(status.st_ctim.tv_sec) * 1_000_000_000 + Int64(status.st_ctim.tv_nsec)
    }

    /// Waits until the file at `path`, changed just now, is past its settle time.
    static func settle(_ path: String) {
        usleep(UInt32(ThumbnailKey.settleTime(changedNanoseconds: changed(path)) / 1000) + 100_000)
    }

    @Test func keyComesFromTheOpenFile() throws {
        let base = TemporaryFolder("masonry-cache-key")
        let path = base.file("input.png")
        makeFile(path, [UInt8](repeating: 7, count: 1234))
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        let fresh = Result { try ThumbnailKey(fileDescriptor: fd, targetWidth: 10, targetHeight: 20, variant: 9) }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let age = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec) - Self.changed(path)
        if age < ThumbnailKey.settleTime(changedNanoseconds: Self.changed(path)) {   // else this machine stalled: nothing to check
            #expect(throws: ThumbnailCacheError.self, "a file written \(age) ns ago has not settled") { try fresh.get() }
        }
        Self.settle(path)
        var status = stat()
        try #require(fstat(fd, &status) == 0)
        let key = try ThumbnailKey(fileDescriptor: fd, targetWidth: 10, targetHeight: 20, variant: 9)
        #expect(key == ThumbnailKey(device: UInt64(status.st_dev), inode: UInt64(status.st_ino), size: 1234,
                                    modified: Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec),
                                    changed: Int64(status.st_ctim.tv_sec) * 1_000_000_000 + Int64(status.st_ctim.tv_nsec),
                                    targetWidth: 10, targetHeight: 20, variant: 9))
        #expect(throws: ThumbnailCacheError.self) { try ThumbnailKey(fileDescriptor: fd, targetWidth: 0, targetHeight: 20, variant: 9) }
        let folderDescriptor = open(base.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { close(folderDescriptor) }
        #expect(throws: ThumbnailCacheError.self) { try ThumbnailKey(fileDescriptor: folderDescriptor, targetWidth: 1, targetHeight: 1, variant: 0) }
        #expect(throws: ThumbnailCacheError.self) { try ThumbnailKey(fileDescriptor: -1, targetWidth: 1, targetHeight: 1, variant: 0) }
    }

    /// Edited in place, same size, mtime put back with utimensat: only ctime
    /// tells, and it does, so the old thumbnail is not served.
    @Test func inPlaceEditWithRestoredMtimeChangesTheKey() throws {
        let base = TemporaryFolder("masonry-cache-edit")
        let folder = CacheFolder()
        let path = base.file("input.png")
        let replacement = base.file("replacement")
        makeFile(path, [UInt8](repeating: 1, count: 4096))
        makeFile(replacement, [UInt8](repeating: 1, count: 4096))
        var fixed = [timespec(tv_sec: 1_600_000_000, tv_nsec: 123_456_789), timespec(tv_sec: 1_600_000_000, tv_nsec: 123_456_789)]
        try #require(utimensat(AT_FDCWD, path, &fixed, 0) == 0)
        try #require(utimensat(AT_FDCWD, replacement, &fixed, 0) == 0)
        Self.settle(path)
        let fd = open(path, O_RDWR | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        let before = try ThumbnailKey(fileDescriptor: fd, targetWidth: 16, targetHeight: 16, variant: 1)
        let cache = try folder.open()
        cache.store(before, testPixels(before, seed: 5))

        let edited = [UInt8](repeating: 2, count: 16)
        #expect(pwrite(fd, edited, edited.count, 100) == edited.count)
        try #require(futimens(fd, &fixed) == 0)
        Self.settle(path)
        let after = try ThumbnailKey(fileDescriptor: fd, targetWidth: 16, targetHeight: 16, variant: 1)
        #expect(after.size == before.size && after.modified == before.modified && after.inode == before.inode)
        #expect(after.changed != before.changed)
        #expect(after != before)
        #expect(!cache.serves(after))

        // Replaced by another file under the same name, same size and times: another inode.
        try #require(rename(replacement, path) == 0)   // a rename moves the file's ctime too
        Self.settle(path)
        let newFile = open(path, O_RDONLY | O_CLOEXEC)
        defer { close(newFile) }
        let replaced = try ThumbnailKey(fileDescriptor: newFile, targetWidth: 16, targetHeight: 16, variant: 1)
        #expect(replaced.inode != before.inode && replaced != before)
        #expect(!cache.serves(replaced))
    }
}

@Suite struct DamageTests {
    /// Three entries of different sizes, stored; returns the cache, keys and pixels.
    static func populated(_ folder: CacheFolder, seed: UInt64) throws -> (ThumbnailCache, [ThumbnailKey: [UInt8]]) {
        let cache = try folder.open()
        var stored: [ThumbnailKey: [UInt8]] = [:]
        for key in [testKey(0, width: 1, height: 1), testKey(1, width: 7, height: 5), testKey(2, width: 64, height: 48)] {
            stored[key] = testPixels(key, seed: seed)
            cache.store(key, stored[key]!)
        }
        return (cache, stored)
    }

    /// The entry file `key` was stored in (the only file that appeared for it).
    static func entryFile(of key: ThumbnailKey, in folder: CacheFolder, _ cache: ThumbnailCache, pixels: [UInt8]) -> String {
        let before = Set(folder.files())
        for name in before { _ = unlink(folder.full(name)) }
        cache.store(key, pixels)
        let after = folder.files()
        precondition(after.count == 1, "one entry expected, found \(after)")
        return after[0]
    }

    /// Every entry cut at random lengths (and at 0 and one byte short): all misses; a store repairs it.
    @Test func truncatedEntriesAreMissesAndGetReplaced() throws {
        let seed = SplitMix64.suiteSeed ^ 0x7472_756E_63
        var random = SplitMix64(seed: seed)
        let folder = CacheFolder()
        let (cache, stored) = try Self.populated(folder, seed: seed)
        for (key, pixels) in stored {
            let name = Self.entryFile(of: key, in: folder, cache, pixels: pixels)
            let good = folder.read(name)
            #expect(good.count == 80 + pixels.count)
            let cuts = [0, good.count - 1, 76] + (0..<40).map { _ in random.int(0...(good.count - 1)) }
            for cut in cuts {
                folder.write(name, Array(good[..<cut]))
                #expect(!cache.serves(key), "seed \(seed): \(key.targetWidth)x\(key.targetHeight) cut at \(cut) was served")
            }
            cache.store(key, pixels)
            #expect(cache.lookup(key) == pixels, "seed \(seed)")
            #expect(folder.read(name) == good, "seed \(seed): the rewritten entry differs")
        }
        #expect(cache.warnings.first?.contains("wrong size") == true, "\(cache.warnings)")
    }

    /// Any single damaged byte is caught: every header and trailer byte and random pixel bytes.
    @Test func flippedBytesAreMisses() throws {
        let seed = SplitMix64.suiteSeed ^ 0x666C_6970
        var random = SplitMix64(seed: seed)
        let folder = CacheFolder()
        let (cache, stored) = try Self.populated(folder, seed: seed)
        for (key, pixels) in stored {
            let name = Self.entryFile(of: key, in: folder, cache, pixels: pixels)
            let good = folder.read(name)
            let positions = Array(0..<76) + Array((good.count - 4)..<good.count)
                + (0..<40).map { _ in random.int(76...(good.count - 5)) }
            for position in positions {
                var damaged = good
                damaged[position] ^= UInt8(random.int(1...255))
                folder.write(name, damaged)
                #expect(!cache.serves(key), "seed \(seed): byte \(position) of \(good.count) changed, still served")
            }
            folder.write(name, good)
            #expect(cache.lookup(key) == pixels)
        }
        #expect(cache.hits == stored.count)
    }

    /// Two entries of the same size swapped: each holds the other's key, so both miss.
    @Test func swappedEntriesAreMisses() throws {
        let folder = CacheFolder()
        let cache = try folder.open()
        let first = testKey(10), second = testKey(11)
        let firstName = Self.entryFile(of: first, in: folder, cache, pixels: testPixels(first, seed: 3))
        cache.store(second, testPixels(second, seed: 3))
        let secondName = try #require(folder.files().first { $0 != firstName })
        try #require(rename(folder.full(firstName), folder.full("swap")) == 0)
        try #require(rename(folder.full(secondName), folder.full(firstName)) == 0)
        try #require(rename(folder.full("swap"), folder.full(secondName)) == 0)
        #expect(!cache.serves(first))
        #expect(!cache.serves(second))
        #expect(cache.warnings.allSatisfy { $0.hasSuffix("holds another thumbnail") } && cache.warnings.count == 2, "\(cache.warnings)")
        // Foreign bytes of the right size: not an entry at all.
        folder.write(firstName, [UInt8](repeating: 0x41, count: 80 + 16 * 16 * 4))
        #expect(!cache.serves(first))
        #expect(cache.warnings.last?.hasSuffix("not a cache entry") == true)
        cache.store(first, testPixels(first, seed: 3))
        cache.store(second, testPixels(second, seed: 3))
        #expect(cache.lookup(first) == testPixels(first, seed: 3) && cache.lookup(second) == testPixels(second, seed: 3))
    }

    enum Replacement: String, CaseIterable, Sendable {
        case emptyFolder, fullFolder, fifo, symbolicLink
    }

    /// Something other than a regular file where an entry belongs: a miss,
    /// never followed or read (a FIFO would hang a blocking open); a store
    /// replaces it, except a folder with something inside, which stays.
    @Test(.timeLimit(.minutes(1)), arguments: Replacement.allCases)
    func entryReplacedBySpecialFile(_ replacement: Replacement) throws {
        let folder = CacheFolder()
        let cache = try folder.open()
        let key = testKey(20)
        let pixels = testPixels(key, seed: 4)
        let name = Self.entryFile(of: key, in: folder, cache, pixels: pixels)
        let path = folder.full(name)
        let outside = folder.base.file("outside.thumb")
        try #require(rename(path, outside) == 0)   // a good entry, now outside the cache folder
        switch replacement {
        case .emptyFolder: try #require(mkdir(path, 0o755) == 0)
        case .fullFolder:
            try #require(mkdir(path, 0o755) == 0)
            folder.write(name + "/keep", [1])
        case .fifo: try #require(mkfifo(path, 0o644) == 0)
        case .symbolicLink: try #require(symlink(outside, path) == 0)
        }
        #expect(!cache.serves(key))
        #expect(cache.warnings.count == 1, "\(cache.warnings)")
        cache.store(key, pixels)
        if replacement == .fullFolder {
            #expect(cache.failedStores == 1)
            #expect(!cache.serves(key))
            #expect(folder.files(where: { $0.hasPrefix(".tmp-") }).isEmpty)
        } else {
            #expect(cache.failedStores == 0, "\(cache.warnings)")
            #expect(cache.lookup(key) == pixels)
        }
    }
}

extension DamageTests {
    /// A fan-out subfolder replaced by a link to a folder outside (holding a
    /// good entry) or by a file: a miss, nothing outside is read or written,
    /// and a store puts a real folder back.
    @Test(arguments: [true, false])
    func subfolderReplaced(byLink: Bool) throws {
        let folder = CacheFolder()
        let cache = try folder.open()
        let key = testKey(30)
        let pixels = testPixels(key, seed: 6)
        let name = Self.entryFile(of: key, in: folder, cache, pixels: pixels)
        let subfolder = (name as NSString).deletingLastPathComponent
        let outside = folder.base.file("outside")
        try #require(rename(folder.full(subfolder), outside) == 0)
        if byLink {
            try #require(symlink(outside, folder.full(subfolder)) == 0)
        } else {
            folder.write(subfolder, [1, 2, 3])
        }
        let outsideBefore = try FileManager.default.contentsOfDirectory(atPath: outside)
        #expect(!cache.serves(key))
        #expect(cache.warnings.count == 1, "\(cache.warnings)")
        cache.store(key, pixels)
        #expect(cache.failedStores == 0, "\(cache.warnings)")
        #expect(cache.serves(key))
        var status = stat()
        #expect(lstat(folder.full(subfolder), &status) == 0 && status.st_mode & S_IFMT == S_IFDIR)
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside) == outsideBefore)
    }
}

@Suite struct EvictionTests {
    /// `count` entries of 16x16 (1104 bytes each), mtimes set to a seeded permutation of seconds; bound: 4 entries.
    static func agedSet(_ folder: CacheFolder, count: Int, seed: UInt64) throws -> (ThumbnailCache, [ThumbnailKey], [Int]) {
        var random = SplitMix64(seed: seed)
        let cache = try folder.open(maxBytes: 4 * 1104 + 100)
        let keys = (0..<count).map { testKey($0) }
        var ages = Array(0..<count)
        ages.shuffle(using: &random)
        for (key, age) in zip(keys, ages) {
            let before = Set(folder.files())
            cache.store(key, testPixels(key, seed: seed))
            let added = folder.files().filter { !before.contains($0) }
            precondition(added.count == 1)
            folder.setModified(added[0], seconds: 1_700_000_000 + age)
        }
        return (cache, keys, ages)
    }

    @Test func leastRecentlyUsedGoFirst() throws {
        let seed = SplitMix64.suiteSeed ^ 0x6C7275
        let folder = CacheFolder()
        let (cache, keys, ages) = try Self.agedSet(folder, count: 10, seed: seed)
        #expect(folder.entryBytes() == 10 * 1104)
        cache.finish()
        #expect(cache.evicted == 6)
        #expect(folder.entryBytes() == 4 * 1104 && folder.entryBytes() <= cache.maxBytes)
        let survivors = Set(keys.indices.filter { ages[$0] >= 6 })
        for index in keys.indices {
            #expect(cache.serves(keys[index]) == survivors.contains(index), "seed \(seed): entry aged \(ages[index])")
        }
    }

    @Test func aHitMakesAnEntryRecent() throws {
        let seed = SplitMix64.suiteSeed ^ 0x686974
        let folder = CacheFolder()
        let (cache, keys, ages) = try Self.agedSet(folder, count: 10, seed: seed)
        let oldest = try #require(ages.firstIndex(of: 0))
        #expect(cache.lookup(keys[oldest]) != nil)   // now the most recently used
        cache.finish()
        let survivors = Set(keys.indices.filter { ages[$0] >= 7 || $0 == oldest })
        for index in keys.indices {
            #expect(cache.serves(keys[index]) == survivors.contains(index), "seed \(seed): entry aged \(ages[index])")
        }
    }

    /// Run after run of new entries: after each finish the cache is within its
    /// bound, and before it, over by no more than that run's new entries.
    @Test func boundHoldsAcrossRuns() throws {
        let folder = CacheFolder()
        let bound = 10 * 1104
        for run in 0..<6 {
            let cache = try folder.open(maxBytes: bound)
            let before = folder.entryBytes()
            for index in 0..<7 {
                let key = testKey(run * 100 + index)
                #expect(!cache.serves(key))
                cache.store(key, testPixels(key, seed: 9))
            }
            #expect(folder.entryBytes() == before + 7 * 1104)
            cache.finish()
            #expect(folder.entryBytes() == min(before + 7 * 1104, bound), "run \(run): evicted too few or too many")
        }
    }

    /// Only entries count and go: other files stay, temporary files go once an hour old.
    @Test func finishLeavesOtherFilesAlone() throws {
        let folder = CacheFolder()
        let cache = try folder.open(maxBytes: 0)
        let key = testKey(0)
        cache.store(key, testPixels(key, seed: 1))
        let entry = try #require(folder.files().first)
        let subfolder = (entry as NSString).deletingLastPathComponent
        folder.write("notes.txt", Array("mine".utf8))
        folder.write(subfolder + "/README", [1, 2, 3])
        folder.write(subfolder + "/.tmp-1-2-3", [1])
        folder.write(subfolder + "/.tmp-4-5-6", [1])
        folder.setModified(subfolder + "/.tmp-1-2-3", seconds: Int(Date().timeIntervalSince1970) - 7200)
        cache.finish()
        #expect(folder.files().isEmpty)
        #expect(cache.evicted == 1)
        let left = folder.files(where: { _ in true }).filter { !$0.hasSuffix(subfolder) }
        #expect(left == ["CACHEDIR.TAG", subfolder + "/.tmp-4-5-6", subfolder + "/README", "notes.txt"].sorted())
    }
}
