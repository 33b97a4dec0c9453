import CLibDeflate

/// The bytes of one cache entry, and its file name.
///
/// ```
/// offset size  field (little-endian)
///  0     8     magic "MSNYTHMB"
///  8     4     format version (1)
/// 12     4     width            } the key's target size
/// 16     4     height           }
/// 20     8     pixel byte count (width * height * 4)
/// 28     8     device           }
/// 36     8     inode            }
/// 44     8     file size        } the rest of the key
/// 52     8     mtime, ns        }
/// 60     8     ctime, ns        }
/// 68     8     variant          }
/// 76     n     pixels: premultiplied RGBA8, rows top to bottom
/// 76+n   4     CRC-32 (zlib's polynomial) of bytes 0 ..< 76+n
/// ```
///
/// Why CRC-32: libdeflate's is already linked (the sheet's PNG chunks use it), runs at
/// tens of GB/s with carry-less multiplication (zlib's `crc32_z` was 7 % of a warm run's CPU),
/// gives zlib's values (entries stay readable), and is
/// guaranteed to catch every error burst up to 32 bits (so any one damaged
/// byte, as the tests flip) and misses random damage with odds 2^-32. It is
/// not a defence against someone who can write the cache folder on purpose;
/// such a person could edit the output itself. Truncation is caught by the
/// size check before the CRC, and a foreign or swapped entry by the key.
enum EntryFormat {
    static let magic: [UInt8] = Array("MSNYTHMB".utf8)
    static let version: UInt32 = 1
    static let headerSize = 76
    static let trailerSize = 4

    /// The header for `key`, whose `pixelBytes` must be non-nil.
    static func header(for key: ThumbnailKey, pixelBytes: Int) -> [UInt8] {
        var bytes = magic
        bytes.reserveCapacity(headerSize)
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        append(version)
        append(UInt32(key.targetWidth))
        append(UInt32(key.targetHeight))
        append(UInt64(pixelBytes))
        append(key.device)
        append(key.inode)
        append(key.size)
        append(key.modified)
        append(key.changed)
        append(key.variant)
        return bytes
    }

    /// The whole file's size for a thumbnail of `pixelBytes`.
    static func fileSize(pixelBytes: Int) -> Int { headerSize + pixelBytes + trailerSize }

    /// Why a stored header is not the expected one (nil when it is).
    static func mismatch(stored: [UInt8], expected: [UInt8]) -> String? {
        if !stored.starts(with: magic) { return "not a cache entry" }
        if stored[8..<12] != expected[8..<12] { return "another format version" }
        if stored != expected { return "holds another thumbnail" }
        return nil
    }

    /// The 4-byte trailer: CRC-32 of the header, then the pixels.
    static func trailer(header: [UInt8], pixels: UnsafeRawBufferPointer) -> [UInt8] {
        var crc = header.withUnsafeBufferPointer { libdeflate_crc32(0, $0.baseAddress, $0.count) }
        if let base = pixels.baseAddress {
            crc = libdeflate_crc32(crc, base, pixels.count)
        }
        return withUnsafeBytes(of: UInt32(crc).littleEndian) { Array($0) }
    }

    /// The entry's path inside the cache folder: "ab/ab…(16 hex).thumb". The
    /// 64-bit hash is FNV-1a over the header, finished with SplitMix64's mixer
    /// so the leading byte (the subfolder) is evenly spread. Swift's `Hasher`
    /// cannot be used: it is seeded differently in every process.
    static func name(header: [UInt8]) -> (folder: String, file: String) {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in header { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        hash = (hash ^ (hash >> 30)) &* 0xBF58_476D_1CE4_E5B9
        hash = (hash ^ (hash >> 27)) &* 0x94D0_49BB_1331_11EB
        hash ^= hash >> 31
        let hex = String(hash, radix: 16)
        let digits = String(repeating: "0", count: 16 - hex.count) + hex
        return (String(digits.prefix(2)), digits + entrySuffix)
    }

    static let entrySuffix = ".thumb"
    static let temporaryPrefix = ".tmp-"

    /// Whether `name` (inside a subfolder) is an entry this cache wrote: a thumbnail or a page
    /// entry (`PageEntryFormat`), which count toward the bound and are evicted alike.
    static func isEntryName(_ name: [UInt8], inFolder folder: [UInt8]) -> Bool {
        [entrySuffix, PageEntryFormat.suffix].contains { suffixText in
            let suffix = Array(suffixText.utf8)
            return name.count == 16 + suffix.count && name.starts(with: folder) && name.suffix(suffix.count).elementsEqual(suffix)
                && name.prefix(16).allSatisfy(isHexDigit)
        }
    }

    /// Whether `name` is a subfolder of the fan-out: two lowercase hex digits.
    static func isFolderName(_ name: [UInt8]) -> Bool { name.count == 2 && name.allSatisfy(isHexDigit) }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }
}
