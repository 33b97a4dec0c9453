/// Something that turns source rows into target rows of premultiplied RGBA8, streaming:
/// `StreamingResampler` (smooth) and `NearestNeighbourScaler` (pixelated).
public protocol RowScaler: AnyObject {
    /// Feeds the next source row; `emit` gets each target row (index, premultiplied RGBA8
    /// row of `targetWidth * 4` bytes, valid only during the call) as soon as it is complete.
    func push(row: UnsafeBufferPointer<UInt8>, emit: (Int, UnsafeBufferPointer<UInt8>) throws -> Void) rethrows
}

extension StreamingResampler: RowScaler {}

/// Enlarges by nearest neighbour, for crisp icons and pixel art (`--enlarge pixelated`); at equal
/// sizes, passes rows through premultiplied: the bytes StreamingResampler emits there, cheaper
/// (the painter's path for rows already at the tile's size, such as an SVG drawn at it).
///
/// Target pixel (x, y) takes source pixel (floor((2x + 1) * sw / 2tw), floor((2y + 1) * sh / 2th)),
/// the source pixel whose area holds the target pixel's centre, in integer arithmetic. Output
/// rows are premultiplied RGBA8 (colour * alpha / 255, rounded to nearest), like the resampler's.
/// Memory: one source row and one target row.
public final class NearestNeighbourScaler: RowScaler {
    public let sourceWidth: Int
    public let sourceHeight: Int
    public let targetWidth: Int
    public let targetHeight: Int
    public let sourceFormat: PixelFormat
    private var pushed = 0
    private var emitted = 0
    /// For each target column, the byte offset of its source pixel in a source row.
    private let sourceOffsets: [Int]
    private var targetRow: [UInt8]

    public init(sourceWidth: Int, sourceHeight: Int, targetWidth: Int, targetHeight: Int,
                sourceFormat: PixelFormat) {
        precondition(sourceWidth >= 1 && sourceHeight >= 1 && targetWidth >= 1 && targetHeight >= 1)
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.targetWidth = targetWidth
        self.targetHeight = targetHeight
        self.sourceFormat = sourceFormat
        sourceOffsets = (0..<targetWidth).map { x in Self.source(of: x, sourceSize: sourceWidth, targetSize: targetWidth) * sourceFormat.bytesPerPixel }
        targetRow = [UInt8](repeating: 0, count: targetWidth * 4)
    }

    /// The source index whose cell holds the centre of target index `index`.
    private static func source(of index: Int, sourceSize: Int, targetSize: Int) -> Int {
        min(sourceSize - 1, (2 * index + 1) * sourceSize / (2 * targetSize))
    }

    public func push(row: UnsafeBufferPointer<UInt8>, emit: (Int, UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
        precondition(row.count == sourceWidth * sourceFormat.bytesPerPixel && pushed < sourceHeight)
        let y = pushed
        pushed += 1
        var converted = false
        while emitted < targetHeight,
              Self.source(of: emitted, sourceSize: sourceHeight, targetSize: targetHeight) == y {
            if !converted {
                convert(row)
                converted = true
            }
            try targetRow.withUnsafeBufferPointer { try emit(emitted, $0) }
            emitted += 1
        }
    }

    /// Fills `targetRow` from one source row.
    private func convert(_ row: UnsafeBufferPointer<UInt8>) {
        let format = sourceFormat
        sourceOffsets.withUnsafeBufferPointer { offsets in
            targetRow.withUnsafeMutableBufferPointer { target in
                let source = row.baseAddress!, out = target.baseAddress!
                for x in 0..<offsets.count {
                    let from = source + offsets[x], to = out + 4 * x
                    switch format {
                    case .grey8:
                        to[0] = from[0]; to[1] = from[0]; to[2] = from[0]; to[3] = 255
                    case .rgb8, .opaqueRGBA8:
                        to[0] = from[0]; to[1] = from[1]; to[2] = from[2]; to[3] = 255
                    case .rgba8:
                        let alpha = UInt32(from[3])
                        to[0] = UInt8((UInt32(from[0]) * alpha + 127) / 255)
                        to[1] = UInt8((UInt32(from[1]) * alpha + 127) / 255)
                        to[2] = UInt8((UInt32(from[2]) * alpha + 127) / 255)
                        to[3] = from[3]
                    }
                }
            }
        }
    }
}
