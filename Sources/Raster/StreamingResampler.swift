#if !_endian(little)
#error("Raster (premultipliedChannels, compositeOver) reads alpha as the high byte of a little-endian pixel word")
#endif

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
/// - Sources: straight-alpha RGBA8, or opaque RGBA8, RGB8 or grey8 (`PixelFormat`); the
///   output is the same for the same colours whatever the layout.
///
/// One instance resamples one image: call `push(row:emit:)` exactly `sourceHeight` times.
/// The last push emits the last target rows. If `emit` throws, discard the instance.
public final class StreamingResampler {
    public let sourceWidth: Int
    public let sourceHeight: Int
    public let targetWidth: Int
    public let targetHeight: Int
    public let sourceFormat: PixelFormat
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
    /// Subtracted from shrunk samples so they fit an Int16; since the weights of every output
    /// sum to exactly one unit, the filtered sum is off by exactly `sampleOffset` units.
    private static let sampleOffset: Int32 = 32768

    // Working buffers, allocated once. Premultiplied samples are in 0...maxSample, and one
    // SIMD4<Int32> holds a pixel's R, G, B, A.
    /// Column sums of the current group of up to `vertical.shrinkFactor` source rows: one
    /// lane per source byte (premultiplied for `.rgba8`, raw otherwise), added with
    /// whole-row vector operations, plus one pixel of zero lanes so a 4-lane load at any
    /// pixel stays inside. `shrinkGroup` sums the horizontal blocks once per group.
    /// A lane holds at most `AxisPlan.maxShrinkFactor` samples of at most 255 * 255: < 2^31.
    private let rowSums: UnsafeMutableBufferPointer<UInt32>
    /// One box-shrunk row, samples minus `sampleOffset` (`horizontal.shrunkSize` pixels, then
    /// one zero pixel that pairs with the last one in `shrunkPairs`).
    private let shrunkRow: UnsafeMutableBufferPointer<SIMD4<Int16>>
    /// Pixel j and j + 1 of `shrunkRow` minus `sampleOffset`, channels interleaved as 16-bit
    /// lanes (R_j, R_j+1, G_j, G_j+1, ...): one multiply-add instruction applies two taps.
    private let shrunkPairs: UnsafeMutableBufferPointer<SIMD8<Int16>>
    /// Fixed-point 1 / (block width * `reciprocalsGroupHeight`) per shrunk column.
    private let blockReciprocals: UnsafeMutableBufferPointer<Int>
    private var reciprocalsGroupHeight = 0
    /// The last `vertical.filter.tapCount` horizontally reduced rows (`targetWidth` pixels
    /// each); shrunk row r lives in slot r % tapCount.
    /// Samples are stored minus `sampleOffset`, as 16-bit lanes; one padding pixel follows
    /// the last slot so the vertical pass may read pixels two at a time.
    private let reducedRows: UnsafeMutableBufferPointer<SIMD4<Int16>>
    /// The horizontal weights in pairs of taps (w_t, w_t+1 repeated four times; an odd last tap
    /// pairs with 0), `horizontalPairCount` per target pixel.
    private let horizontalWeightPairs: UnsafeMutableBufferPointer<SIMD8<Int16>>
    private let horizontalPairCount: Int
    /// For one target row: the reduced rows with a non-zero vertical weight (an even count,
    /// padded with a weight 0), and those weights in pairs as in `horizontalWeightPairs`.
    private let verticalTapRows: UnsafeMutableBufferPointer<UnsafePointer<SIMD4<Int16>>>
    private let verticalWeightPairs: UnsafeMutableBufferPointer<SIMD8<Int16>>
    /// The vertical weights of target row `emittedRowCount`, and its first input.
    private let verticalRowWeights: UnsafeMutableBufferPointer<Int32>
    private var verticalNextFirstInput: Int
    /// The row handed to `emit`: interleaved premultiplied RGBA8.
    private let targetRow: UnsafeMutableBufferPointer<UInt8>

    private var rowsInGroup = 0
    private var shrunkRowCount = 0

