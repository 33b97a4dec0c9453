/// Streaming antialiased resampler: source rows go in top to bottom, target rows come out
/// as soon as they are complete, and only a small window of rows is ever held.
///
/// - Filter: libvips-style. Each axis is first box-shrunk by the integer factor
///   floor(source / target / 2) (exact block averages; a partial last block averages the
///   pixels it has), then reduced by Lanczos-3 stretched by the remaining ratio (1 to 4).
///   An enlarged axis uses Catmull-Rom bicubic instead. Pixel centres are aligned like
///   Pillow's `Image.resize`, and windows are clipped and renormalised at the edges.
/// - Alpha: every source pixel is premultiplied exactly (colour * alpha, alpha * 255, no
///   rounding) before any filtering, so fully transparent pixels never bleed colour.
///   Output rows are premultiplied RGBA8, rounded to nearest, clamped to 0...255 with
///   every colour channel <= alpha.
/// - Determinism: integer arithmetic throughout, with 14-bit filter weights that sum
///   exactly to 1 per output pixel (the rounding residue goes to the largest weight), so a
///   flat image stays exactly flat and every machine produces the same bytes.
/// - Memory: O(sourceWidth + targetWidth * filter taps), independent of the source height.
///
/// One instance resamples one image: call `push(row:emit:)` exactly `sourceHeight` times.
/// The last push emits the last target rows. If `emit` throws, discard the instance.
public final class StreamingResampler {
    public let sourceWidth: Int
    public let sourceHeight: Int
    public let targetWidth: Int
    public let targetHeight: Int
    /// Source rows pushed so far.
    public private(set) var pushedRowCount = 0
    /// Target rows emitted so far; `targetHeight` once the last source row is pushed.
    public private(set) var emittedRowCount = 0

    private let horizontal: AxisPlan
    private let vertical: AxisPlan

    /// A premultiplied colour or alpha sample is at most this (255 * 255).
    private static let maxSample: Int32 = 255 * 255
    /// Shift of the fixed-point reciprocals that turn box sums into averages.
    private static let reciprocalBits = 46

    // Working buffers, allocated once. Premultiplied samples are in 0...maxSample, and one
    // SIMD4<Int32> holds a pixel's R, G, B, A.
    /// Block sums of the current group of up to `vertical.shrinkFactor` premultiplied source
    /// rows: one pixel per shrunk column, each summing its `horizontal.shrinkFactor` pixels.
    private let columnSums: UnsafeMutableBufferPointer<SIMD4<Int>>
    /// One box-shrunk row (`horizontal.shrunkSize` pixels).
    private let shrunkRow: UnsafeMutableBufferPointer<SIMD4<Int32>>
    /// Fixed-point 1 / (block width * `reciprocalsGroupHeight`) per shrunk column.
    private let blockReciprocals: UnsafeMutableBufferPointer<Int>
    private var reciprocalsGroupHeight = 0
    /// The last `vertical.filter.tapCount` horizontally reduced rows (`targetWidth` pixels
    /// each); shrunk row r lives in slot r % tapCount.
    private let reducedRows: UnsafeMutableBufferPointer<SIMD4<Int32>>
    /// Vertical filter sums for one target row.
    private let targetSums: UnsafeMutableBufferPointer<SIMD4<Int32>>
    /// The row handed to `emit`: interleaved premultiplied RGBA8.
    private let targetRow: UnsafeMutableBufferPointer<UInt8>

    private var rowsInGroup = 0
    private var shrunkRowCount = 0
    /// Every source alpha is 255: block sums hold raw samples, and the premultiply's factor
    /// 255 is folded into `blockReciprocals`.
    private let sourceIsOpaque: Bool

    /// `sourceIsOpaque` promises that every source alpha is 255 (a PNG without an alpha channel
    /// or tRNS); the box sums then skip the per-pixel premultiply (same bytes, less work).
    public init(sourceWidth: Int, sourceHeight: Int, targetWidth: Int, targetHeight: Int, sourceIsOpaque: Bool = false) {
        self.sourceIsOpaque = sourceIsOpaque
        horizontal = AxisPlan(sourceSize: sourceWidth, targetSize: targetWidth)
        vertical = AxisPlan(sourceSize: sourceHeight, targetSize: targetHeight)
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.targetWidth = targetWidth
        self.targetHeight = targetHeight
        // Both filter passes sum `weight * sample` in Int32, plus a rounding term of at most
        // 255 << 13: this bound proves that the wrapping arithmetic below cannot overflow.
        for plan in [horizontal, vertical] {
            precondition(plan.filter.maxAbsoluteWeightSum * Int(Self.maxSample) + (255 << 13) <= Int(Int32.max),
                         "filter weights too large for 32-bit sums")
        }
        columnSums = .allocate(capacity: horizontal.shrunkSize)
        columnSums.initialize(repeating: .zero)
        shrunkRow = .allocate(capacity: horizontal.shrunkSize)
        shrunkRow.initialize(repeating: .zero)
        blockReciprocals = .allocate(capacity: horizontal.shrunkSize)
        blockReciprocals.initialize(repeating: 0)
        reducedRows = .allocate(capacity: targetWidth * vertical.filter.tapCount)
        reducedRows.initialize(repeating: .zero)
        targetSums = .allocate(capacity: targetWidth)
        targetSums.initialize(repeating: .zero)
        targetRow = .allocate(capacity: 4 * targetWidth)
        targetRow.initialize(repeating: 0)
    }

