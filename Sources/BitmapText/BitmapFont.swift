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
public struct BitmapFont: Sendable {
    let glyphs: GlyphTable

    /// The built-in face of `size`.
    public static func builtIn(_ size: FontSize) -> BitmapFont {
        switch size {
        case .small: BitmapFont(glyphs: .small)
        case .medium: BitmapFont(glyphs: .medium)
        case .large: BitmapFont(glyphs: .large)
        }
    }

    /// Pixels from one baseline to the next (also the height of every glyph cell).
    public var lineHeight: Int { glyphs.cellHeight }
    /// Pixels from a line's top to its baseline.
    public var ascent: Int { glyphs.ascent }
    /// The width of every cell, drawn glyph or replacement box alike.
    public var cellWidth: Int { glyphs.cellWidth }

    /// How far the pen moves after `scalar` (the cell width: the font is monospaced and a
    /// missing glyph's box takes one cell).
    public func advance(of scalar: Unicode.Scalar) -> Int { glyphs.cellWidth }

    /// Whether the font draws `scalar` (otherwise it is drawn as a replacement box).
    public func hasGlyph(_ scalar: Unicode.Scalar) -> Bool { glyphs.glyph(for: scalar) != nil }
}
