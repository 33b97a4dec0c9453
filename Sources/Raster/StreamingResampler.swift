import CRasterKernels

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
/// - Speed: on a CPU with AVX2 the two filter passes are CRasterKernels' AVX2 code (four
///   taps or four pixels a step), elsewhere the Swift code below; the integers are the same.
///   The AVX2 passes also skip work that flat areas make redundant (drawings, screenshots and
///   scans are mostly flat): a row equal to the row before reuses its horizontal result, and
///   four target pixels whose rows all hold the same samples are that colour, since the
///   weights sum to one. The box shrink of an opaque layout sums its columns in 16-bit lanes
///   there (groups of up to 257 rows), with the block averages in AVX2 as well.
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
    /// (Not allocated when `columnSums16` is.)
    private let rowSums: UnsafeMutableBufferPointer<UInt32>
    /// With AVX2, for an opaque layout in groups of at most `maxGroupFor16BitSums` rows: the same
    /// column sums in 16-bit lanes (`mrk_box_add_columns_avx2`), half the memory traffic and twice
    /// the lanes of a step; padded so that the block pass may read a lane past the last pixel.
    private let columnSums16: UnsafeMutableBufferPointer<UInt16>
    /// Whether this resampler's box shrink uses `columnSums16` (else `rowSums`).
    private let sumsColumnsIn16Bits: Bool
    /// 257 rows of 255 fit a 16-bit lane.
    private static let maxGroupFor16BitSums = 257
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
    /// The portable pass's horizontal weights in pairs of taps (w_t, w_t+1 repeated four times;
    /// an odd last tap pairs with 0), `horizontalPairCount` per target pixel.
    private let horizontalWeightPairs: UnsafeMutableBufferPointer<SIMD8<Int16>>
    private let horizontalPairCount: Int
    /// For one target row: the reduced rows with a non-zero vertical weight (an even count,
    /// padded with a weight 0), and (portable pass) those weights in pairs as in
    /// `horizontalWeightPairs`; their weights one a row are `verticalTapWeights`.
    private let verticalTapRows: UnsafeMutableBufferPointer<UnsafePointer<SIMD4<Int16>>>
    private let verticalWeightPairs: UnsafeMutableBufferPointer<SIMD8<Int16>>
    /// The vertical weights of target row `emittedRowCount`, and its first input.
    private let verticalRowWeights: UnsafeMutableBufferPointer<Int32>
    private var verticalNextFirstInput: Int
    /// The row handed to `emit`: interleaved premultiplied RGBA8.
    private let targetRow: UnsafeMutableBufferPointer<UInt8>

    private var rowsInGroup = 0
    private var shrunkRowCount = 0

    let kernels: RasterKernels
    /// AVX2 only: the shrunk row as quads of four pixels (see `mrk_build_quads`), each target
    /// pixel's first quad, and its horizontal weights in quads (16 Int16 each): the taps placed
    /// by their pixel's position in its quad, zero before the first tap and after the last.
    /// Each pixel is converted into one quad, once (a quad at every pixel, so that every window
    /// started on a quad boundary, cost four stores a pixel and a seventh of a JPEG sheet's CPU).
    private let shrunkQuads: UnsafeMutableBufferPointer<Int16>
    private let horizontalFirstQuads: UnsafeMutableBufferPointer<Int64>
    private let horizontalWeightQuads: UnsafeMutableBufferPointer<Int16>
    private let horizontalQuadCount: Int
    /// AVX2 only: for each slot of `reducedRows`, bit k set when its pixels 4k...4k+3 equal those
    /// of the reduced row before it (`mrk_same_chunks`); and, for the target row being filtered,
    /// the chunks equal in every row it reads, for which the vertical pass reads one row.
    private let reducedSameChunks: UnsafeMutableBufferPointer<UInt64>
    private let flatChunks: UnsafeMutableBufferPointer<UInt64>
    private let chunkWords: Int
    /// Rows left before the AVX2 passes look for flat areas again: a reduced row with few
    /// chunks equal to the row before (a photo's) pauses the looking for `flatPauseRows` rows,
    /// so that photos pay little for it.
    private var untrackedRows = 0
    private static let flatPauseRows = 16
    /// The weights of `verticalTapRows`, one a row.
    private let verticalTapWeights: UnsafeMutableBufferPointer<Int16>

    /// `sourceFormat` is the layout of the rows that will be pushed; every format but `.rgba8`
    /// promises an opaque source, whose block sums hold raw samples (the premultiply's factor
    /// 255 is folded into `blockReciprocals`).
    ///
    /// `sourceExtent` is the source's size in its own pixels when its last column or row
    /// stands for only part of a pixel's span: libjpeg scales a 451-pixel side by ½ to 226
    /// pixels whose extent is 225.5. The filter then maps the target to that extent, so the
    /// picture is neither stretched nor shifted (nil: the whole source).
    public convenience init(sourceWidth: Int, sourceHeight: Int, targetWidth: Int, targetHeight: Int,
                            sourceFormat: PixelFormat = .rgba8, sourceExtent: (width: Double, height: Double)? = nil) {
        self.init(sourceWidth: sourceWidth, sourceHeight: sourceHeight, targetWidth: targetWidth,
                  targetHeight: targetHeight, sourceFormat: sourceFormat, sourceExtent: sourceExtent, kernels: .best)
    }

    /// `kernels` chooses the filter passes' code (tests compare the two).
    init(sourceWidth: Int, sourceHeight: Int, targetWidth: Int, targetHeight: Int,
         sourceFormat: PixelFormat, sourceExtent: (width: Double, height: Double)? = nil, kernels: RasterKernels) {
        self.sourceFormat = sourceFormat
        self.kernels = kernels
        horizontal = AxisPlan.shared(sourceSize: sourceWidth, targetSize: targetWidth, sourceExtent: sourceExtent?.width)
        // Vertical weights of very tall targets are computed a row at a time, so memory stays
        // independent of the height; up to 64 Ki rows (at most 6.5 MB of weights) they are kept.
        vertical = targetHeight <= 1 << 16
            ? AxisPlan.shared(sourceSize: sourceHeight, targetSize: targetHeight, sourceExtent: sourceExtent?.height)
            : AxisPlan(sourceSize: sourceHeight, targetSize: targetHeight, sourceExtent: sourceExtent?.height, storingWeights: false)
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
        let shrinks = horizontal.shrinkFactor > 1 || vertical.shrinkFactor > 1
        sumsColumnsIn16Bits = shrinks && kernels == .avx2 && sourceFormat != .rgba8
            && vertical.shrinkFactor <= Self.maxGroupFor16BitSums
        let sumLanes = shrinks ? sourceFormat.bytesPerPixel * sourceWidth + 4 : 0
        rowSums = .allocate(capacity: sumsColumnsIn16Bits ? 0 : sumLanes)
        rowSums.initialize(repeating: 0)
        columnSums16 = .allocate(capacity: sumsColumnsIn16Bits ? sumLanes : 0)
        columnSums16.initialize(repeating: 0)
        // The 16-bit horizontal pass needs every weight within Int16 (they are within 1.3 units
        // of 2^14 for every window the filters can have) and, with samples offset into
        // -32768...32767, partial sums within Int32 (implied by the bound above).
        for plan in [horizontal, vertical] {
            precondition(plan.filter.maxAbsoluteWeight <= Int32(Int16.max),
                         "filter weights too large for 16-bit lanes")
        }
        // Zero pixels after the row: one for the portable pass's last pair, three for the last quad.
        shrunkRow = .allocate(capacity: horizontal.shrunkSize + 3)
        shrunkRow.initialize(repeating: .zero)
        shrunkPairs = .allocate(capacity: kernels == .portable ? horizontal.shrunkSize : 0)
        shrunkPairs.initialize(repeating: .zero)
        blockReciprocals = .allocate(capacity: horizontal.shrunkSize)
        blockReciprocals.initialize(repeating: 0)
        // Padding after the last slot: the portable pass reads one pixel past a row, AVX2 three.
        reducedRows = .allocate(capacity: targetWidth * vertical.filter.tapCount + 3)
        reducedRows.initialize(repeating: .zero)
        let tapCount = horizontal.filter.tapCount, pairCount = (tapCount + 1) / 2
        horizontalPairCount = pairCount
        // Each pass's weight layout is made only for the code that runs it.
        horizontalWeightPairs = .allocate(capacity: kernels == .portable ? targetWidth * pairCount : 0)
        for x in 0..<(kernels == .portable ? targetWidth : 0) {
            for pair in 0..<pairCount {
                let first = Int16(horizontal.filter.weights[x * tapCount + 2 * pair])
                let second = 2 * pair + 1 < tapCount ? Int16(horizontal.filter.weights[x * tapCount + 2 * pair + 1]) : 0
                (horizontalWeightPairs.baseAddress! + x * pairCount + pair)
                    .initialize(to: Self.weightPair(first, second))
            }
        }
        // A window starting up to three pixels into its first quad spans (tapCount + 3) / 4 quads, rounded up.
        let quadCount = kernels == .avx2 ? (tapCount + 6) / 4 : 0
        horizontalQuadCount = quadCount
        // The row's quads, then zero quads for the windows that run past it.
        let rowQuads = (horizontal.shrunkSize + 3) / 4
        shrunkQuads = .allocate(capacity: quadCount == 0 ? 0 : 16 * (rowQuads + quadCount))
        shrunkQuads.initialize(repeating: 0)
        horizontalFirstQuads = .allocate(capacity: quadCount == 0 ? 0 : targetWidth)
        horizontalWeightQuads = .allocate(capacity: 16 * quadCount * targetWidth)
        horizontalWeightQuads.initialize(repeating: 0)
        chunkWords = (targetWidth + 3) / 4 / 64 + 1
        reducedSameChunks = .allocate(capacity: quadCount == 0 ? 0 : chunkWords * vertical.filter.tapCount)
        reducedSameChunks.initialize(repeating: 0)
        flatChunks = .allocate(capacity: quadCount == 0 ? 0 : chunkWords)
        flatChunks.initialize(repeating: 0)
        for x in 0..<(quadCount == 0 ? 0 : targetWidth) {
            let first = horizontal.filter.firstInput[x]
            horizontalFirstQuads[x] = Int64(first / 4)
            for tap in 0..<tapCount {
                // Quad q holds pixels 4q...4q+3, weighted as (w0 w1) x 4, then (w2 w3) x 4.
                let position = first % 4 + tap
                let quad = position / 4, within = position % 4
                let base = 16 * (x * quadCount + quad) + (within < 2 ? 0 : 8) + within % 2
                for channel in 0..<4 {
                    horizontalWeightQuads[base + 2 * channel] = Int16(horizontal.filter.weights[x * tapCount + tap])
                }
            }
        }
        verticalTapRows = .allocate(capacity: vertical.filter.tapCount + 1)
        verticalTapWeights = .allocate(capacity: vertical.filter.tapCount + 1)
        verticalRowWeights = .allocate(capacity: vertical.filter.tapCount)
        verticalNextFirstInput = vertical.filter.row(0, into: verticalRowWeights)
        verticalWeightPairs = .allocate(capacity: (vertical.filter.tapCount + 1) / 2)
        targetRow = .allocate(capacity: 4 * targetWidth)
        targetRow.initialize(repeating: 0)
    }

    deinit {
        rowSums.deallocate()
        columnSums16.deallocate()
        shrunkRow.deallocate()
        blockReciprocals.deallocate()
        reducedRows.deallocate()
        shrunkPairs.deallocate()
        horizontalWeightPairs.deallocate()
        verticalTapRows.deallocate()
        verticalTapWeights.deallocate()
        shrunkQuads.deallocate()
        horizontalFirstQuads.deallocate()
        horizontalWeightQuads.deallocate()
        reducedSameChunks.deallocate()
        flatChunks.deallocate()
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
        pushedRowCount += 1
        let unshrunk = horizontal.shrinkFactor == 1 && vertical.shrinkFactor == 1
        var quadsUnchanged = false
        if unshrunk && kernels == .avx2 {
            // The same samples as storeUnshrunk, straight into the horizontal pass's quads.
            quadsUnchanged = mrk_quads_from_row(row.baseAddress!, sourceWidth, sourceFormat.kernelLayout, shrunkQuads.baseAddress!,
                                                untrackedRows == 0 ? 1 : 0) != 0
        } else if unshrunk {
            storeUnshrunk(row)
        } else {
            if sumsColumnsIn16Bits {
                mrk_box_add_columns_avx2(row.baseAddress!, row.count, columnSums16.baseAddress!, rowsInGroup == 0 ? 1 : 0)
            } else {
                addPremultiplied(row)
            }
            rowsInGroup += 1
            guard rowsInGroup == vertical.shrinkFactor || pushedRowCount == sourceHeight else { return }
            shrinkGroup()
        }
        let tapCount = vertical.filter.tapCount
        reduceHorizontally(row: shrunkRowCount, quadsBuilt: unshrunk, quadsUnchanged: quadsUnchanged)
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

    /// Without a box shrink on either axis (every ratio below 4, and every enlargement), writes
    /// the row straight into `shrunkRow`: each pixel's premultiplied samples minus
    /// `sampleOffset`, in 16-bit lanes, the same values `shrinkGroup` gives for blocks of one
    /// pixel (`(c·a, ..., 255·a)`, or `(c·255, ..., 255·255)` for an opaque layout), without
    /// the 32-bit sums in between. A product is at most 255·255, so 16-bit lanes hold it.
    private func storeUnshrunk(_ row: UnsafeBufferPointer<UInt8>) {
        let source = UnsafeRawPointer(row.baseAddress!), width = sourceWidth
        let output = UnsafeMutableRawPointer(shrunkRow.baseAddress!)
        let offset = UInt16(Self.sampleOffset)
        // Bytes widened to 16-bit lanes by interleaving with zero bytes (the generic widening
        // initialiser was compiled to an out-of-line call).
        @inline(__always) func widened(_ v: SIMD16<UInt8>) -> (low: SIMD8<UInt16>, high: SIMD8<UInt16>) {
            let low = SIMD16<UInt8>(v[0], 0, v[1], 0, v[2], 0, v[3], 0, v[4], 0, v[5], 0, v[6], 0, v[7], 0)
            let high = SIMD16<UInt8>(v[8], 0, v[9], 0, v[10], 0, v[11], 0, v[12], 0, v[13], 0, v[14], 0, v[15], 0)
            return (unsafeBitCast(low, to: SIMD8<UInt16>.self), unsafeBitCast(high, to: SIMD8<UInt16>.self))
        }
        @inline(__always) func store(_ samples: SIMD16<UInt8>, times factors: SIMD16<UInt8>, at x: Int) {
            let (sampleLow, sampleHigh) = widened(samples), (factorLow, factorHigh) = widened(factors)
            output.storeBytes(of: sampleLow &* factorLow &- offset, toByteOffset: 8 &* x, as: SIMD8<UInt16>.self)
            output.storeBytes(of: sampleHigh &* factorHigh &- offset, toByteOffset: 8 &* x &+ 16, as: SIMD8<UInt16>.self)
        }
        let opaque = SIMD16<UInt8>(repeating: 255)
        // Unsafe hot loops, four pixels a step: each reads only bytes of the row (an RGB step
        // reads 16 bytes while at least 6 pixels remain) and writes pixels x..<x + 4 of
        // `shrunkRow`; the rest go one by one.
        var x = 0
        switch sourceFormat {
        case .rgba8, .opaqueRGBA8:
            let premultiply = sourceFormat == .rgba8
            while x &+ 4 <= width {
                let four = source.loadUnaligned(fromByteOffset: 4 &* x, as: SIMD16<UInt8>.self)
                if premultiply {
                    let words = unsafeBitCast(four, to: SIMD4<UInt32>.self)
                    store(four, times: unsafeBitCast((words &>> 24) &* 0x0001_0101 | 0xFF00_0000, to: SIMD16<UInt8>.self), at: x)
                } else {
                    store(four, times: opaque, at: x)
                }
                x &+= 4
            }
        case .rgb8:
            while x &+ 6 <= width {
                let b = source.loadUnaligned(fromByteOffset: 3 &* x, as: SIMD16<UInt8>.self)
                store(SIMD16(b[0], b[1], b[2], 255, b[3], b[4], b[5], 255, b[6], b[7], b[8], 255, b[9], b[10], b[11], 255),
                      times: opaque, at: x)
                x &+= 4
            }
        case .grey8:
            while x &+ 4 <= width {
                let g = source.loadUnaligned(fromByteOffset: x, as: SIMD4<UInt8>.self)
                store(SIMD16(g[0], g[0], g[0], 255, g[1], g[1], g[1], 255, g[2], g[2], g[2], 255, g[3], g[3], g[3], 255),
                      times: opaque, at: x)
                x &+= 4
            }
        }
        let bytes = row.baseAddress!, channels = sourceFormat.bytesPerPixel
        while x < width {
            let pixel = bytes + channels &* x
            let colour: SIMD4<UInt16> = switch sourceFormat {
            case .rgba8, .opaqueRGBA8: SIMD4(UInt16(pixel[0]), UInt16(pixel[1]), UInt16(pixel[2]), UInt16(pixel[3]))
            case .rgb8: SIMD4(UInt16(pixel[0]), UInt16(pixel[1]), UInt16(pixel[2]), 255)
            case .grey8: SIMD4(UInt16(pixel[0]), UInt16(pixel[0]), UInt16(pixel[0]), 255)
            }
            let factor = sourceFormat == .rgba8 ? SIMD4(colour[3], colour[3], colour[3], 255) : SIMD4(repeating: 255)
            output.storeBytes(of: colour &* factor &- offset, toByteOffset: 8 &* x, as: SIMD4<UInt16>.self)
            x &+= 1
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
        if sumsColumnsIn16Bits {
            let count = horizontal.shrunkSize
            blockReciprocals.baseAddress!.withMemoryRebound(to: Int64.self, capacity: count) { reciprocals in
                UnsafeMutableRawPointer(shrunkRow.baseAddress!).withMemoryRebound(to: Int16.self, capacity: 4 * count) { samples in
                    mrk_box_averages_from_columns_avx2(columnSums16.baseAddress!, sourceWidth, sourceFormat.kernelLayout,
                                                       horizontal.shrinkFactor, groupHeight, reciprocals,
                                                       Int32(Self.reciprocalBits), samples)
                }
            }
            return
        }
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

    /// Filters shrunk row `row` (`shrunkRow`) horizontally into its slot of `reducedRows`. With
    /// AVX2, `quadsBuilt` says the row's quads were made from the source row already, and
    /// `quadsUnchanged` that they were those of the row before (whose reduced row is then copied).
    private func reduceHorizontally(row: Int, quadsBuilt: Bool, quadsUnchanged: Bool) {
        let tapCount = vertical.filter.tapCount, slot = row % tapCount, offset = targetWidth * slot
        if kernels == .avx2 {
            // firstInput[x] / 4 + quadCount quads, within the row's quads and the zero ones after them.
            let quads = shrunkQuads.baseAddress!, tracking = untrackedRows == 0
            var unchanged = quadsUnchanged
            if !quadsBuilt {
                unchanged = UnsafeRawPointer(shrunkRow.baseAddress!).withMemoryRebound(to: Int16.self, capacity: 4 * (horizontal.shrunkSize + 3)) { pixels in
                    mrk_build_quads(pixels, horizontal.shrunkSize, quads, tracking ? 1 : 0) != 0
                }
            }
            let sameChunks = reducedSameChunks.baseAddress! + chunkWords * slot
            let previous = targetWidth * ((row + tapCount - 1) % tapCount)
            if unchanged && row > 0 {
                // The row before (still held) had these quads, so its reduced row is this one's.
                if previous != offset { (reducedRows.baseAddress! + offset).update(from: reducedRows.baseAddress! + previous, count: targetWidth) }
                sameChunks.update(repeating: ~0, count: chunkWords)
                return
            }
            let reduced = UnsafeMutableRawPointer(reducedRows.baseAddress!).assumingMemoryBound(to: Int16.self)
            mrk_horizontal_avx2(quads, horizontalFirstQuads.baseAddress!, horizontalWeightQuads.baseAddress!, horizontalQuadCount,
                                targetWidth, Self.maxSample, reduced + 4 * offset)
            // Which chunks equal the row before (a ring of one slot holds no row before).
            if tracking && row > 0 && tapCount > 1 {
                let same = mrk_same_chunks(reduced + 4 * offset, reduced + 4 * previous, targetWidth, sameChunks)
                if 8 * same < (targetWidth + 3) / 4 { untrackedRows = Self.flatPauseRows }
            } else {
                sameChunks.update(repeating: 0, count: chunkWords)
                if !tracking { untrackedRows -= 1 }
            }
            return
        }
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
        var usedTaps = 0, firstUsed = -1, lastUsed = -1
        for tap in 0..<tapCount {
            let weight = Int16(rowWeights[tap])
            if weight == 0 { continue }
            verticalTapRows[usedTaps] = UnsafePointer(reducedRows.baseAddress! + width * ((firstInput + tap) % tapCount))
            verticalTapWeights[usedTaps] = weight
            usedTaps += 1
            if firstUsed < 0 { firstUsed = firstInput + tap }
            lastUsed = firstInput + tap
        }
        if usedTaps % 2 == 1 {
            verticalTapRows[usedTaps] = verticalTapRows[usedTaps - 1]
            verticalTapWeights[usedTaps] = 0
            usedTaps += 1
        }
        if kernels == .avx2 {
            // A chunk is flat when it equals the row before in every row from the first read to
            // the last (the rows between them included, which is stricter).
            flatChunks.update(repeating: ~0)
            var anyFlat: UInt64 = ~0
            for row in stride(from: firstUsed + 1, through: lastUsed, by: 1) where anyFlat != 0 {
                let same = reducedSameChunks.baseAddress! + chunkWords * (row % tapCount)
                anyFlat = 0
                for word in 0..<chunkWords {
                    flatChunks[word] &= same[word]
                    anyFlat |= flatChunks[word]
                }
            }
            // Every row is followed by at least three readable pixels (the next slot, or the padding).
            UnsafeRawPointer(verticalTapRows.baseAddress!).withMemoryRebound(to: UnsafePointer<Int16>?.self, capacity: usedTaps) { rows in
                mrk_vertical_avx2(rows, verticalTapWeights.baseAddress!, usedTaps, anyFlat == 0 ? nil : flatChunks.baseAddress!, width,
                                  Self.maxSample, targetRow.baseAddress!)
            }
            return
        }
        for pair in 0..<(usedTaps / 2) {
            verticalWeightPairs[pair] = Self.weightPair(verticalTapWeights[2 * pair], verticalTapWeights[2 * pair + 1])
        }
        // Sums are in units of 1/255 of an 8-bit level, times 2^fractionBits: one rounded
        // division by 255 << fractionBits brings them to 8 bits, done exactly as a shift by
        // fractionBits then a multiply-shift by 1/255 (exact for every value up to 65152);
        // then colour is clamped to alpha. They start at sampleOffset units, which undoes the
        // offset of the stored samples (the weights sum to one unit).
        let start = SIMD4<Int32>(repeating: Self.sampleOffset << FilterWeights.fractionBits)
        let rounding = SIMD8<Int32>(repeating: 255 << (FilterWeights.fractionBits - 1))
        let largest = SIMD8<Int32>(repeating: Self.maxSample << FilterWeights.fractionBits)
        let output = UnsafeMutableRawPointer(targetRow.baseAddress!)
        let rows = verticalTapRows.baseAddress!, weights = verticalWeightPairs.baseAddress!
        /// Both pixels' sums to RGBA8, in 32-bit lanes throughout (the per-lane form was
        /// compiled to scalar multiplies).
        @inline(__always) func levels(_ left: SIMD4<Int32>, _ right: SIMD4<Int32>) -> SIMD8<UInt8> {
            let sums = SIMD8(lowHalf: left, highHalf: right)
            let scaled = (sums.clamped(lowerBound: .zero, upperBound: largest) &+ rounding) &>> Int32(FilterWeights.fractionBits)
            let levels = SIMD8<UInt8>(truncatingIfNeeded: (scaled &* 32897) &>> 23)
            // Colour is clamped to alpha: each pixel's alpha byte copied to all four of its bytes.
            let alphas = (unsafeBitCast(levels, to: SIMD2<UInt32>.self) &>> 24) &* 0x0101_0101
            return pointwiseMin(levels, unsafeBitCast(alphas, to: SIMD8<UInt8>.self))
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
            let pixels = levels(left, right)
            if x &+ 1 < width {
                output.storeBytes(of: pixels, toByteOffset: 4 &* x, as: SIMD8<UInt8>.self)
            } else {
                output.storeBytes(of: pixels.lowHalf, toByteOffset: 4 &* x, as: SIMD4<UInt8>.self)
            }
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

private extension PixelFormat {
    /// This layout's name in CRasterKernels.
    var kernelLayout: mrk_layout {
        switch self {
        case .rgba8: MRK_RGBA8
        case .opaqueRGBA8: MRK_OPAQUE_RGBA8
        case .rgb8: MRK_RGB8
        case .grey8: MRK_GREY8
        }
    }
}
