import CBidiBridge

/// One glyph of a laid-out line: the box it is drawn in, `x` pixels from the line's start and
/// `cells` cells wide, and where its pixels come from.
struct PlacedGlyph {
    let x: Int
    let cells: Int
    let source: ResolvedGlyph.Source
}

extension TextLine {
    /// The glyphs in visual order, left to right, and the line's width: the scalars in the
    /// order of the Unicode bidirectional algorithm (`visualScalars`), each spacing glyph in
    /// the next one or two cells, each combining mark over the last cells of the glyph before
    /// it, invisible format characters left out.
    func layout(in font: BitmapFont) -> (glyphs: [PlacedGlyph], width: Int) {
        place(visualScalars, in: font)
    }

    /// The scalars as drawn from left to right. A line with no right-to-left character and no
    /// bidi control is its own visual order; any other goes through FriBidi (CBidiBridge):
    /// levels by UAX #9 with the base direction of its first strong character (left to right
    /// when it has none, as a browser's `dir=auto`), Arabic letters in their joining forms
    /// (lam-alef as one ligature), brackets mirrored in right-to-left runs, and combining
    /// marks kept after their base.
    var visualScalars: [Unicode.Scalar] {
        guard scalars.contains(where: needsBidi) else { return scalars }
        let text = scalars.map(\.value)
        var visual = [UInt32](repeating: 0, count: text.count)
        var order = [Int32](repeating: 0, count: text.count)
        var paragraphLevel: Int32 = 0
        let status = mb_bidi_layout(text, Int32(text.count), MB_BIDI_FIRST_STRONG,
                                    Int32(MB_BIDI_SHAPE | MB_BIDI_MARKS_FOLLOW_BASE),
                                    &visual, &order, nil, &paragraphLevel)
        // Lines are file names and short labels; only running out of memory fails.
        guard status == MB_OK else { return scalars }
        return visual.map { Unicode.Scalar($0) ?? "\u{FFFD}" }
    }
}

/// Whether `scalar` can make a line's visual order differ from its logical one: strong
/// right-to-left letters and Arabic numbers (Hebrew to Arabic Extended, their presentation
/// forms, the right-to-left blocks of plane 1) and the explicit bidi controls and marks.
private func needsBidi(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x0590...0x08FF, 0xFB1D...0xFDFF, 0xFE70...0xFEFF, 0x10800...0x10FFF, 0x1E800...0x1EFFF: true
    case 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
    default: false
    }
}

/// `scalars` set one after another from x = 0 (see `TextLine.layout`).
func place(_ scalars: some Sequence<Unicode.Scalar>, in font: BitmapFont) -> (glyphs: [PlacedGlyph], width: Int) {
    var glyphs = [PlacedGlyph]()
    var pen = 0, hasBase = false
    for scalar in scalars {
        guard let resolved = font.resolve(scalar) else { continue }
        let boxWidth = resolved.cells * font.cellWidth
        if resolved.isOverlay && hasBase {
            glyphs.append(PlacedGlyph(x: max(0, pen - boxWidth), cells: resolved.cells, source: resolved.source))
        } else {
            glyphs.append(PlacedGlyph(x: pen, cells: resolved.cells, source: resolved.source))
            pen += boxWidth
            hasBase = true
        }
    }
    return (glyphs, pen)
}
