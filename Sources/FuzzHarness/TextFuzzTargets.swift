import BitmapText
import Raster

extension FuzzTarget {
    /// A file name's bytes through text layout, as captions take them: UTF-8 decoding and
    /// escapes, the bidi algorithm and Arabic shaping (CBidiBridge, FriBidi), grapheme-cluster
    /// shortening and painting. The first byte chooses the size and the room (0-255 px); the
    /// shortened line must fit it and the painter must stay inside its rows.
    static let textLayout = FuzzTarget(name: "text-layout") { bytes in
        guard let control = bytes.first else { return }
        let font = BitmapFont.builtIn(FontSize.allCases[Int(control) % 3])
        let room = Int(control)
        let line = TextLine(bytes: Array(bytes.dropFirst()))
        for keepingEnd in [false, true] {
            let shortened = line.fitted(toWidth: room, in: font, keepingEnd: keepingEnd)
            precondition(shortened.width(in: font) <= room, "a shortened line is wider than its room")
            var pixels = [UInt8](repeating: 0, count: (room + 2) * 3 * font.lineHeight)
            pixels.withUnsafeMutableBufferPointer { all in
                let stride = (room + 2) * 3
                TextPainter.draw(shortened, font: font, color: .black, x: 1, y: 0, clip: (0, 0, room + 2, font.lineHeight),
                                 channels: 3) { y in
                    (0..<font.lineHeight).contains(y) ? UnsafeMutableBufferPointer(rebasing: all[(y * stride)..<((y + 1) * stride)]) : nil
                }
            }
        }
    }
}