    /// `sourceFormat` is the layout of the rows that will be pushed; every format but `.rgba8`
    /// promises an opaque source, whose block sums hold raw samples (the premultiply's factor
    /// 255 is folded into `blockReciprocals`).
    public init(sourceWidth: Int, sourceHeight: Int, targetWidth: Int, targetHeight: Int,
                sourceFormat: PixelFormat = .rgba8) {
        self.sourceFormat = sourceFormat
        horizontal = AxisPlan(sourceSize: sourceWidth, targetSize: targetWidth)
        // Vertical weights of very tall targets are computed a row at a time, so memory stays
        // independent of the height; up to 64 Ki rows (at most 6.5 MB of weights) they are kept.
        vertical = AxisPlan(sourceSize: sourceHeight, targetSize: targetHeight, storingWeights: targetHeight <= 1 << 16)
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
        rowSums = .allocate(capacity: sourceFormat.bytesPerPixel * sourceWidth + 4)
        rowSums.initialize(repeating: 0)
        // The 16-bit horizontal pass needs every weight within Int16 (they are within 1.3 units
        // of 2^14 for every window the filters can have) and, with samples offset into
        // -32768...32767, partial sums within Int32 (implied by the bound above).
        for plan in [horizontal, vertical] {
            precondition(plan.filter.maxAbsoluteWeight <= Int32(Int16.max),
                         "filter weights too large for 16-bit lanes")
        }
        shrunkRow = .allocate(capacity: horizontal.shrunkSize + 1)
        shrunkRow.initialize(repeating: .zero)
        shrunkPairs = .allocate(capacity: horizontal.shrunkSize)
        shrunkPairs.initialize(repeating: .zero)
        blockReciprocals = .allocate(capacity: horizontal.shrunkSize)
        blockReciprocals.initialize(repeating: 0)
        reducedRows = .allocate(capacity: targetWidth * vertical.filter.tapCount + 1)
        reducedRows.initialize(repeating: .zero)
        let tapCount = horizontal.filter.tapCount, pairCount = (tapCount + 1) / 2
        horizontalPairCount = pairCount
        horizontalWeightPairs = .allocate(capacity: targetWidth * pairCount)
        for x in 0..<targetWidth {
            for pair in 0..<pairCount {
                let first = Int16(horizontal.filter.weights[x * tapCount + 2 * pair])
                let second = 2 * pair + 1 < tapCount ? Int16(horizontal.filter.weights[x * tapCount + 2 * pair + 1]) : 0
                (horizontalWeightPairs.baseAddress! + x * pairCount + pair)
                    .initialize(to: Self.weightPair(first, second))
            }
        }
        verticalTapRows = .allocate(capacity: vertical.filter.tapCount + 1)
        verticalRowWeights = .allocate(capacity: vertical.filter.tapCount)
        verticalNextFirstInput = vertical.filter.row(0, into: verticalRowWeights)
        verticalWeightPairs = .allocate(capacity: (vertical.filter.tapCount + 1) / 2)
        targetRow = .allocate(capacity: 4 * targetWidth)
        targetRow.initialize(repeating: 0)
    }

    deinit {
        rowSums.deallocate()
        shrunkRow.deallocate()
        blockReciprocals.deallocate()
        reducedRows.deallocate()
        shrunkPairs.deallocate()
        horizontalWeightPairs.deallocate()
        verticalTapRows.deallocate()
        verticalRowWeights.deallocate()
        verticalWeightPairs.deallocate()
        targetRow.deallocate()
    }

