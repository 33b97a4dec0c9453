// The on-disk format is a contract between runs (and versions): one entry's
// exact bytes and file name, as computed independently by
// Golden/make_entry_golden.py (Python struct + zlib.crc32). If this fails,
// the format changed: bump EntryFormat.version rather than update the golden
// silently.

import Testing
import TileCache
#if canImport(Glibc)
import Glibc
#endif

@Suite struct EntryFormatGoldenTests {
    // Output of Golden/make_entry_golden.py.
    static let name = "de/de1970d5d2fdca47.thumb"
    static let entryHex = "4d534e5954484d4201000000030000000200000018000000000000002a00000000000000e803000000000000881300000000000015cdc00e42fae516b150ba8a59fae5160300000000000000000102030405060708090a0b0c0d0e0f101112131415161756b9155a"

    @Test func storedEntryMatchesTheGolden() throws {
        let folder = CacheFolder()
        let cache = try folder.open()
        let key = testKey(0, width: 3, height: 2)
        let pixels = (0..<24).map { UInt8($0) }
        cache.store(key, pixels)
        #expect(folder.files() == [Self.name])
        let hex = folder.read(Self.name).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        #expect(hex == Self.entryHex)
        #expect(cache.lookup(key) == pixels)
    }

    /// An entry written by the reference script (not by the cache) is served.
    @Test func goldenEntryIsServed() throws {
        let folder = CacheFolder()
        let cache = try folder.open()
        var bytes: [UInt8] = []
        var digits = Self.entryHex.makeIterator()
        while let high = digits.next(), let low = digits.next() { bytes.append(UInt8(String([high, low]), radix: 16)!) }
        try #require(mkdir(folder.full("de"), 0o755) == 0)
        folder.write(Self.name, bytes)
        #expect(cache.lookup(testKey(0, width: 3, height: 2)) == (0..<24).map { UInt8($0) })
    }
}
