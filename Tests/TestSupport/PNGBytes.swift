// Building PNG files byte by byte, for tests that need exact (often broken) files.
import Foundation

// MARK: - PNG bytes by hand

public enum PNGBytes {
    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    public static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }

    /// length + type + data + CRC(type + data); `length` overrides the length
    /// field (a lying chunk), `crcXor` spoils the CRC.
    public static func chunk(_ type: String, _ data: [UInt8] = [], length: UInt32? = nil, crcXor: UInt32 = 0) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        return be32(length ?? UInt32(data.count)) + typeBytes + data + be32(Checksum.crc32(typeBytes + data) ^ crcXor)
    }

    public static func ihdrData(width: UInt32, height: UInt32, bitDepth: UInt8 = 8, colorType: UInt8 = 6,
                         interlace: UInt8 = 0) -> [UInt8] {
        be32(width) + be32(height) + [bitDepth, colorType, 0, 0, interlace]
    }

    public static func ihdr(width: UInt32, height: UInt32, bitDepth: UInt8 = 8, colorType: UInt8 = 6,
                     interlace: UInt8 = 0, crcXor: UInt32 = 0) -> [UInt8] {
        chunk("IHDR", ihdrData(width: width, height: height, bitDepth: bitDepth, colorType: colorType,
                               interlace: interlace), crcXor: crcXor)
    }

    /// A zlib stream of stored (uncompressed) deflate blocks.
    public static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let n = min(65535, data.count - offset)
            let final: UInt8 = offset + n == data.count ? 1 : 0
            out += [final, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += data[offset ..< offset + n]
            offset += n
        } while offset < data.count
        return out + be32(Checksum.adler32(data))
    }

    /// A zlib stream that inflates to `1 + 258 * matchGroups * 4` zero bytes from
    /// about `matchGroups` bytes (the best deflate can do, ~1032:1): one dynamic
    /// Huffman block where the length-258 code and distance 1 each get a 1-bit
    /// code "0", so four matches fill one zero byte. No Adler-32 is correct
    /// unless `adler` is given (nothing should ever get that far).
    public static func zlibZeroBomb(matchGroups: Int, adler: UInt32 = 0) -> [UInt8] {
        var bits = BitWriter()
        bits.write(0b1, count: 1)      // BFINAL
        bits.write(0b10, count: 2)     // BTYPE = dynamic Huffman
        bits.write(29, count: 5)       // HLIT: 286 literal/length codes
        bits.write(0, count: 5)        // HDIST: 1 distance code
        bits.write(14, count: 4)       // HCLEN: 18 code-length codes
        // Code-length code lengths in the RFC 1951 order 16,17,18,0,8,7,9,6,10,5,11,4,12,3,13,2,14,1:
        // symbol 18 gets 1 bit, symbols 1 and 2 get 2 bits.
        let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1]
        let clLengths: [Int: UInt32] = [18: 1, 1: 2, 2: 2]
        for symbol in order { bits.write(clLengths[symbol] ?? 0, count: 3) }
        // Canonical codes: 18 -> 0, 1 -> 10, 2 -> 11 (written most significant bit first).
        func cl(_ symbol: Int) { switch symbol { case 18: bits.huffman(0b0, 1); case 1: bits.huffman(0b10, 2); default: bits.huffman(0b11, 2) } }
        // Literal/length lengths: 0 -> 2, 1...255 -> 0, 256 -> 2, 257...284 -> 0, 285 -> 1; distance 0 -> 1.
        cl(2); cl(18); bits.write(138 - 11, count: 7); cl(18); bits.write(117 - 11, count: 7)
        cl(2); cl(18); bits.write(28 - 11, count: 7); cl(1); cl(1)
        // Codes: 285 -> 0, literal 0 -> 10, end of block -> 11; distance 0 -> 0.
        bits.huffman(0b10, 2)          // one literal zero
        for _ in 0..<(matchGroups * 4) { bits.huffman(0, 1); bits.huffman(0, 1) }  // length 258, distance 1
        bits.huffman(0b11, 2)          // end of block
        return [0x78, 0xDA] + bits.finished + be32(adler)
    }

    /// A complete, valid 8-bit PNG: RGBA (colour type 6) pixels, filter 0, stored deflate.
    public static func rgba8(width: Int, height: Int, pixels: [UInt8], beforeIDAT: [UInt8] = [], afterIDAT: [UInt8] = []) -> [UInt8] {
        signature + ihdr(width: UInt32(width), height: UInt32(height)) + beforeIDAT
            + chunk("IDAT", zlibStored(filtered(width: width, height: height, pixels: pixels))) + afterIDAT + chunk("IEND")
    }

    /// Rows each prefixed with filter byte 0.
    public static func filtered(width: Int, height: Int, pixels: [UInt8], bytesPerPixel: Int = 4) -> [UInt8] {
        var raw: [UInt8] = []
        raw.reserveCapacity(height * (width * bytesPerPixel + 1))
        for y in 0..<height {
            raw.append(0)
            raw += pixels[y * width * bytesPerPixel ..< (y + 1) * width * bytesPerPixel]
        }
        return raw
    }

    /// A solid-colour RGBA image.
    public static func solid(width: Int, height: Int, _ rgba: [UInt8]) -> [UInt8] {
        rgba8(width: width, height: height, pixels: Array([[UInt8]](repeating: rgba, count: width * height).joined()))
    }

    /// The chunks of a PNG (after the signature), as (offset of the length field, type, data range).
    public static func chunks(_ png: [UInt8]) -> [(offset: Int, type: String, data: Range<Int>)] {
        var result: [(Int, String, Range<Int>)] = []
        var at = 8
        while at + 12 <= png.count {
            let length = Int(UInt32(png[at]) << 24 | UInt32(png[at + 1]) << 16 | UInt32(png[at + 2]) << 8 | UInt32(png[at + 3]))
            let type = String(decoding: png[(at + 4)..<(at + 8)], as: UTF8.self)
            guard at + 12 + length <= png.count else { break }
            result.append((at, type, (at + 8)..<(at + 8 + length)))
            at += 12 + length
        }
        return result
    }
}

public struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private var current: UInt32 = 0
    private var used = 0

    /// Writes `count` bits of `value`, least significant first (deflate's header fields).
    public mutating func write(_ value: UInt32, count: Int) {
        for i in 0..<count { push(Int((value >> UInt32(i)) & 1)) }
    }

    /// Writes a Huffman code, most significant bit first.
    public mutating func huffman(_ code: UInt32, _ length: Int) {
        for i in stride(from: length - 1, through: 0, by: -1) { push(Int((code >> UInt32(i)) & 1)) }
    }

    private mutating func push(_ bit: Int) {
        current |= UInt32(bit) << UInt32(used)
        used += 1
        if used == 8 { bytes.append(UInt8(current)); current = 0; used = 0 }
    }

    var finished: [UInt8] { used > 0 ? bytes + [UInt8(current)] : bytes }
}