    deinit {
        columnSums.deallocate()
        shrunkRow.deallocate()
        blockReciprocals.deallocate()
        reducedRows.deallocate()
        targetSums.deallocate()
        targetRow.deallocate()
    }

    /// Feeds the next source row (straight RGBA8, `sourceWidth * 4` bytes, top to bottom).
    ///
    /// `emit` is called zero or more times with `(targetRowIndex, row)`, `row` being
    /// premultiplied RGBA8 of `targetWidth * 4` bytes, valid only during the call. Indices
    /// increase by one from 0; after the last source row all `targetHeight` rows are out.
    public func push(row: UnsafeBufferPointer<UInt8>,
                     emit: (Int, UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
        precondition(row.count == 4 * sourceWidth, "a source row must hold sourceWidth * 4 bytes")
        precondition(pushedRowCount < sourceHeight, "more rows pushed than sourceHeight")
        addPremultiplied(row)
        pushedRowCount += 1
        rowsInGroup += 1
        guard rowsInGroup == vertical.shrinkFactor || pushedRowCount == sourceHeight else { return }

        shrinkGroup()
        let tapCount = vertical.filter.tapCount
        reduceHorizontally(into: targetWidth * (shrunkRowCount % tapCount))
        shrunkRowCount += 1
        while emittedRowCount < targetHeight,
              vertical.filter.firstInput[emittedRowCount] + tapCount <= shrunkRowCount {
            reduceVertically(targetRow: emittedRowCount)
            try emit(emittedRowCount, UnsafeBufferPointer(targetRow))
            emittedRowCount += 1
        }
    }

    /// Adds one straight RGBA8 row, premultiplied, into the block sums (one SIMD4<Int> per
    /// shrunk column, summing its block of `horizontal.shrinkFactor` pixels). With no shrink
    /// on either axis the premultiplied pixels go straight into `shrunkRow`.
    private func addPremultiplied(_ row: UnsafeBufferPointer<UInt8>) {
        let width = sourceWidth, blockWidth = horizontal.shrinkFactor
        // Unsafe hot loops: row.count == 4 * width was checked in push; a block of at most
        // AxisPlan.maxShrinkFactor pixels sums to at most 32768 * 65025 < 2^31.
        let source = UnsafeRawPointer(row.baseAddress!)
        if blockWidth == 1 && vertical.shrinkFactor == 1 {
            let shrunk = shrunkRow.baseAddress!
            for x in 0..<width { shrunk[x] = Self.premultipliedPixel(source, x) }
            return
        }
        let sums = columnSums.baseAddress!, opaque = sourceIsOpaque
        if blockWidth == 1 {
            for x in 0..<width { sums[x] &+= SIMD4<Int>(truncatingIfNeeded: Self.summand(source, x, opaque: opaque)) }
            return
        }
        var x = 0
        for column in 0..<horizontal.shrunkSize {
            let end = min(x &+ blockWidth, width)
            var block = SIMD4<Int32>.zero
            while x < end {
                block &+= Self.summand(source, x, opaque: opaque)
                x &+= 1
            }
            sums[column] &+= SIMD4<Int>(truncatingIfNeeded: block)
        }
    }

    /// What pixel `x` adds to its block sum: premultiplied, or raw when the source is opaque
    /// (then r·255 = 255·r is applied once per block, through the reciprocal).
    @inline(__always)
    private static func summand(_ row: UnsafeRawPointer, _ x: Int, opaque: Bool) -> SIMD4<Int32> {
        opaque ? SIMD4<Int32>(truncatingIfNeeded: row.loadUnaligned(fromByteOffset: 4 &* x, as: SIMD4<UInt8>.self))
            : premultipliedPixel(row, x)
    }

    /// Source pixel `x` of a straight RGBA8 row, premultiplied exactly: (r·a, g·a, b·a, 255·a).
    /// One 4-byte load widened in a vector register, rather than four byte loads.
    @inline(__always)
    private static func premultipliedPixel(_ row: UnsafeRawPointer, _ x: Int) -> SIMD4<Int32> {
        let pixel = SIMD4<Int32>(truncatingIfNeeded: row.loadUnaligned(fromByteOffset: 4 &* x, as: SIMD4<UInt8>.self))
        var factors = SIMD4<Int32>(repeating: pixel[3])
        factors[3] = 255
        return pixel &* factors
    }

    /// Turns the block sums of the current group of rows into one box-shrunk row
    /// (block averages, rounded) and clears the sums for the next group.
    private func shrinkGroup() {
        let blockWidth = horizontal.shrinkFactor, width = sourceWidth, shrunkWidth = horizontal.shrunkSize
        if blockWidth == 1 && vertical.shrinkFactor == 1 { rowsInGroup = 0; return }   // shrunkRow already filled
        if reciprocalsGroupHeight != rowsInGroup {
            reciprocalsGroupHeight = rowsInGroup
            for column in 0..<shrunkWidth {
                let pixelCount = min(blockWidth, width - column * blockWidth) * rowsInGroup
                // Raw opaque sums need the premultiply's factor 255: (sum · 255) · r == sum · (255 · r).
                blockReciprocals[column] = (sourceIsOpaque ? 255 : 1) * (((1 << Self.reciprocalBits) + pixelCount / 2) / pixelCount)
            }
        }
        rowsInGroup = 0
        let sums = columnSums.baseAddress!
        let shrunk = shrunkRow.baseAddress!, reciprocals = blockReciprocals.baseAddress!
        let half = SIMD4<Int>(repeating: 1 << (Self.reciprocalBits - 1))
        for column in 0..<shrunkWidth {
            let average = (sums[column] &* reciprocals[column] &+ half) &>> Self.reciprocalBits
            shrunk[column] = SIMD4(truncatingIfNeeded: average)
        }
        sums.update(repeating: .zero, count: shrunkWidth)
    }

    /// Filters `shrunkRow` horizontally into `reducedRows`, starting at pixel `offset`.
    private func reduceHorizontally(into offset: Int) {
        let filter = horizontal.filter, tapCount = filter.tapCount
        let half = SIMD4<Int32>(repeating: 1 << (FilterWeights.fractionBits - 1))
        let maxSample = SIMD4<Int32>(repeating: Self.maxSample)
        // Unsafe hot loop: firstInput[x] + tapCount <= shrunkSize by construction, and the
        // init's precondition bounds every sum well inside Int32.
        filter.weights.withUnsafeBufferPointer { weights in
            filter.firstInput.withUnsafeBufferPointer { firstInput in
                let output = reducedRows.baseAddress! + offset
                for x in 0..<targetWidth {
                    let taps = shrunkRow.baseAddress! + firstInput[x], tapWeights = weights.baseAddress! + x &* tapCount
                    var sum = half
                    for tap in 0..<tapCount { sum &+= taps[tap] &* tapWeights[tap] }
                    output[x] = (sum &>> Int32(FilterWeights.fractionBits)).clamped(lowerBound: .zero, upperBound: maxSample)
                }
            }
        }
    }

    /// Filters the held reduced rows vertically into `targetRow` (premultiplied RGBA8).
    private func reduceVertically(targetRow targetIndex: Int) {
        let filter = vertical.filter, tapCount = filter.tapCount
        let width = targetWidth, firstInput = filter.firstInput[targetIndex]
        // Unsafe hot loop over slots of `width` pixels; overflow bounded as in reduceHorizontally.
        let sums = targetSums.baseAddress!
        sums.update(repeating: .zero, count: width)
        for tap in 0..<tapCount {
            let weight = filter.weights[targetIndex * tapCount + tap]
            if weight == 0 { continue }
            let reduced = reducedRows.baseAddress! + width * ((firstInput + tap) % tapCount)
            for x in 0..<width { sums[x] &+= reduced[x] &* weight }
        }
        // Sums are in units of 1/255 of an 8-bit level, times 2^fractionBits: one rounded
        // division brings them to 8 bits; then colour is clamped to alpha.
        let divisor = SIMD4<Int32>(repeating: 255 << FilterWeights.fractionBits)
        let largest = SIMD4<Int32>(repeating: Self.maxSample << FilterWeights.fractionBits)
        let output = UnsafeMutableRawPointer(targetRow.baseAddress!)
        for x in 0..<width {
            let levels = (sums[x].clamped(lowerBound: .zero, upperBound: largest) &+ divisor / 2) / divisor
            let pixel = SIMD4<UInt8>(truncatingIfNeeded: levels.replacing(with: levels[3], where: levels .> levels[3]))
            output.storeBytes(of: pixel, toByteOffset: 4 * x, as: SIMD4<UInt8>.self)
        }
    }
}

/// Resamples a whole straight RGBA8 image in memory (a convenience built on
/// `StreamingResampler`, with the same filter, alpha policy and determinism).
/// Returns premultiplied RGBA8, `toWidth * toHeight * 4` bytes.
public func resample(pixels: [UInt8], width: Int, height: Int, toWidth: Int, toHeight: Int) -> [UInt8] {
    precondition(pixels.count == width * height * 4, "pixels must hold width * height * 4 bytes")
    let resampler = StreamingResampler(sourceWidth: width, sourceHeight: height, targetWidth: toWidth, targetHeight: toHeight)
    var output = [UInt8](repeating: 0, count: toWidth * toHeight * 4)
    let rowBytes = width * 4, targetRowBytes = toWidth * 4
    pixels.withUnsafeBufferPointer { pixels in
        output.withUnsafeMutableBufferPointer { output in
            for y in 0..<height {
                resampler.push(row: UnsafeBufferPointer(rebasing: pixels[y * rowBytes ..< (y + 1) * rowBytes])) { targetY, row in
                    _ = UnsafeMutableBufferPointer(rebasing: output[targetY * targetRowBytes ..< (targetY + 1) * targetRowBytes])
                        .initialize(from: row)
                }
            }
        }
    }
    return output
}
