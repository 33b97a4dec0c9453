import CRasterKernels

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
    /// The premultiply's code at equal widths (tests compare the two).
    let kernels: RasterKernels

    public convenience init(sourceWidth: Int, sourceHeight: Int, targetWidth: Int, targetHeight: Int,
                            sourceFormat: PixelFormat) {
        self.init(sourceWidth: sourceWidth, sourceHeight: sourceHeight, targetWidth: targetWidth, targetHeight: targetHeight,
                  sourceFormat: sourceFormat, kernels: .best)
    }

    init(sourceWidth: Int, sourceHeight: Int, targetWidth: Int, targetHeight: Int,
         sourceFormat: PixelFormat, kernels: RasterKernels) {
        self.kernels = kernels
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
        let format = sourceFormat, identity = sourceWidth == targetWidth
        sourceOffsets.withUnsafeBufferPointer { offsets in
            targetRow.withUnsafeMutableBufferPointer { target in
                let source = row.baseAddress!, out = target.baseAddress!
                var x = 0
                if format == .rgba8, identity, kernels == .avx2 {
                    x = mrk_premultiply_rgba_avx2(source, out, offsets.count)
                }
                if format == .rgba8, identity {
                    // Four pixels a step: the same integers as the scalar rule below.
                    while x + 4 <= offsets.count {
                        let pixels = SIMD16<UInt32>(truncatingIfNeeded: UnsafeRawPointer(source + 4 * x).loadUnaligned(as: SIMD16<UInt8>.self))
                        let a0 = pixels[3], a1 = pixels[7], a2 = pixels[11], a3 = pixels[15]
                        let alphas = SIMD16<UInt32>(a0, a0, a0, 255, a1, a1, a1, 255, a2, a2, a2, 255, a3, a3, a3, 255)
                        var premultiplied = Self.divideBy255(pixels &* alphas &+ 127)
                        premultiplied.replace(with: pixels, where: Self.alphaLanes)
                        UnsafeMutableRawPointer(out + 4 * x).storeBytes(of: SIMD16<UInt8>(truncatingIfNeeded: premultiplied), as: SIMD16<UInt8>.self)
                        x += 4
                    }
                }
                while x < offsets.count {
                    let from = source + offsets[x], to = out + 4 * x
                    switch format {
                    case .grey8:
                        to[0] = from[0]; to[1] = from[0]; to[2] = from[0]; to[3] = 255
                    case .rgb8, .opaqueRGBA8:
                        to[0] = from[0]; to[1] = from[1]; to[2] = from[2]; to[3] = 255
                    case .rgba8:
                        let alpha = UInt32(from[3])
                        to[0] = UInt8(Self.divideBy255(UInt32(from[0]) * alpha + 127))
                        to[1] = UInt8(Self.divideBy255(UInt32(from[1]) * alpha + 127))
                        to[2] = UInt8(Self.divideBy255(UInt32(from[2]) * alpha + 127))
                        to[3] = from[3]
                    }
                    x += 1
                }
            }
        }
    }

    private static let alphaLanes: SIMDMask<SIMD16<Int32>> = [false, false, false, true, false, false, false, true,
                                                              false, false, false, true, false, false, false, true]

    /// `value / 255` for `value` up to 255 * 255 + 127 (a premultiplied sample plus its
    /// rounding): the multiply-shift is exact below 66 000 (SameSizePassThroughTests checks
    /// every colour and alpha).
    @inline(__always) static func divideBy255(_ value: UInt32) -> UInt32 { (value &* 32897) &>> 23 }
    @inline(__always) static func divideBy255(_ value: SIMD16<UInt32>) -> SIMD16<UInt32> { (value &* 32897) &>> 23 }
}