    /// Feeds the next source row (`sourceWidth * sourceFormat.bytesPerPixel` bytes, top to bottom).
    ///
    /// `emit` is called zero or more times with `(targetRowIndex, row)`, `row` being
    /// premultiplied RGBA8 of `targetWidth * 4` bytes, valid only during the call. Indices
    /// increase by one from 0; after the last source row all `targetHeight` rows are out.
    public func push(row: UnsafeBufferPointer<UInt8>,
                     emit: (Int, UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
        precondition(row.count == sourceFormat.bytesPerPixel * sourceWidth, "a source row must hold sourceWidth * bytesPerPixel bytes")
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
              verticalNextFirstInput + tapCount <= shrunkRowCount {
            reduceVertically(firstInput: verticalNextFirstInput, weights: verticalRowWeights)
            try emit(emittedRowCount, UnsafeBufferPointer(targetRow))
            emittedRowCount += 1
            if emittedRowCount < targetHeight {
                verticalNextFirstInput = vertical.filter.row(emittedRowCount, into: verticalRowWeights)
            }
        }
    }

    /// Adds one source row into `rowSums` (premultiplied if it has a real alpha channel); the
    /// first row of a group replaces the sums.
    private func addPremultiplied(_ row: UnsafeBufferPointer<UInt8>) {
        let source = row.baseAddress!, first = rowsInGroup == 0
        // Constant arguments to an always-inlined function: each call is specialised.
        switch (sourceFormat == .rgba8, first) {
        case (true, true): accumulate(source, first: true, premultiply: true)
        case (true, false): accumulate(source, first: false, premultiply: true)
        case (false, true): accumulate(source, first: true, premultiply: false)
        case (false, false): accumulate(source, first: false, premultiply: false)
        }
    }

    /// Adds the row's bytes, widened (and premultiplied if asked), to the matching lanes of
    /// `rowSums` (`first`: replaces them), 16 bytes a step.
    @inline(__always)
    private func accumulate(_ source: UnsafePointer<UInt8>, first: Bool, premultiply: Bool) {
        @inline(__always) func widen(_ bytes: SIMD16<UInt8>) -> SIMD16<UInt32> {
            premultiply ? Self.premultipliedChannels(bytes) : SIMD16<UInt32>(truncatingIfNeeded: bytes)
        }
        // Unsafe hot loop: the row holds bytesPerPixel * sourceWidth bytes (checked in push), and
        // rowSums more lanes than that.
        let lanes = UnsafeMutableRawPointer(rowSums.baseAddress!), byteCount = sourceFormat.bytesPerPixel * sourceWidth
        let laneBytes = MemoryLayout<UInt32>.stride
        var offset = 0
        if first {
            while offset + 16 <= byteCount {
                lanes.storeBytes(of: widen(UnsafeRawPointer(source + offset).loadUnaligned(as: SIMD16<UInt8>.self)),
                                 toByteOffset: offset * laneBytes, as: SIMD16<UInt32>.self)
                offset += 16
            }
        } else {
            while offset + 16 <= byteCount {
                let sums = lanes.loadUnaligned(fromByteOffset: offset * laneBytes, as: SIMD16<UInt32>.self)
                lanes.storeBytes(of: sums &+ widen(UnsafeRawPointer(source + offset).loadUnaligned(as: SIMD16<UInt8>.self)),
                                 toByteOffset: offset * laneBytes, as: SIMD16<UInt32>.self)
                offset += 16
            }
        }
        // The last bytes one by one (offset is a multiple of 16, so byte i's pixel has its
        // alpha at i | 3 when there is one).
        let sums = rowSums.baseAddress!
        for index in offset..<byteCount {
            var value = UInt32(source[index])
            if premultiply { value &*= index & 3 == 3 ? 255 : UInt32(source[index | 3]) }
            sums[index] = (first ? 0 : sums[index]) &+ value
        }
    }

    /// Four straight RGBA8 pixels premultiplied exactly, each (r·a, g·a, b·a, 255·a): the
    /// factor bytes (a, a, a, 255) come from each pixel's 32-bit word. (Multiplying in 32-bit
    /// lanes: the 16-bit form made the compiler call the generic widening out of line.)
    @inline(__always)
    private static func premultipliedChannels(_ pixels: SIMD16<UInt8>) -> SIMD16<UInt32> {
        let words = unsafeBitCast(pixels, to: SIMD4<UInt32>.self)
        let factors = unsafeBitCast((words &>> 24) &* 0x0001_0101 | 0xFF00_0000, to: SIMD16<UInt8>.self)
        return SIMD16<UInt32>(truncatingIfNeeded: pixels) &* SIMD16<UInt32>(truncatingIfNeeded: factors)
    }

    /// Turns the block sums of the current group of rows into one box-shrunk row
    /// (block averages, rounded) and clears the sums for the next group.
    private func shrinkGroup() {
        let groupHeight = rowsInGroup
        if reciprocalsGroupHeight != groupHeight {
            reciprocalsGroupHeight = groupHeight
            let blockWidth = horizontal.shrinkFactor
            for column in 0..<horizontal.shrunkSize {
                let pixelCount = min(blockWidth, sourceWidth - column * blockWidth) * groupHeight
                // Raw opaque sums need the premultiply's factor 255: (sum · 255) · r == sum · (255 · r).
                blockReciprocals[column] = (sourceFormat == .rgba8 ? 1 : 255) * (((1 << Self.reciprocalBits) + pixelCount / 2) / pixelCount)
            }
        }
        rowsInGroup = 0
        // An opaque layout without alpha lanes sums alpha 255 per pixel and row, which the
        // reciprocals turn into exactly 255 * 255.
        let sums = UnsafeRawPointer(rowSums.baseAddress!), alphaSum = UInt32(255 * groupHeight)
        switch sourceFormat {
        case .rgba8, .opaqueRGBA8:
            shrinkBlocks { sums.loadUnaligned(fromByteOffset: 16 &* $0, as: SIMD4<UInt32>.self) }
        case .rgb8:
            // Lane 3 of this load is the next pixel's red (or the zero padding): replaced.
            shrinkBlocks { x in
                var pixel = sums.loadUnaligned(fromByteOffset: 12 &* x, as: SIMD4<UInt32>.self)
                pixel[3] = alphaSum
                return pixel
            }
        case .grey8:
            shrinkBlocks { x in
                let grey = sums.load(fromByteOffset: 4 &* x, as: UInt32.self)
                return SIMD4(grey, grey, grey, alphaSum)
            }
        }
    }

    /// Sums each block of `horizontal.shrinkFactor` pixels of the group (`pixelSums(x)` is
    /// source column x's R, G, B, A sums) and stores the rounded averages in `shrunkRow`.
    @inline(__always)
    private func shrinkBlocks(_ pixelSums: (Int) -> SIMD4<UInt32>) {
        let blockWidth = horizontal.shrinkFactor, width = sourceWidth
        let shrunk = shrunkRow.baseAddress!, reciprocals = blockReciprocals.baseAddress!
        if blockWidth == 1 && reciprocalsGroupHeight == 1 {
            // Blocks of one pixel: the average is the sum (times the premultiply's 255 for
            // raw opaque samples), exactly what the reciprocal would give.
            let factor = SIMD4<UInt32>(repeating: sourceFormat == .rgba8 ? 1 : 255)
            let offset = SIMD4<UInt32>(repeating: UInt32(Self.sampleOffset))
            for x in 0..<width { shrunk[x] = SIMD4(truncatingIfNeeded: pixelSums(x) &* factor &- offset) }
            return
        }
        let half = SIMD4<Int>(repeating: 1 << (Self.reciprocalBits - 1))
        let offset = SIMD4<Int>(repeating: Int(Self.sampleOffset))
        var x = 0
        for column in 0..<horizontal.shrunkSize {
            let end = min(x &+ blockWidth, width)
            var block = SIMD4<Int>.zero
            while x < end {
                block &+= SIMD4<Int>(truncatingIfNeeded: pixelSums(x))
                x &+= 1
            }
            let average = (block &* reciprocals[column] &+ half) &>> Self.reciprocalBits
            shrunk[column] = SIMD4(truncatingIfNeeded: average &- offset)
        }
    }

    /// Filters `shrunkRow` horizontally into `reducedRows`, starting at pixel `offset`.
    private func reduceHorizontally(into offset: Int) {
        let shrunk = UnsafeRawPointer(shrunkRow.baseAddress!), pairs = shrunkPairs.baseAddress!
        for j in 0..<horizontal.shrunkSize {
            let both = shrunk.loadUnaligned(fromByteOffset: 8 &* j, as: SIMD8<Int16>.self)  // pixels j, j + 1
            pairs[j] = SIMD8(both[0], both[4], both[1], both[5], both[2], both[6], both[3], both[7])
        }
        // The weights sum to 2^fractionBits, so adding sampleOffset << fractionBits restores
        // the offset; the rounding half is folded in too.
        let start = SIMD4<Int32>(repeating: (Self.sampleOffset << FilterWeights.fractionBits) + (1 << (FilterWeights.fractionBits - 1)))
        let maxSample = SIMD4<Int32>(repeating: Self.maxSample), sampleOffset = SIMD4<Int32>(repeating: Self.sampleOffset)
        let pairCount = horizontalPairCount
        // Unsafe hot loop: firstInput[x] + tapCount <= shrunkSize by construction (a pair's
        // second tap may be the padding pixel, with weight 0), and the init's preconditions
        // bound every product pair and partial sum inside Int32 (wrapping adds of partial
        // sums give the same total).
        horizontal.filter.firstInput.withUnsafeBufferPointer { firstInput in
            let output = reducedRows.baseAddress! + offset, weights = horizontalWeightPairs.baseAddress!
            for x in 0..<targetWidth {
                let taps = pairs + firstInput[x], tapWeights = weights + x &* pairCount
                var sum = start
                for pair in 0..<pairCount {
                    let products = SIMD8<Int32>(truncatingIfNeeded: taps[2 &* pair]) &* SIMD8<Int32>(truncatingIfNeeded: tapWeights[pair])
                    sum &+= products.evenHalf &+ products.oddHalf
                }
                let sample = (sum &>> Int32(FilterWeights.fractionBits)).clamped(lowerBound: .zero, upperBound: maxSample)
                output[x] = SIMD4(truncatingIfNeeded: sample &- sampleOffset)
            }
        }
    }

    /// Filters the held reduced rows from `firstInput` on, with `weights`, vertically into
    /// `targetRow` (premultiplied RGBA8).
    private func reduceVertically(firstInput: Int, weights rowWeights: UnsafeMutableBufferPointer<Int32>) {
        let tapCount = vertical.filter.tapCount, width = targetWidth
        var usedTaps = 0
        var firstOfPair: Int16 = 0
        for tap in 0..<tapCount {
            let weight = Int16(rowWeights[tap])
            if weight == 0 { continue }
            verticalTapRows[usedTaps] = UnsafePointer(reducedRows.baseAddress! + width * ((firstInput + tap) % tapCount))
            if usedTaps % 2 == 0 {
                firstOfPair = weight
            } else {
                verticalWeightPairs[usedTaps / 2] = Self.weightPair(firstOfPair, weight)
            }
            usedTaps += 1
        }
        if usedTaps % 2 == 1 {
            verticalTapRows[usedTaps] = verticalTapRows[usedTaps - 1]
            verticalWeightPairs[usedTaps / 2] = Self.weightPair(firstOfPair, 0)
            usedTaps += 1
        }
        // Sums are in units of 1/255 of an 8-bit level, times 2^fractionBits: one rounded
        // division by 255 << fractionBits brings them to 8 bits, done exactly as a shift by
        // fractionBits then a multiply-shift by 1/255 (exact for every value up to 65152);
        // then colour is clamped to alpha. They start at sampleOffset units, which undoes the
        // offset of the stored samples (the weights sum to one unit).
        let start = SIMD4<Int32>(repeating: Self.sampleOffset << FilterWeights.fractionBits)
        let rounding = SIMD4<Int32>(repeating: 255 << (FilterWeights.fractionBits - 1))
        let largest = SIMD4<Int32>(repeating: Self.maxSample << FilterWeights.fractionBits)
        let output = UnsafeMutableRawPointer(targetRow.baseAddress!)
        let rows = verticalTapRows.baseAddress!, weights = verticalWeightPairs.baseAddress!
        func store(_ sum: SIMD4<Int32>, at x: Int) {
            let scaled = (sum.clamped(lowerBound: .zero, upperBound: largest) &+ rounding) &>> Int32(FilterWeights.fractionBits)
            let levels = (scaled &* 32897) &>> 23
            let pixel = SIMD4<UInt8>(truncatingIfNeeded: pointwiseMin(levels, SIMD4(repeating: levels[3])))
            output.storeBytes(of: pixel, toByteOffset: 4 &* x, as: SIMD4<UInt8>.self)
        }
        // Unsafe hot loop: two pixels a step (an odd width's last step reads the padding pixel
        // after the slot and drops its result); each pair of taps interleaves the two rows'
        // 16-bit samples so one multiply-add applies both weights. Overflow bounded as in
        // reduceHorizontally.
        var x = 0
        while x < width {
            var left = start, right = start
            for pair in 0..<(usedTaps / 2) {
                let upper = UnsafeRawPointer(rows[2 &* pair] + x).loadUnaligned(as: SIMD8<Int16>.self)
                let lower = UnsafeRawPointer(rows[2 &* pair &+ 1] + x).loadUnaligned(as: SIMD8<Int16>.self)
                let weight = SIMD8<Int32>(truncatingIfNeeded: weights[pair])
                let leftPairs = SIMD8(upper[0], lower[0], upper[1], lower[1], upper[2], lower[2], upper[3], lower[3])
                let rightPairs = SIMD8(upper[4], lower[4], upper[5], lower[5], upper[6], lower[6], upper[7], lower[7])
                let leftProducts = SIMD8<Int32>(truncatingIfNeeded: leftPairs) &* weight
                let rightProducts = SIMD8<Int32>(truncatingIfNeeded: rightPairs) &* weight
                left &+= leftProducts.evenHalf &+ leftProducts.oddHalf
                right &+= rightProducts.evenHalf &+ rightProducts.oddHalf
            }
            store(left, at: x)
            if x &+ 1 < width { store(right, at: x &+ 1) }
            x &+= 2
        }
    }

    /// Two weights repeated for the four channels: (a, b, a, b, a, b, a, b).
    private static func weightPair(_ first: Int16, _ second: Int16) -> SIMD8<Int16> {
        SIMD8(first, second, first, second, first, second, first, second)
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
