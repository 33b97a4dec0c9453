import BitmapText
import WaterfallLayout
import Raster

/// The placeholder drawn where a picture failed after planning (a file that changed, data
/// damaged past its header, a decoder that refused it): the review sheet's error look (its
/// failed-pair red frame and caption font, `ReviewSheetStyle`) on a pale fill, with "not drawn"
/// and the reason, so a failed picture is never a blank tile.
enum ErrorTile {
    static let fill = RGBA8Color(r: 0xFB, g: 0xE9, b: 0xE9)
    static let border = 2
    static let padding = 4

    /// Paints the placeholder over `rect` (clipped to `clip`): fill, frame, and as many lines of
    /// "not drawn: <reason>" (word-wrapped, the last one shortened) as the rectangle holds.
    static func paint(_ rect: LayoutRect, reason: String, clip: PixelRect, canvas: Canvas) {
        let row: (Int) -> UnsafeMutableBufferPointer<UInt8>? = { canvas.row($0) }
        let box: PixelRect = (rect.x, rect.y, rect.width, rect.height)
        BoxPainter.fill(box, color: fill, clip: clip, channels: canvas.channels, row: row)
        BoxPainter.stroke(box, lineWidth: border, color: ReviewSheetStyle.failedColor, clip: clip,
                          channels: canvas.channels, row: row)
        let font = BitmapFont.builtIn(ReviewSheetStyle.font)
        let inner = rect.width - 2 * (border + padding)
        let room = (rect.height - 2 * (border + padding)) / font.lineHeight
        guard inner > 0, room > 0 else { return }
        let lines = wrapped("not drawn: " + reason, width: inner, font: font, maxLines: room)
        let textClip: PixelRect = (rect.x + border, rect.y + border, rect.width - 2 * border, rect.height - 2 * border)
        for (number, line) in lines.enumerated() {
            TextPainter.draw(line, font: font, color: ReviewSheetStyle.captionColor, x: rect.x + border + padding,
                             y: rect.y + border + padding + number * font.lineHeight, clip: textClip,
                             channels: canvas.channels, row: row)
        }
    }

    /// `text` broken at spaces into lines of at most `width` pixels, at most `maxLines` of them
    /// (the last one holds the rest, shortened with "…" when it does not fit).
    static func wrapped(_ text: String, width: Int, font: BitmapFont, maxLines: Int) -> [TextLine] {
        var lines: [TextLine] = []
        var current = ""
        var words = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)[...]
        while let word = words.first {
            let candidate = current.isEmpty ? word : current + " " + word
            if lines.count == maxLines - 1 || TextLine(candidate).width(in: font) <= width || current.isEmpty {
                current = candidate
                words = words.dropFirst()
                if lines.count == maxLines - 1 { continue }
            } else {
                lines.append(TextLine(current).fitted(toWidth: width, in: font))
                current = ""
            }
        }
        if !current.isEmpty { lines.append(TextLine(current).fitted(toWidth: width, in: font)) }
        return lines
    }
}
