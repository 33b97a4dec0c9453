/// The deflater's own alphabet, one number per symbol so a block can be counted
/// and written with one table: 0-255 literal bytes, 256 end of block, then one
/// symbol per (run length 3-258, distance 1-4) pair.
enum DeflateSymbol {
    static let endOfBlock = 256
    static let minRun = 3
    static let maxRun = 258
    static let maxDistance = 4
    static let count = 257 + maxDistance * 256

    @inline(__always)
    static func run(length: Int, distance: Int) -> Int { 257 + (distance - 1) << 8 + (length - minRun) }
}

/// Everything decided about one dynamic Huffman block (RFC 1951 §3.2.7) before
/// it is written: the literal/length and distance codes, their code-length
/// encoding, the exact size in bits, and a table from `DeflateSymbol` to the
/// finished bits (for a run: length code, its extra bits and distance code in one).
struct DynamicBlockPlan {
    /// A table entry holds the code bits below `lengthShift` and their count above it.
    static let lengthShift: UInt64 = 56
    static let codeMask: UInt64 = (1 << lengthShift) - 1

    /// Indexed by `DeflateSymbol`; zero for symbols the block does not use.
    let symbolTable: [UInt64]
    /// Size of the whole block (header and end-of-block code included).
    let bitCount: Int
    /// Bits of the longest `symbolTable` entry.
    let longestEntry: Int

    private let literalLengthCount: Int
    private let distanceCount: Int
    private let codeLengthCount: Int
    private let codeLengthCode: HuffmanCode
    private let codeLengthSymbols: [CodeLengthSymbol]

    /// Deflate's length codes 257-285: first length of each and its extra bits.
    private static let lengthBases = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
                                      35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    private static let lengthExtraBits = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
                                          3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    /// For each run length minus 3, the index of its length code (0 = code 257).
    private static let lengthCodeIndex: [Int] = (DeflateSymbol.minRun...DeflateSymbol.maxRun).map { length in
        lengthBases.lastIndex { $0 <= length }!
    }
    /// The order code-length code lengths are sent in.
    private static let codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    /// One symbol of the code-length alphabet (0-15 a length, 16 repeat the
    /// previous 3-6 times, 17 and 18 zeros 3-10 and 11-138 times) with its extra bits.
    private struct CodeLengthSymbol {
        var symbol: Int
        var extra = 0
        var extraBitCount: Int {
            switch symbol {
            case 16: 2
            case 17: 3
            case 18: 7
            default: 0
            }
        }
    }

