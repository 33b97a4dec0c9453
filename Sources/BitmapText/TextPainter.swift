import Raster

/// Draws text in the built-in font into sheet rows (see `draw`).
public enum TextPainter {
    /// Draws `line` with its top-left at (x, y) in sheet coordinates, clipped to `clip`
    /// (a rectangle in sheet coordinates): pixels outside `clip` are never touched. `row(y)`
    /// returns the destination row for sheet row y (the full sheet row: pixel x at byte
    /// x * channels), or nil if that row is not available (then it is skipped; columns past
    /// the end of a row are skipped too). `channels`
    /// is 3 (RGB) or 4 (straight RGBA); inked pixels get `color` blended "over" them as
    /// Raster's `compositeOver` does. The glyphs are set as `TextLine.layout` places them; a
    /// fallback glyph sits in its box as `FallbackPlacement` says. A scalar neither font has
    /// draws a replacement box: the outline of its cell less the rightmost column and the top
    /// and bottom rows.
    public static func draw(_ line: TextLine, font: BitmapFont, color: RGBA8Color,
                            x: Int, y: Int, clip: PixelRect,
                            channels: Int, row: (Int) -> UnsafeMutableBufferPointer<UInt8>?) {
        let blender = PixelBlender(color: color, channels: channels)
        let layout = line.layout(in: font)
        let visible = intersection(clip, (x, y, layout.width, font.lineHeight))
        guard blender.isVisible, !visible.columns.isEmpty, !visible.rows.isEmpty else { return }
        // Only the glyphs whose box reaches into the clip rectangle.
        let rasters = layout.glyphs.compactMap { glyph -> GlyphRaster? in
            let left = x + glyph.x, right = left + glyph.cells * font.cellWidth
            guard left < visible.columns.upperBound, right > visible.columns.lowerBound else { return nil }
            return GlyphRaster(glyph, boxLeft: left, font: font)
        }
        // Partly covered pixels of scaled fallback glyphs: the colour at 1/16 ... 16/16 of its alpha.
        let partial: [PixelBlender] = rasters.contains { $0.hasPartialCoverage } ? (0...16).map { (sixteenths: Int) in
            PixelBlender(color: RGBA8Color(r: color.r, g: color.g, b: color.b, a: UInt8((Int(color.a) * sixteenths + 8) / 16)),
                         channels: channels)
        } : []
        for sheetRow in visible.rows {
            guard let destination = row(sheetRow) else { continue }
            let lineRow = sheetRow - y
            for raster in rasters {
                raster.paintRow(lineRow, into: destination, columns: visible.columns, blender: blender, partial: partial)
            }
        }
    }

    /// Row `row` of the missing-glyph box, as `GlyphTable.rowBits` gives a glyph's: the outline
    /// of columns 0 ... cellWidth-2 and rows 1 ... cellHeight-2 of the cell.
    static func replacementBoxBits(row: Int, cellWidth: Int, cellHeight: Int) -> UInt32 {
        guard row >= 1, row <= cellHeight - 2 else { return 0 }
        let left = UInt32(1) << UInt32(cellWidth - 1)
        return row == 1 || row == cellHeight - 2 ? (left << 1) - 2 : left | 2
    }
}

/// Paints filled and outlined rectangles into sheet rows, with the row accessor, clipping
/// and blending of `TextPainter.draw` (for tile backgrounds and frames).
public enum BoxPainter {
    /// Blends `color` over every pixel of `rect` that lies inside `clip`.
    public static func fill(_ rect: PixelRect, color: RGBA8Color, clip: PixelRect,
                            channels: Int, row: (Int) -> UnsafeMutableBufferPointer<UInt8>?) {
        let blender = PixelBlender(color: color, channels: channels)
        let visible = intersection(rect, clip)
        guard blender.isVisible, !visible.columns.isEmpty else { return }
        for sheetRow in visible.rows {
            guard let destination = row(sheetRow) else { continue }
            for column in visible.columns { blender.paint(destination, column: column) }
        }
    }

    /// A border `lineWidth` pixels wide just inside `rect` (the whole rectangle when the
    /// border would meet itself), each pixel blended once, clipped to `clip`.
    public static func stroke(_ rect: PixelRect, lineWidth: Int, color: RGBA8Color, clip: PixelRect,
                              channels: Int, row: (Int) -> UnsafeMutableBufferPointer<UInt8>?) {
        guard lineWidth > 0, rect.width > 0, rect.height > 0 else { return }
        let top = min(lineWidth, rect.height), bottom = min(lineWidth, rect.height - top)
        let left = min(lineWidth, rect.width), right = min(lineWidth, rect.width - left)
        let middleHeight = rect.height - top - bottom
        let parts: [PixelRect] = [
            (rect.x, rect.y, rect.width, top),
            (rect.x, rect.y + rect.height - bottom, rect.width, bottom),
            (rect.x, rect.y + top, left, middleHeight),
            (rect.x + rect.width - right, rect.y + top, right, middleHeight),
        ]
        for part in parts {
            fill(part, color: color, clip: clip, channels: channels, row: row)
        }
    }
}
