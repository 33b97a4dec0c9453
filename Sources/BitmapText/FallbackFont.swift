import CLibDeflate
import WorkerThreads

/// The built-in fallback font, GNU Unifont (Generated/FallbackGlyphs.swift, made by
/// scripts/make-unifont.py; UNIFONT-LICENSE): a glyph for nearly every character of the Basic
/// Multilingual Plane and for the symbols and emoji of U+1F000-U+1FBFF, drawn for every
/// scalar the Misc-Fixed face in use lacks.
///
/// Glyphs are 16 pixels tall and 8 or 16 wide (one or two cells), their baseline 14 pixels
/// below the top. The data stays compressed in the binary in pages of 256 code points; a
/// page is decoded the first time one of its glyphs is looked up, and kept.
final class FallbackFont: Sendable {
    /// One glyph: its page's bytes and where its rows start.
    struct Glyph {
        fileprivate let page: Page
        fileprivate let offset: Int
        /// 8 or 16 pixels.
        let width: Int
        /// Drawn over the glyph before it (Unifont's combining list), taking no room itself.
        let isCombining: Bool

        /// Row `row` (0...15) as bits: bit `width - 1 - column` is pixel `column`.
        func rowBits(_ row: Int) -> UInt32 {
            let bytes = page.bytes
            return width == 8 ? UInt32(bytes[offset + row])
                : UInt32(bytes[offset + 2 * row]) << 8 | UInt32(bytes[offset + 2 * row + 1])
        }
    }

    /// A decoded page: three 32-byte bitmaps (has a glyph, 16 wide, combining), then the rows.
    fileprivate final class Page: Sendable {
        let bytes: [UInt8]
        /// For each of the 256 code points, where its rows start, or -1 when it has no glyph.
        let offsets: [Int32]

        init(bytes: [UInt8]) {
            var offsets = [Int32](repeating: -1, count: 256)
            var next = 96
            for low in 0..<256 where bytes[low >> 3] >> (low & 7) & 1 != 0 {
                offsets[low] = Int32(next)
                next += bytes[32 + low >> 3] >> (low & 7) & 1 != 0 ? 32 : 16
            }
            precondition(next == bytes.count, "generated fallback glyphs are inconsistent; run scripts/make-unifont.py again")
            self.bytes = bytes
            self.offsets = offsets
        }

        func bit(_ bitmap: Int, _ low: Int) -> Bool { bytes[bitmap * 32 + low >> 3] >> (low & 7) & 1 != 0 }
    }

    /// Page number, byte offset, compressed length and decoded length of each page, in order.
    private let pageIndex: [UInt32]
    /// The compressed pages in base64, 100 characters a line.
    private let pages: StaticString
    private let decoded = Lock<[UInt32: Page]>([:])

    init(pageIndex: [UInt32], pages: StaticString) {
        precondition(pageIndex.count % 4 == 0, "generated fallback index is inconsistent; run scripts/make-unifont.py again")
        self.pageIndex = pageIndex
        self.pages = pages
    }

    /// The glyph of `scalar`, or nil when Unifont has none.
    func glyph(for scalar: Unicode.Scalar) -> Glyph? {
        let number = scalar.value >> 8, low = Int(scalar.value & 0xFF)
        guard let page = page(number) else { return nil }
        let offset = page.offsets[low]
        guard offset >= 0 else { return nil }
        return Glyph(page: page, offset: Int(offset), width: page.bit(1, low) ? 16 : 8, isCombining: page.bit(2, low))
    }

    private func page(_ number: UInt32) -> Page? {
        if let page = decoded.withLock({ $0[number] }) { return page }
        // Binary search of the index for the page's entry.
        var low = 0, high = pageIndex.count / 4
        while low < high {
            let middle = (low + high) / 2
            if pageIndex[middle * 4] < number { low = middle + 1 } else { high = middle }
        }
        guard low < pageIndex.count / 4, pageIndex[low * 4] == number else { return nil }
        let page = Page(bytes: decode(offset: Int(pageIndex[low * 4 + 1]), compressed: Int(pageIndex[low * 4 + 2]),
                                      decoded: Int(pageIndex[low * 4 + 3])))
        return decoded.withLock { pages in
            if let earlier = pages[number] { return earlier }
            pages[number] = page
            return page
        }
    }

    /// One page's bytes: its base64 text (which starts at 4/3 of its 3-aligned byte offset,
    /// plus one line break per 100 characters before it) decoded, then inflated.
    private func decode(offset: Int, compressed: Int, decoded count: Int) -> [UInt8] {
        let firstCharacter = offset / 3 * 4, characters = (compressed + 2) / 3 * 4
        let start = firstCharacter + firstCharacter / 100
        let end = min(pages.utf8CodeUnitCount, start + characters + characters / 100 + 2)
        let text = UnsafeBufferPointer(start: pages.utf8Start + start, count: end - start)
        let packed = decodeBase64(text, limit: compressed)
        var output = [UInt8](repeating: 0, count: count)
        let decompressor = libdeflate_alloc_decompressor()
        defer { libdeflate_free_decompressor(decompressor) }
        var produced = 0
        let result = packed.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { out in
                libdeflate_deflate_decompress(decompressor, input.baseAddress, compressed, out.baseAddress, count, &produced)
            }
        }
        precondition(decompressor != nil && result == LIBDEFLATE_SUCCESS && produced == count,
                     "generated fallback glyphs do not inflate; run scripts/make-unifont.py again")
        return output
    }
}
