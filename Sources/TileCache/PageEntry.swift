import CLibDeflate
#if canImport(Glibc)
import Glibc
#endif

/// A run of a sheet page's compressed row groups kept in the cache (a page entry), so that a
/// warm run copies the groups whose recipe has not changed instead of painting and
/// compressing their rows again.
///
/// ```
/// offset   size    field (little-endian)
///  0       8       magic "MSNYPAGE"
///  8       4       format version (1)
/// 12       4       group count n
/// 16       32      the entry's key (its name is made from it)
/// 48       n × 52  per group: recipe (32 bytes; all zero for a group not kept),
///                  compressed byte count (8), filtered byte count (8), Adler-32 of the filtered bytes (4)
/// 48+52n   ...     the groups' compressed bytes, in order
/// end-4    4       CRC-32 (zlib's polynomial) of every byte before it
/// ```
///
/// The key says where on which page the groups sit (the caller makes it from the page's
/// settings, the rows and the input paths there, not their contents), so a warm run finds the
/// entry its cold run wrote and keeps each group whose recipe (a digest of everything that
/// decides its bytes) is still the same. The CRC catches damage as in `EntryFormat`; a group is
/// served only when its recipe matches, so a foreign or stale entry is a miss, never wrong bytes.
public enum PageEntryFormat {
    static let magic: [UInt8] = Array("MSNYPAGE".utf8)
    static let version: UInt32 = 1
    static let headerSize = 48
    static let groupRecordSize = 52
    /// Bytes of a key and of a recipe (SHA-256 digests).
    public static let digestSize = 32
    static let suffix = ".page"

    /// The entry's path inside the cache folder: "ab/ab…(16 hex).page", from the key's first 8 bytes
    /// (a digest, so evenly spread already).
    static func name(key: [UInt8]) -> (folder: String, file: String) {
        let digits = Array("0123456789abcdef".utf8)
        let hex = String(decoding: key.prefix(8).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
        return (String(hex.prefix(2)), hex + suffix)
    }

    /// The header and group table for `key` and `groups`.
    static func header(key: [UInt8], groups: [PageGroup]) -> [UInt8] {
        var bytes = magic
        bytes.reserveCapacity(headerSize + groups.count * groupRecordSize)
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        append(version)
        append(UInt32(groups.count))
        bytes += key
        for group in groups {
            bytes += group.recipe ?? [UInt8](repeating: 0, count: digestSize)
            append(UInt64(group.bytes.count))
            append(UInt64(group.filteredCount))
            append(group.adler)
        }
        return bytes
    }
}

/// One compressed row group, to store in a page entry or as read from one.
public struct PageGroup: @unchecked Sendable {
    // @unchecked Sendable: `bytes` points into memory its owner (the caller storing it, or a
    // `PageEntry`) keeps alive and never writes.
    /// The digest of everything that decides the group's bytes; nil for a group not kept.
    public let recipe: [UInt8]?
    /// The group's deflate segment.
    public let bytes: UnsafeRawBufferPointer
    /// The filtered bytes it compresses, and their Adler-32.
    public let filteredCount: Int
    public let adler: UInt32

    public init(recipe: [UInt8]?, bytes: UnsafeRawBufferPointer, filteredCount: Int, adler: UInt32) {
        self.recipe = recipe
        self.bytes = bytes
        self.filteredCount = filteredCount
        self.adler = adler
    }
}

/// A page entry read from the cache: the file mapped read-only and checked whole (size, key,
/// table, CRC) before any group is served; unmapped when released. Entries are replaced by
/// rename, never rewritten in place, so the mapping's bytes stay those checked.
public final class PageEntry: @unchecked Sendable {
    // @unchecked Sendable: the mapping is never written, and unmapped only in deinit.
    private let base: UnsafeMutableRawPointer
    private let size: Int
    /// The groups in order; their bytes point into the mapping.
    public let groups: [PageGroup]

    /// Maps `size` bytes of `fd` and checks them against `key`; throws why they are not an entry for it.
    init(fd: Int32, size: Int, key: [UInt8]) throws(ThumbnailCacheError) {
        let fixed = PageEntryFormat.headerSize + 4
        guard size >= fixed else { throw ThumbnailCacheError("wrong size \(size) (truncated or foreign)") }
        // MAP_POPULATE: every page is read (the CRC below) and then copied, so map them all at once.
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0), mapped != MAP_FAILED else {
            throw ThumbnailCacheError("cannot map: \(String(cString: strerror(errno)))")
        }
        base = mapped
        self.size = size
        let bytes = UnsafeRawBufferPointer(start: mapped, count: size)
        func load<T: FixedWidthInteger>(_ offset: Int, as type: T.Type) -> T {
            T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
        }
        guard bytes.prefix(8).elementsEqual(PageEntryFormat.magic) else {
            munmap(mapped, size)
            throw ThumbnailCacheError("not a cache entry")
        }
        guard load(8, as: UInt32.self) == PageEntryFormat.version else {
            munmap(mapped, size)
            throw ThumbnailCacheError("another format version")
        }
        guard bytes[16..<48].elementsEqual(key) else {
            munmap(mapped, size)
            throw ThumbnailCacheError("holds another page")
        }
        let count = Int(load(12, as: UInt32.self))
        let tableEnd = PageEntryFormat.headerSize + count * PageEntryFormat.groupRecordSize
        var groups: [PageGroup] = []
        var offset = tableEnd
        if tableEnd <= size - 4 {
            groups.reserveCapacity(count)
            for index in 0..<count {
                let record = PageEntryFormat.headerSize + index * PageEntryFormat.groupRecordSize
                let recipe = Array(bytes[record..<(record + 32)])
                let byteCount = load(record + 32, as: UInt64.self)
                guard byteCount <= UInt64(size - 4 - offset) else { break }
                groups.append(PageGroup(recipe: recipe.allSatisfy { $0 == 0 } ? nil : recipe,
                                        bytes: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + Int(byteCount))]),
                                        filteredCount: Int(truncatingIfNeeded: load(record + 40, as: UInt64.self)),
                                        adler: load(record + 48, as: UInt32.self)))
                offset += Int(byteCount)
            }
        }
        guard groups.count == count, offset == size - 4 else {
            munmap(mapped, size)
            throw ThumbnailCacheError("wrong size \(size) (truncated or foreign)")
        }
        let crc = UInt32(truncatingIfNeeded: libdeflate_crc32(0, mapped, size - 4))
        guard crc == load(size - 4, as: UInt32.self) else {
            munmap(mapped, size)
            throw ThumbnailCacheError("checksum mismatch")
        }
        self.groups = groups
    }

    deinit { munmap(base, size) }
}
