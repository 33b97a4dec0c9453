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
/// A file changed in the last `settleTime` is not keyed at all: a second edit
/// within the same timestamp tick (up to 2 s on FAT; a jiffy on ext4) would
/// leave its times unchanged, so an entry made now could later be served for
/// different contents (git's "racy clean" problem). After 2 s any further
/// change gets a later ctime on every file system Linux mounts.
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

    /// How long a file must have been left alone before it is cached: 2 s, in nanoseconds.
    public static let settleTime: Int64 = 2_000_000_000

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
        guard changed < realTimeNanoseconds() &- Self.settleTime else {
            throw ThumbnailCacheError("changed less than 2 s ago: not cached until it settles")
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
