#if canImport(Glibc)
import Glibc
#endif

/// What a cached thumbnail depends on: the input file's identity, the size it
/// is resampled to, and `variant`, the caller's version number of everything
/// that turns file bytes into thumbnail pixels (codec, resampler, painting
/// mode). Change any of them and the key changes, so a stale entry is a miss.
///
/// The identity is the file's device, inode, size, and modification and
/// change times in nanoseconds. Editing a file in place and restoring its
/// mtime (`touch -r`, `utimensat`) still moves its ctime, which no user call
/// can set back, so the edit is seen.
///
/// A file changed within its file system's timestamp resolution of now is not
/// keyed at all: a second edit within the same tick would leave its times
/// unchanged, so an entry made now could later be served for different
/// contents (git's "racy clean" problem). See `settleTime(changedNanoseconds:)`.
public struct ThumbnailKey: Sendable, Hashable {
    public let device: UInt64
    public let inode: UInt64
    public let size: Int64
    /// Modification time, nanoseconds since the epoch.
    public let modified: Int64
    /// Status change time, nanoseconds since the epoch.
    public let changed: Int64
    public let targetWidth: Int
    public let targetHeight: Int
    public let variant: UInt64

    /// The largest thumbnail kept, in pixel bytes (256 MiB): far above any tile.
    public static let maximumPixelBytes = 1 << 28

    /// How long a file must have been left alone before it is cached, in
    /// nanoseconds, judged from its ctime's sub-second part: ext4, XFS, Btrfs
    /// and tmpfs stamp times at kernel tick resolution (10 ms at worst), so
    /// 100 ms; a ctime of whole seconds means a coarse file system (FAT: 2 s,
    /// ext3: 1 s), so 2 s. After that, any further change moves the ctime.
    public static func settleTime(changedNanoseconds: Int64) -> Int64 {
        changedNanoseconds % 1_000_000_000 == 0 ? 2_000_000_000 : 100_000_000
    }

    /// Identity from `fstat` of an open input. Throws (the caller then decodes
    /// without the cache) when the descriptor is not a regular file, it changed
    /// less than `settleTime` ago, its times do not fit 64-bit nanoseconds, or
    /// the target size is empty or above `maximumPixelBytes`.
    public init(fileDescriptor: Int32, targetWidth: Int, targetHeight: Int, variant: UInt64) throws(ThumbnailCacheError) {
        var status = stat()
        guard fstat(fileDescriptor, &status) == 0 else {
            throw ThumbnailCacheError("cannot identify input: \(String(cString: strerror(errno)))")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw ThumbnailCacheError("cannot identify input: not a regular file")
        }
        guard let modified = Self.nanoseconds(status.st_mtim), let changed = Self.nanoseconds(status.st_ctim) else {
            throw ThumbnailCacheError("cannot identify input: file time out of range")
        }
        guard changed < realTimeNanoseconds() &- Self.settleTime(changedNanoseconds: changed) else {
            throw ThumbnailCacheError("changed just now: not cached until its timestamps settle")
        }
        self.init(device: UInt64(status.st_dev), inode: UInt64(status.st_ino), size: Int64(status.st_size),
                  modified: modified, changed: changed,
                  targetWidth: targetWidth, targetHeight: targetHeight, variant: variant)
        guard pixelBytes != nil else {
            throw ThumbnailCacheError("thumbnail size \(targetWidth)x\(targetHeight) cannot be cached")
        }
    }

    /// A key from explicit values (tests; callers that already hold a `stat`).
    public init(device: UInt64, inode: UInt64, size: Int64, modified: Int64, changed: Int64,
                targetWidth: Int, targetHeight: Int, variant: UInt64) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modified = modified
        self.changed = changed
        self.targetWidth = targetWidth
        self.targetHeight = targetHeight
        self.variant = variant
    }

    /// `targetWidth * targetHeight * 4`, or nil when that is empty or above `maximumPixelBytes`.
    public var pixelBytes: Int? {
        guard targetWidth >= 1, targetHeight >= 1,
              targetWidth <= Self.maximumPixelBytes / 4 / targetHeight else { return nil }
        return targetWidth * targetHeight * 4
    }

    /// A file time in nanoseconds since the epoch, or nil when that overflows.
    static func nanoseconds(_ time: timespec) -> Int64? {
        let (scaled, overflow) = Int64(time.tv_sec).multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return nil }
        let (total, carry) = scaled.addingReportingOverflow(Int64(time.tv_nsec))
        return carry ? nil : total
    }
}

/// The wall clock in nanoseconds since the epoch (the clock file times use).
func realTimeNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return ThumbnailKey.nanoseconds(now) ?? .max
}

/// Why the cache cannot be used (a bad folder) or a key cannot be made. The
/// reason never names the cache folder: the caller prints it with the path.
public struct ThumbnailCacheError: Error, Sendable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
