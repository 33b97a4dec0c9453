import BitmapText
import Raster

/// The play mark on a video's poster frame: a translucent dark square at the picture's bottom
/// left with a white triangle pointing right, sized from the picture's shorter side (an eighth,
/// 8 to 32 px). Integer geometry and `BoxPainter`'s blending only, so it is the same bytes on
/// every run.
enum PlayMarkPainter {
    static let backing = RGBA8Color(r: 0, g: 0, b: 0, a: 140)
    static let triangle = RGBA8Color(r: 255, g: 255, b: 255, a: 230)

    /// The mark's square inside `picture`: its side and top-left corner.
    static func square(in picture: PixelRect) -> PixelRect {
        let side = min(32, max(8, min(picture.width, picture.height) / 8))
        let inset = max(2, side / 4)
        return (picture.x + inset, picture.y + picture.height - inset - side, side, side)
    }

    static func paint(over picture: PixelRect, clip: PixelRect, channels: Int, row: (Int) -> UnsafeMutableBufferPointer<UInt8>?) {
        let box = square(in: picture)
        // Too small a picture for a mark that fits: none.
        guard box.width < picture.width, box.height < picture.height else { return }
        BoxPainter.fill(box, color: backing, clip: clip, channels: channels, row: row)
        // The triangle: the middle half of the square, its rows growing to the centre line and back.
        let height = box.height / 2, left = box.x + box.width * 3 / 8, top = box.y + box.height / 4
        let length = box.width / 2
        for line in 0..<height {
            let distance = min(line, height - 1 - line)   // from the nearer of top and bottom
            let width = max(1, (2 * distance + 1) * length / max(1, height))
            BoxPainter.fill((left, top + line, width, 1), color: triangle, clip: clip, channels: channels, row: row)
        }
    }
}
