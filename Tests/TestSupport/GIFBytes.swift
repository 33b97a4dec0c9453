// Building GIF files byte by byte, for tests that need exact (often broken) files.

/// GIF files byte by byte. Frames are coded with "plain" LZW: a clear code before every run
/// of `2^codeSize - 2` literals keeps the code width at codeSize + 1, so the data is exactly
/// predictable and easy to damage on purpose.
public enum GIFBytes {
    public static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF)] }

    /// Header and logical screen descriptor, with a global table of `palette` (RGB triples,
    /// padded with black to a power of two) when given.
    public static func screen(width: Int, height: Int, palette: [UInt8]? = nil, version: String = "89a") -> [UInt8] {
        var bytes = Array("GIF\(version)".utf8) + le16(width) + le16(height)
        guard let palette else { return bytes + [0, 0, 0] }
        let table = paddedTable(palette)
        bytes += [0x80 | UInt8(table.bits - 1), 0, 0] + table.bytes
        return bytes
    }

    public static func paddedTable(_ palette: [UInt8]) -> (bits: Int, bytes: [UInt8]) {
        var bits = 1
        while 3 << bits < palette.count { bits += 1 }
        return (bits, palette + [UInt8](repeating: 0, count: (3 << bits) - palette.count))
    }

    /// A graphic control extension with `transparent` as the transparent index.
    public static func graphicControl(transparent: Int?) -> [UInt8] {
        [0x21, 0xF9, 4, transparent == nil ? 0 : 1, 0, 0, UInt8(transparent ?? 0), 0]
    }

    /// An image descriptor and its data: `indices` row by row (in stored order).
    public static func frame(left: Int = 0, top: Int = 0, width: Int, height: Int, indices: [UInt8], codeSize: Int = 2,
                      interlaced: Bool = false, localPalette: [UInt8]? = nil) -> [UInt8] {
        var flags: UInt8 = interlaced ? 0x40 : 0
        var table: [UInt8] = []
        if let localPalette {
            let padded = paddedTable(localPalette)
            flags |= 0x80 | UInt8(padded.bits - 1)
            table = padded.bytes
        }
        return [0x2C] + le16(left) + le16(top) + le16(width) + le16(height) + [flags] + table
            + [UInt8(codeSize)] + subBlocks(plainLZW(indices, codeSize: codeSize))
    }

    public static func plainLZW(_ indices: [UInt8], codeSize: Int) -> [UInt8] {
        let clear = 1 << codeSize, width = codeSize + 1
        let run = max(1, (1 << codeSize) - 2)
        var codes: [Int] = []
        for (i, index) in indices.enumerated() {
            if i % run == 0 { codes.append(clear) }
            codes.append(Int(index))
        }
        codes.append(clear + 1)
        var out: [UInt8] = [], bits = 0, count = 0
        for code in codes {
            bits |= code << count
            count += width
            while count >= 8 { out.append(UInt8(bits & 0xFF)); bits >>= 8; count -= 8 }
        }
        if count > 0 { out.append(UInt8(bits & 0xFF)) }
        return out
    }

    public static func subBlocks(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var offset = 0
        while offset < data.count {
            let length = min(255, data.count - offset)
            out.append(UInt8(length))
            out += data[offset ..< offset + length]
            offset += length
        }
        return out + [0]
    }

    public static let trailer: [UInt8] = [0x3B]

    /// A small valid GIF: 4×3, four colours, index = (x + y) % 4.
    public static let small: [UInt8] = {
        let indices: [UInt8] = (0..<12).map { (index: Int) in UInt8((index % 4 + index / 4) % 4) }
        let head: [UInt8] = screen(width: 4, height: 3, palette: [255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255])
        return head + frame(width: 4, height: 3, indices: indices) + trailer
    }()
}
