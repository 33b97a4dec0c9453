import CodecCore
import CLibDeflate
import ColorManagement

/// A PNG's colour chunks (`cICP`, `iCCP`, `sRGB`, `cHRM`, `gAMA`), read by walking the chunks
/// from IHDR to the first IDAT: one 8-byte read per chunk header, payloads skipped except the
/// colour chunks' (whose sizes are checked first), at most `maxChunks` chunks. Nothing here
/// fails a picture: a damaged chunk, a wrong CRC or an oversized profile is a problem noted in
/// the result, and the rest is still read. The first of each chunk counts.
public enum PNGColorChunks {
    /// Chunks walked before giving up (a file of millions of tiny chunks costs no more).
    static let maxChunks = 4096

    /// Up to `buffer.count` bytes at `offset`; a read error counts as the end of the file.
    private static func read(_ file: InputFile, at offset: Int, into buffer: inout [UInt8]) -> Int {
        (try? buffer.withUnsafeMutableBufferPointer { (bytes) throws(ImageError) in try file.read(at: offset, into: bytes) }) ?? 0
    }

    /// The colour information of the PNG in `file` (which passed `PNGHeader`).
    public static func read(_ file: InputFile) -> EmbeddedColor {
        var color = EmbeddedColor()
        var offset = PNGHeader.byteCount
        var header = [UInt8](repeating: 0, count: 8)
        var seen = Set<String>()
        for _ in 0..<maxChunks {
            guard read(file, at: offset, into: &header) == 8 else { break }
            let length = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
            let type = String(decoding: header[4..<8], as: UTF8.self)
            guard length <= 0x7FFF_FFFF, type != "IDAT", type != "IEND" else { break }
            let isColour = ["cICP", "iCCP", "sRGB", "cHRM", "gAMA"].contains(type)
            if isColour, seen.insert(type).inserted {
                read(type, length: length, at: offset, of: file, into: &color)
            }
            offset += 12 + length
        }
        return color
    }

    private static func read(_ type: String, length: Int, at offset: Int, of file: InputFile, into color: inout EmbeddedColor) {
        let expected: Int? = switch type {
        case "cICP": 4
        case "sRGB": 1
        case "cHRM": 32
        case "gAMA": 4
        default: nil
        }
        if let expected, length != expected {
            color.problems.append(ColorProblem("PNG \(type) chunk of \(length) bytes: ignored"))
            return
        }
        // A compressed profile larger than the largest profile read is not inflated at all.
        guard length <= ICCProfile.maxByteCount + 4096 else {
            color.problems.append(ColorProblem("PNG iCCP chunk over 4 MiB: ignored"))
            return
        }
        // Type, data and CRC, so the CRC covers what it should.
        var chunk = [UInt8](repeating: 0, count: length + 8)
        guard read(file, at: offset + 4, into: &chunk) == chunk.count else {
            color.problems.append(ColorProblem("PNG \(type) chunk truncated: ignored"))
            return
        }
        let storedCRC = chunk[(length + 4)...].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let crc = chunk.withUnsafeBufferPointer { UInt32(libdeflate_crc32(0, $0.baseAddress!, length + 4)) }
        guard crc == storedCRC else {
            color.problems.append(ColorProblem("PNG \(type) chunk has a bad CRC: ignored"))
            return
        }
        let data = Array(chunk[4 ..< 4 + length])
        func u32(_ at: Int) -> UInt32 {
            UInt32(data[at]) << 24 | UInt32(data[at + 1]) << 16 | UInt32(data[at + 2]) << 8 | UInt32(data[at + 3])
        }
        switch type {
        case "cICP":
            color.cicp = CICP(primaries: data[0], transfer: data[1], matrix: data[2], fullRange: data[3] != 0)
            if data[2] != 0 {
                color.problems.append(ColorProblem("PNG cICP with matrix \(data[2]) (PNG holds RGB): ignored"))
                color.cicp = nil
            }
        case "sRGB":
            color.isSRGB = true
        case "cHRM":
            let values = (0..<8).map { u32(4 * $0) }
            color.chromaticities = Chromaticities(whiteX: values[0], whiteY: values[1], redX: values[2], redY: values[3],
                                                  greenX: values[4], greenY: values[5], blueX: values[6], blueY: values[7])
        case "gAMA":
            color.gamma = u32(0)
        default:
            switch inflatedProfile(data) {
            case .success(let bytes): color.adoptProfile(bytes)
            case .failure(let problem): color.problems.append(problem)
            }
        }
    }

    /// The profile inside an `iCCP` chunk's data: a name of 1-79 bytes, a NUL, method 0, then a
    /// zlib stream, inflated into at most `ICCProfile.maxByteCount` bytes (a stream that would
    /// inflate further stops there, so a gigabyte bomb costs 4 MiB of inflating).
    static func inflatedProfile(_ data: [UInt8]) -> Result<[UInt8], ColorProblem> {
        guard let nul = data.prefix(81).firstIndex(of: 0), nul >= 1, nul + 1 < data.count, data[nul + 1] == 0 else {
            return .failure(ColorProblem("PNG iCCP chunk malformed: ignored"))
        }
        guard let decompressor = libdeflate_alloc_decompressor() else {
            return .failure(ColorProblem("out of memory reading the PNG iCCP chunk"))
        }
        defer { libdeflate_free_decompressor(decompressor) }
        let stream = data[(nul + 2)...]
        // Most profiles are a few KB: a small buffer first, the largest allowed only if needed.
        for capacity in [1 << 16, ICCProfile.maxByteCount] {
            var output = [UInt8](repeating: 0, count: capacity)
            var produced = 0
            let result = stream.withUnsafeBytes { input in
                output.withUnsafeMutableBytes { out in
                    libdeflate_zlib_decompress(decompressor, input.baseAddress, input.count, out.baseAddress, out.count, &produced)
                }
            }
            switch result {
            case LIBDEFLATE_SUCCESS:
                output.removeLast(output.count - produced)
                return .success(output)
            case LIBDEFLATE_INSUFFICIENT_SPACE:
                continue
            default:
                return .failure(ColorProblem("PNG iCCP chunk has damaged compressed data: ignored"))
            }
        }
        return .failure(ColorProblem("PNG iCCP profile inflates past 4 MiB: ignored"))
    }
}
