import WaterfallLayout

/// The sheet rows one tile may paint: every row of its frame, full sheet width, `channels`
/// bytes a pixel. Tiles never overlap, so painters of different tiles write disjoint bytes.
struct Canvas {
    let channels: Int
    /// Bytes in one sheet row.
    let rowBytes: Int
    /// The rows of page row `y` (within the tile's frame).
    let rowStart: (Int) -> UnsafeMutablePointer<UInt8>

    /// The pixels `x ..< x + width` of page row `y`.
    func pixels(y: Int, x: Int, width: Int) -> UnsafeMutableBufferPointer<UInt8> {
        UnsafeMutableBufferPointer(start: rowStart(y) + x * channels, count: width * channels)
    }

    /// The whole page row `y`.
    func row(_ y: Int) -> UnsafeMutableBufferPointer<UInt8> {
        UnsafeMutableBufferPointer(start: rowStart(y), count: rowBytes)
    }
}

/// What happened to one tile's picture while painting.
enum TileOutcome: Sendable {
    case drawn
    /// Drawn, but the file has a problem after its image data.
    case drawnWithWarning(String)
    /// Not drawn (its rectangle shows what lies under the picture).
    case failed(String)
}
