import Foundation
import Testing
import TestSupport
import TileCache

/// Page entries (`PageEntryFormat`): kept row groups round-trip, damage is a miss with a
/// warning, and they count toward the bound and are evicted like thumbnails.
@Suite struct PageEntryTests {
    /// A page key or recipe: 32 seeded bytes.
    static func digest(_ seed: UInt64) -> [UInt8] {
        var random = SplitMix64(seed: seed)
        return random.bytes(PageEntryFormat.digestSize)
    }

    /// `count` groups of seeded bytes (one without a recipe, one empty), stored under `key`;
    /// returns what each group holds.
    static func store(_ cache: ThumbnailCache, key: [UInt8], count: Int, seed: UInt64)
        -> [(recipe: [UInt8]?, bytes: [UInt8], filtered: Int, adler: UInt32)] {
        var random = SplitMix64(seed: seed)
        let groups: [(recipe: [UInt8]?, bytes: [UInt8], filtered: Int, adler: UInt32)] = (0..<count).map { index in
            let length = index == 1 ? 0 : 100 + Int(random.next() % 900)
            return (index == 2 ? nil : digest(seed &+ UInt64(index)), random.bytes(length), 13 * 3721, UInt32(truncatingIfNeeded: random.next()))
        }
        let buffers = groups.map { group -> UnsafeMutableRawBufferPointer in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: group.bytes.count, alignment: 1)
            group.bytes.withUnsafeBytes { buffer.copyMemory(from: $0) }
            return buffer
        }
        defer { for buffer in buffers { buffer.deallocate() } }
        cache.storePage(key, groups: zip(groups, buffers).map { group, buffer in
            PageGroup(recipe: group.recipe, bytes: UnsafeRawBufferPointer(buffer), filteredCount: group.filtered, adler: group.adler)
        })
        return groups
    }

    @Test func groupsComeBackAsStored() throws {
        let folder = CacheFolder()
        let cache = try folder.open()
        let key = Self.digest(1)
        let groups = Self.store(cache, key: key, count: 7, seed: 11)
        let entry = try #require(cache.lookupPage(key))
        #expect(entry.groups.count == groups.count)
        for (read, written) in zip(entry.groups, groups) {
            #expect(read.recipe == written.recipe)
            #expect(Array(read.bytes) == written.bytes)
            #expect(read.filteredCount == written.filtered && read.adler == written.adler)
        }
        #expect(cache.lookupPage(Self.digest(2)) == nil, "another key is a miss")
        #expect(cache.warnings.isEmpty, "\(cache.warnings)")
        #expect(folder.files(where: { $0.hasSuffix(".page") }).count == 1)
    }

    /// Every byte flipped in turn, and the entry cut at every length: a miss with a warning,
    /// never a group; a store repairs it.
    @Test func damageIsAMissWithAWarning() throws {
        let folder = CacheFolder()
        let cache = try folder.open()
        let key = Self.digest(3)
        _ = Self.store(cache, key: key, count: 3, seed: 12)
        let name = try #require(folder.files(where: { $0.hasSuffix(".page") }).first)
        let good = folder.read(name)
        var random = SplitMix64(seed: SplitMix64.suiteSeed ^ 0x7061_6765)
        for offset in (0..<good.count).shuffled(using: &random).prefix(300) {
            var damaged = good
            damaged[offset] ^= 1 << (random.next() % 8)
            folder.write(name, damaged)
            #expect(cache.lookupPage(key) == nil, "byte \(offset) flipped")
        }
        for length in [0, 1, 47, 48, 100, good.count - 5, good.count - 1] {
            folder.write(name, Array(good.prefix(length)))
            #expect(cache.lookupPage(key) == nil, "cut at \(length)")
        }
        #expect(cache.warnings.contains { $0.hasSuffix("checksum mismatch") })
        #expect(cache.warnings.contains { $0.contains("truncated or foreign") })
        _ = Self.store(cache, key: key, count: 3, seed: 12)
        #expect(folder.read(name) == good)
        #expect(cache.lookupPage(key) != nil)
    }

    /// Page entries count toward the bound and go oldest first, among thumbnails.
    @Test func pageEntriesAreEvictedLikeThumbnails() throws {
        let folder = CacheFolder()
        let cache = try folder.open(maxBytes: 0)
        let thumbnail = testKey(1)
        cache.store(thumbnail, testPixels(thumbnail, seed: 5))
        let keys = (0..<4).map { Self.digest(100 + UInt64($0)) }
        for (age, key) in keys.enumerated() {
            _ = Self.store(cache, key: key, count: 4, seed: UInt64(age))
        }
        let pages = folder.files(where: { $0.hasSuffix(".page") })
        #expect(pages.count == 4)
        let all = folder.files(where: { $0.hasSuffix(".page") || $0.hasSuffix(".thumb") })
        var sizes: [String: Int] = [:]
        for name in all { sizes[name] = folder.read(name).count }
        for (age, name) in all.enumerated() { folder.setModified(name, seconds: 1_700_000_000 + age) }
        // Bound: all but the two oldest.
        let bound = all.dropFirst(2).reduce(0) { $0 + sizes[$1]! }
        let bounded = try folder.open(maxBytes: bound)
        bounded.finish()
        #expect(bounded.evicted == 2)
        let left = folder.files(where: { $0.hasSuffix(".page") || $0.hasSuffix(".thumb") })
        #expect(left == Array(all.dropFirst(2)))
    }
}
