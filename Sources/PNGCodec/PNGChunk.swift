import CLibDeflate

/// PNG's container (PNG spec §5): the signature and chunks of length, type, data and the
/// CRC-32 of type and data.
public enum PNGChunk {
    /// The eight bytes every PNG file starts with.
    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The whole chunk of `type` (four ASCII letters, such as "IDAT") holding `data`.
    public static func bytes(type: String, data: [UInt8]) -> [UInt8] {
        let typeAndData = Array(type.utf8) + data
        precondition(typeAndData.count == 4 + data.count, "a chunk type is four ASCII letters")
        return bigEndian(UInt32(data.count)) + typeAndData + bigEndian(crc(typeAndData))
    }

    /// The CRC-32 a chunk stores: of its type and data bytes.
    public static func crc(_ typeAndData: [UInt8]) -> UInt32 {
        typeAndData.withUnsafeBufferPointer { UInt32(libdeflate_crc32(0, $0.baseAddress, $0.count)) }
    }

    /// The IHDR chunk of a non-interlaced image (compression and filter method 0).
    public static func header(width: Int, height: Int, bitDepth: UInt8, colorType: UInt8) -> [UInt8] {
        bytes(type: "IHDR", data: bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [bitDepth, colorType, 0, 0, 0])
    }

    /// `value` as four big-endian bytes, as PNG stores its integers.
    public static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
