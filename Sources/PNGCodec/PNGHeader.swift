import CodecCore
import CLibDeflate
#if canImport(Glibc)
import Glibc
#endif

/// The colour type byte of a PNG's IHDR chunk.
public enum PNGColorType: UInt8, Sendable, Hashable, CaseIterable {
    case grey = 0, rgb = 2, palette = 3, greyAlpha = 4, rgba = 6
}

/// A PNG's size and format, read from the signature and IHDR chunk alone
/// (the first 33 bytes), with the IHDR CRC checked. No decoder is started,
/// so reading thousands of headers costs microseconds each.
public struct PNGHeader: Sendable, Hashable {
    public let width: Int
    public let height: Int
    public let bitDepth: Int
    public let colorType: PNGColorType
    public let isInterlaced: Bool

    /// The number of bytes a header occupies at the start of every PNG.
    public static let byteCount = 33

    @usableFromInline static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// The signature's length: what format detection reads for a PNG.
    public static let signatureLength = 8

    /// True when `prefix` is a PNG's: the 8-byte signature; or its first half (`\x89PNG`) with
    /// the second changed by a text-mode transfer, which `init(parsing:)` then names; or, for a
    /// file shorter than the signature, the start of it (a truncated PNG). A file that merely
    /// starts with 0x89 is not a PNG.
    /// Inlinable, as every file of a folder's header pass asks it.
    @inlinable
    public static func hasSignature(_ prefix: some Collection<UInt8>) -> Bool {
        let bytes = prefix.prefix(signatureLength)
        guard bytes.count == signatureLength else { return !bytes.isEmpty && signature.starts(with: bytes) }
        return bytes.prefix(4).elementsEqual(signature[0..<4])
    }

    /// Parses the first 33 bytes of a file (more bytes are ignored).
    public init(parsing bytes: [UInt8]) throws(ImageError) {
        guard bytes.count >= 8, Array(bytes[0..<8]) == Self.signature else {
            if bytes.isEmpty { throw ImageError(.emptyFile) }
            if bytes.count < 8, Self.signature.starts(with: bytes) {
                throw ImageError(.truncatedFile)
            }
            // libpng's rule: a good first half means newline conversion damaged the rest.
            let damagedByTransfer = bytes.count >= 8 && Self.signature[0..<4].elementsEqual(bytes[0..<4])
            throw ImageError(damagedByTransfer ? .textModeTransfer : .notPNG)
        }
        guard bytes.count >= Self.byteCount else { throw ImageError(.truncatedFile) }
        func u32(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
        }
        guard u32(8) == 13, Array(bytes[12..<16]) == Array("IHDR".utf8) else {
            throw ImageError(.firstChunkNotIHDR)
        }
        guard bytes.withUnsafeBufferPointer({ libdeflate_crc32(0, $0.baseAddress! + 12, 17) }) == u32(29) else {
            throw ImageError(.badCRC(chunk: "IHDR"))
        }
        let width = u32(16), height = u32(20)
        guard width > 0, height > 0 else {
            throw ImageError(.zeroSize(width: Int(width), height: Int(height)))
        }
        guard width <= 0x7FFF_FFFF, height <= 0x7FFF_FFFF else {
            throw ImageError(.sizeOverPNGMaximum(width: Int(width), height: Int(height)))
        }
        guard let colorType = PNGColorType(rawValue: bytes[25]) else {
            throw ImageError(.invalidColourType(Int(bytes[25])))
        }
        let bitDepth = Int(bytes[24])
        let allowedDepths: [Int] = switch colorType {
        case .grey: [1, 2, 4, 8, 16]
        case .palette: [1, 2, 4, 8]
        case .rgb, .greyAlpha, .rgba: [8, 16]
        }
        guard allowedDepths.contains(bitDepth) else {
            throw ImageError(.invalidBitDepth(bitDepth, colourType: Int(colorType.rawValue)))
        }
        guard bytes[26] == 0, bytes[27] == 0, bytes[28] <= 1 else {
            throw ImageError(.invalidMethods)
        }
        self.width = Int(width)
        self.height = Int(height)
        self.bitDepth = bitDepth
        self.colorType = colorType
        self.isInterlaced = bytes[28] == 1
    }

    /// Reads and parses the first 33 bytes of the file at `path`.
    /// Only regular files are read (see `InputFile`).
    public init(contentsOfFile path: String) throws(ImageError) {
        try self.init(file: InputFile(path: path))
    }

    /// Reads and parses the first 33 bytes of an open file (from its start, whatever was read before).
    public init(file: InputFile) throws(ImageError) {
        var bytes = [UInt8](repeating: 0, count: Self.byteCount)
        let count = try file.readPrefix(into: &bytes)
        try self.init(parsing: Array(bytes[0..<count]))
    }

    /// Width × height, as the pixel limit counts it.
    public var pixelCount: Int { width * height }
}