    /// Plans a block from how often each `DeflateSymbol` occurs in it.
    init(symbolCounts: UnsafePointer<Int>) {
        var literalLengthFrequencies = [Int](repeating: 0, count: 286)
        var distanceFrequencies = [Int](repeating: 0, count: 30)
        for byte in 0..<256 { literalLengthFrequencies[byte] = symbolCounts[byte] }
        literalLengthFrequencies[DeflateSymbol.endOfBlock] = 1
        for symbol in (DeflateSymbol.endOfBlock + 1)..<DeflateSymbol.count where symbolCounts[symbol] > 0 {
            let (length, distance) = Self.run(of: symbol)
            literalLengthFrequencies[257 + Self.lengthCodeIndex[length - DeflateSymbol.minRun]] += symbolCounts[symbol]
            distanceFrequencies[distance - 1] += symbolCounts[symbol]
        }
        let literalLengthCode = HuffmanCode(frequencies: literalLengthFrequencies, maxLength: 15)
        let distanceCode = HuffmanCode(frequencies: distanceFrequencies, maxLength: 15)

        var table = [UInt64](repeating: 0, count: DeflateSymbol.count)
        var dataBits = 0
        var longest = 1
        for symbol in 0..<DeflateSymbol.count where symbolCounts[symbol] > 0 || symbol == DeflateSymbol.endOfBlock {
            let code: UInt64, length: Int
            if symbol <= DeflateSymbol.endOfBlock {
                code = UInt64(literalLengthCode.codes[symbol])
                length = Int(literalLengthCode.lengths[symbol])
            } else {
                let (runLength, distance) = Self.run(of: symbol)
                let index = Self.lengthCodeIndex[runLength - DeflateSymbol.minRun]
                let lengthCodeBits = Int(literalLengthCode.lengths[257 + index])
                let extraBits = Self.lengthExtraBits[index]
                code = UInt64(literalLengthCode.codes[257 + index])
                    | UInt64(runLength - Self.lengthBases[index]) << UInt64(lengthCodeBits)
                    | UInt64(distanceCode.codes[distance - 1]) << UInt64(lengthCodeBits + extraBits)
                length = lengthCodeBits + extraBits + Int(distanceCode.lengths[distance - 1])
            }
            table[symbol] = code | UInt64(length) << Self.lengthShift
            dataBits += length * max(symbolCounts[symbol], 1)
            longest = max(longest, length)
        }
        symbolTable = table
        longestEntry = longest

        literalLengthCount = max(257, (literalLengthCode.lengths.lastIndex { $0 > 0 } ?? 0) + 1)
        distanceCount = max(1, (distanceCode.lengths.lastIndex { $0 > 0 } ?? 0) + 1)
        codeLengthSymbols = Self.encodeLengths(Array(literalLengthCode.lengths[..<literalLengthCount])
                                               + distanceCode.lengths[..<distanceCount])
        var codeLengthFrequencies = [Int](repeating: 0, count: 19)
        for item in codeLengthSymbols { codeLengthFrequencies[item.symbol] += 1 }
        let codeLengthCode = HuffmanCode(frequencies: codeLengthFrequencies, maxLength: 7)
        self.codeLengthCode = codeLengthCode
        codeLengthCount = max(4, (Self.codeLengthOrder.lastIndex { codeLengthCode.lengths[$0] > 0 } ?? 0) + 1)

        var headerBits = 3 + 5 + 5 + 4 + 3 * codeLengthCount
        for item in codeLengthSymbols { headerBits += Int(codeLengthCode.lengths[item.symbol]) + item.extraBitCount }
        bitCount = headerBits + dataBits
    }

    /// Writes the block header up to (not including) the first data symbol.
    func writeHeader(isFinal: Bool, to bits: inout DeflateBitWriter) {
        bits.write(isFinal ? 0b101 : 0b100, bitCount: 3)  // BFINAL, BTYPE 10 (dynamic)
        bits.write(UInt64(literalLengthCount - 257), bitCount: 5)
        bits.write(UInt64(distanceCount - 1), bitCount: 5)
        bits.write(UInt64(codeLengthCount - 4), bitCount: 4)
        for symbol in Self.codeLengthOrder[..<codeLengthCount] {
            bits.write(UInt64(codeLengthCode.lengths[symbol]), bitCount: 3)
        }
        for item in codeLengthSymbols {
            bits.write(UInt64(codeLengthCode.codes[item.symbol]), bitCount: Int(codeLengthCode.lengths[item.symbol]))
            bits.write(UInt64(item.extra), bitCount: item.extraBitCount)
        }
    }

    private static func run(of symbol: Int) -> (length: Int, distance: Int) {
        let index = symbol - (DeflateSymbol.endOfBlock + 1)
        return (index & 0xFF + DeflateSymbol.minRun, index >> 8 + 1)
    }

    /// RFC 1951's run-length coding of the code lengths with symbols 16, 17 and 18.
    private static func encodeLengths(_ lengths: [UInt8]) -> [CodeLengthSymbol] {
        var result: [CodeLengthSymbol] = []
        var index = 0
        while index < lengths.count {
            let length = Int(lengths[index])
            var repeats = 1
            while index + repeats < lengths.count && lengths[index + repeats] == lengths[index] { repeats += 1 }
            index += repeats
            if length == 0 {
                while repeats >= 11 {
                    let taken = min(repeats, 138)
                    result.append(CodeLengthSymbol(symbol: 18, extra: taken - 11))
                    repeats -= taken
                }
                if repeats >= 3 {
                    result.append(CodeLengthSymbol(symbol: 17, extra: repeats - 3))
                    repeats = 0
                }
            } else {
                result.append(CodeLengthSymbol(symbol: length))
                repeats -= 1
                while repeats >= 3 {
                    let taken = min(repeats, 6)
                    result.append(CodeLengthSymbol(symbol: 16, extra: taken - 3))
                    repeats -= taken
                }
            }
            result += repeatElement(CodeLengthSymbol(symbol: length), count: repeats)
        }
        return result
    }
}
