/// The three sizes of the built-in font.
public enum FontSize: String, Sendable, CaseIterable {
    /// Misc-Fixed 6x13: 6 px advance, 13 px lines.
    case small
    /// Misc-Fixed 9x15: 9 px advance, 15 px lines.
    case medium
    /// Misc-Fixed 10x20: 10 px advance, 20 px lines.
    case large

    /// The face's cell (advance × line height), known without decoding its glyphs: `--help`
    /// names the sizes, and a run that draws no text never decodes a face (issue #34; a test
    /// checks these against the faces).
    public var cellSize: (width: Int, lineHeight: Int) {
        switch self {
        case .small: (6, 13)
        case .medium: (9, 15)
        case .large: (10, 20)
        }
    }
}

/// A monospaced bitmap font built into Masonry (X11 Misc-Fixed, public domain, generated
/// from Debian's xfonts-base by scripts/make-font.py): the same pixels on every machine.
///
/// Every glyph is one cell `cellWidth` wide and `lineHeight` tall, its top row at the line's
/// top and its baseline `ascent` pixels below it. Covers Latin-1, Latin Extended-A, Greek,
/// Cyrillic, box drawing and more (about 4,100-5,200 glyphs of the Basic Multilingual Plane).
/// Every scalar the face lacks is drawn from the built-in fallback, GNU Unifont (one or two
/// cells; see `FallbackPlacement`), and only a scalar neither has is a replacement box.
public struct BitmapFont: Sendable {
    let glyphs: GlyphTable
    let size: FontSize

    /// The built-in face of `size`.
    public static func builtIn(_ size: FontSize) -> BitmapFont {
        switch size {
        case .small: BitmapFont(glyphs: .small, size: size)
        case .medium: BitmapFont(glyphs: .medium, size: size)
        case .large: BitmapFont(glyphs: .large, size: size)
        }
    }

    /// Pixels from one baseline to the next (also the height of every glyph cell).
    public var lineHeight: Int { glyphs.cellHeight }
    /// Pixels from a line's top to its baseline.
    public var ascent: Int { glyphs.ascent }
    /// The width of every cell, drawn glyph or replacement box alike.
    public var cellWidth: Int { glyphs.cellWidth }

    /// How far the pen moves after `scalar` on its own: one cell for the face's glyphs, the
    /// replacement box and Unifont's 8-pixel glyphs, two for its 16-pixel ones (CJK, Hangul,
    /// fullwidth forms, emoji), none for a combining mark or an invisible format character.
    public func advance(of scalar: Unicode.Scalar) -> Int {
        guard let resolved = resolve(scalar) else { return 0 }
        return resolved.isOverlay ? 0 : resolved.cells * cellWidth
    }

    /// Whether the face itself has a glyph for `scalar` (otherwise the fallback's is drawn).
    public func hasGlyph(_ scalar: Unicode.Scalar) -> Bool { glyphs.glyph(for: scalar) != nil }

    /// Whether `scalar` is drawn from a glyph, the face's or the fallback's (otherwise, unless
    /// it is an invisible format character, it is drawn as a replacement box).
    public func drawsGlyph(_ scalar: Unicode.Scalar) -> Bool {
        hasGlyph(scalar) || FallbackFont.unifont.glyph(for: scalar) != nil
    }

    /// How `scalar` is drawn, or nil when it is not drawn at all (a default-ignorable code
    /// point: joiners, variation selectors, bidi controls, the soft hyphen).
    func resolve(_ scalar: Unicode.Scalar) -> ResolvedGlyph? {
        if scalar.value < 0xAD, let glyph = glyphs.glyph(for: scalar) {
            return ResolvedGlyph(source: .primary(glyph), cells: 1, isOverlay: false)
        }
        if scalar.properties.isDefaultIgnorableCodePoint { return nil }
        let isMark = scalar.value >= 0x300 && [.nonspacingMark, .enclosingMark].contains(scalar.properties.generalCategory)
        if let glyph = glyphs.glyph(for: scalar) {
            return ResolvedGlyph(source: .primary(glyph), cells: 1, isOverlay: isMark)
        }
        if let glyph = FallbackFont.unifont.glyph(for: scalar) {
            return ResolvedGlyph(source: .fallback(glyph), cells: glyph.width / 8, isOverlay: isMark || glyph.isCombining)
        }
        return ResolvedGlyph(source: .box, cells: 1, isOverlay: false)
    }
}

/// Where a drawn scalar's pixels come from and how much room it takes.
struct ResolvedGlyph {
    enum Source {
        /// Glyph number in the face.
        case primary(Int)
        case fallback(FallbackFont.Glyph)
        /// The replacement box (see `TextPainter.draw`).
        case box
    }
    let source: Source
    /// Cells of the box it is drawn in (1 or 2).
    let cells: Int
    /// Drawn over the last `cells` cells of the glyph before it, taking no room itself.
    let isOverlay: Bool
}
