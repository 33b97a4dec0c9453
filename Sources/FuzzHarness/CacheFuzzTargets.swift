#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import TileCache

extension FuzzTarget {
    /// The thumbnail cache's entry reader: the bytes are planted as the entry for the key their
    /// own header names (so a seed entry is a hit, and mutations reach the size, header and
    /// checksum checks), in a fresh cache folder on tmpfs, and looked up.
    static let cacheEntry = FuzzTarget(name: "cache-entry") { bytes in
        let key = CacheFuzzInput.key(claimedBy: bytes)
        guard let (folder, file) = ThumbnailCache.entryPath(for: key) else { return }
        CacheFuzzInput.withPlanted(bytes, folder: folder, file: file) { cache in
            if let pixels = cache.lookup(key) {
                precondition(pixels.count == key.pixelBytes!, "a hit of \(pixels.count) bytes for a key of \(key.pixelBytes!)")
            }
        }
    }

    /// The page entry reader (`PageEntryFormat`): the bytes are planted as the page entry for the
    /// key they name (bytes 16 ..< 48), looked up, and every byte of every group served is read:
    /// the groups lie inside the entry and cover it after the table.
    static let cachePageEntry = FuzzTarget(name: "cache-page-entry") { bytes in
        let key = (16..<48).map { $0 < bytes.count ? bytes[$0] : 0 }
        let (folder, file) = ThumbnailCache.pageEntryPath(for: key)
        CacheFuzzInput.withPlanted(bytes, folder: folder, file: file) { cache in
            guard let entry = cache.lookupPage(key) else { return }
            var total = 0
            for group in entry.groups {
                total += group.bytes.count
                _ = group.bytes.reduce(0, &+)
            }
            precondition(total == bytes.count - 52 - 52 * entry.groups.count, "groups of \(total) bytes in \(bytes.count)")
        }
    }
}

enum CacheFuzzInput {
    /// The key an entry's header names (`EntryFormat`'s layout, little-endian); zeros where the
    /// input is too short.
    static func key(claimedBy bytes: UnsafeRawBufferPointer) -> ThumbnailKey {
        func field<T: FixedWidthInteger>(_ offset: Int, _: T.Type) -> T {
            guard offset + MemoryLayout<T>.size <= bytes.count else { return 0 }
            return T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
        }
        return ThumbnailKey(device: field(28, UInt64.self), inode: field(36, UInt64.self), size: field(44, Int64.self),
                            modified: field(52, Int64.self), changed: field(60, Int64.self),
                            targetWidth: Int(field(12, UInt32.self)), targetHeight: Int(field(16, UInt32.self)),
                            variant: field(68, UInt64.self))
    }

    /// Runs `body` on a fresh cache folder (on tmpfs) where `bytes` are the file `folder/file`,
    /// then removes it all.
    static func withPlanted(_ bytes: UnsafeRawBufferPointer, folder: String, file: String, _ body: (ThumbnailCache) -> Void) {
        var template = Array("\(FuzzScratch.folder)/masonry-fuzz-cache-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { fatalError("mkdtemp: \(String(cString: strerror(errno)))") }
        let root = String(cString: made)
        defer { remove(root, folder, file) }
        guard let cache = try? ThumbnailCache(directory: Array(root.utf8), maxBytes: 1 << 30) else {
            fatalError("cannot open a cache in \(root)")
        }
        mkdir("\(root)/\(folder)", 0o755)
        let descriptor = open("\(root)/\(folder)/\(file)", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { fatalError("cannot plant a cache entry: \(String(cString: strerror(errno)))") }
        let written = write(descriptor, bytes.baseAddress, bytes.count)
        close(descriptor)
        guard written == bytes.count else { fatalError("short write of a cache entry") }
        body(cache)
    }

    /// Removes what one run made: the entry, its subfolder, the cache's tag and the cache folder.
    static func remove(_ root: String, _ folder: String, _ file: String) {
        unlink("\(root)/\(folder)/\(file)")
        rmdir("\(root)/\(folder)")
        unlink("\(root)/CACHEDIR.TAG")
        guard rmdir(root) == 0 else { fatalError("the cache folder \(root) holds more than the target made") }
    }
}
