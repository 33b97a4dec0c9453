/// One face's glyphs as decoded from the generated data (Generated/BuiltInGlyphs.swift):
/// every glyph is one `cellWidth` x `cellHeight` cell of 1-bit coverage.
///
/// The base64 text is decoded once, when the face is first used (`static let` is lazy).
final class GlyphTable: Sendable {
    let cellWidth: Int
    let cellHeight: Int
    let ascent: Int
    /// Sorted; a glyph's number is its position here.
    private let codePoints: [UInt32]
    /// All cells back to back, `cellWidth * cellHeight` bits each, most significant bit first.
    private let bits: [UInt8]

    init(cellWidth: Int, cellHeight: Int, ascent: Int, glyphCount: Int, codePointRuns: String, bitmaps: String) {
        self.cellWidth = cellWidth
        self.cellHeight = cellHeight
        self.ascent = ascent
        let runs = decodeBase64(codePointRuns)
        var codePoints = [UInt32]()
        codePoints.reserveCapacity(glyphCount)
        for run in stride(from: 0, to: runs.count - 4, by: 5) {
            let start = UInt32(runs[run]) << 16 | UInt32(runs[run + 1]) << 8 | UInt32(runs[run + 2])
            let count = UInt32(runs[run + 3]) << 8 | UInt32(runs[run + 4])
            codePoints += start..<(start + count)
        }
        self.codePoints = codePoints
        self.bits = decodeBase64(bitmaps)
        precondition(cellWidth <= 24 && codePoints.count == glyphCount && bits.count * 8 >= glyphCount * cellWidth * cellHeight,
                     "generated glyph data is inconsistent; run scripts/make-font.py again")
    }

    /// The glyph number of `scalar`, or nil when the face has no glyph for it.
    func glyph(for scalar: Unicode.Scalar) -> Int? {
        var low = 0, high = codePoints.count
        while low < high {
            let middle = (low + high) / 2
            if codePoints[middle] < scalar.value { low = middle + 1 } else { high = middle }
        }
        return low < codePoints.count && codePoints[low] == scalar.value ? low : nil
    }

    /// Row `row` of glyph `glyph`'s cell as bits: bit `cellWidth - 1 - column` is pixel
    /// `column` (so the leftmost pixel is the highest bit). Cells are at most 24 pixels wide.
    func rowBits(glyph: Int, row: Int) -> UInt32 {
        let first = (glyph * cellHeight + row) * cellWidth, last = first + cellWidth - 1
        var word: UInt32 = 0
        for byte in (first >> 3)...(last >> 3) { word = word << 8 | UInt32(bits[byte]) }
        return word >> UInt32(7 - last & 7) & (1 << UInt32(cellWidth) - 1)
    }
}

/// Decodes standard base64 (`A-Z a-z 0-9 + /`, `=` padding); any other byte, such as the
/// line breaks and indentation of a multi-line literal, is skipped.
func decodeBase64(_ text: String) -> [UInt8] {
    // Over the literal's UTF-8 bytes in place: the fonts' data is decoded at the first text a run
    // draws, so it is on every captioned sheet's start-up path (issue #34).
    var text = text
    return text.withUTF8 { decodeBase64($0, limit: $0.count / 4 * 3) }
}

/// The first `limit` bytes (or fewer, when the text ends) of the base64 in `text`.
func decodeBase64(_ text: some Sequence<UInt8>, limit: Int) -> [UInt8] {
    var output = [UInt8]()
    output.reserveCapacity(limit)
    var accumulator: UInt32 = 0, pending: UInt32 = 0
    for byte in text where output.count < limit {
        let value = base64Values[Int(byte)]
        if value == base64Skipped { continue }
        accumulator = accumulator << 6 | UInt32(value)
        pending += 6
        if pending >= 8 {
            pending -= 8
            output.append(UInt8(truncatingIfNeeded: accumulator >> pending))
        }
    }
    return output
}

/// Each byte's base64 value, or `base64Skipped` for a byte that is not of the alphabet.
private let base64Skipped: UInt8 = 0xFF
private let base64Values: [UInt8] = {
    var values = [UInt8](repeating: base64Skipped, count: 256)
    for (value, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
        values[Int(character)] = UInt8(value)
    }
    return values
}()
