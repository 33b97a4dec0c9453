import WorkerThreads

/// How one axis of a resize is done: an integer box shrink by `shrinkFactor`,
/// then a filtered reduce (or enlarge) from `shrunkSize` to `targetSize`.
///
/// The shrink factor is libvips' choice, floor(source / target / 2), so the filter
/// that follows always has a remaining ratio between 1 and 4 (or enlarges).
struct AxisPlan: Sendable {
    /// Box blocks wider than this are not used: it keeps a column of `maxShrinkFactor`
    /// premultiplied samples (each <= 255 * 255) within an `Int32`. The filter takes
    /// over whatever ratio remains, so larger ratios are still correct, only slower.
    static let maxShrinkFactor = 32_768

    let shrinkFactor: Int
    let shrunkSize: Int
    let filter: FilterWeights

    /// With `storingWeights: false` the filter computes each output's weights on demand.
    /// `sourceExtent` is the source's length in its own pixels (`sourceSize` unless its last
    /// pixel stands for a partial block of a larger picture; see `StreamingResampler`), kept
    /// within the last pixel.
    init(sourceSize: Int, targetSize: Int, sourceExtent: Double? = nil, storingWeights: Bool = true) {
        precondition(sourceSize >= 1 && targetSize >= 1, "image sizes must be at least 1 pixel")
        let extent = min(Double(sourceSize), max(Double(sourceSize) - 0.999, sourceExtent ?? Double(sourceSize)))
        shrinkFactor = min(max(1, sourceSize / (2 * targetSize)), Self.maxShrinkFactor)
        shrunkSize = (sourceSize + shrinkFactor - 1) / shrinkFactor
        // Shrunk pixel j is centred on source coordinate (j + 0.5) * shrinkFactor, so the
        // filter maps target pixels to shrunk ones with this ratio (not shrunkSize / targetSize,
        // which a partial last block would skew).
        let inputPerOutput = extent / Double(targetSize * shrinkFactor)
        filter = FilterWeights(inputCount: shrunkSize, outputCount: targetSize, inputPerOutput: inputPerOutput,
                               storing: storingWeights)
    }
}

extension AxisPlan {
    /// The plan for `sourceSize` -> `targetSize` with stored weights, made once per process
    /// for each pair of sizes: galleries often hold many images of one size (a camera's
    /// photos, a test suite's screenshots, clip art at a few sizes), and computing the weights
    /// costs more than painting a small tile's worth of them. Plans of up to 1 MiB are kept,
    /// 8 MiB in all; the oldest goes first.
    static func shared(sourceSize: Int, targetSize: Int, sourceExtent: Double? = nil) -> AxisPlan {
        let sourceExtent = sourceExtent == Double(sourceSize) ? nil : sourceExtent   // one plan for the whole source
        let key = SIMD3(sourceSize, targetSize, Int(bitPattern: UInt(sourceExtent?.bitPattern ?? 0)))
        if let plan = cache.withLock({ $0.plans[key] }) { return plan }
        let plan = AxisPlan(sourceSize: sourceSize, targetSize: targetSize, sourceExtent: sourceExtent)
        let bytes = plan.filter.storedBytes
        guard bytes <= cacheBytes / 8 else { return plan }
        cache.withLock { cache in
            guard cache.plans.updateValue(plan, forKey: key) == nil else { return }
            cache.order.append(key)
            cache.bytes += bytes
            while cache.bytes > cacheBytes, let oldest = cache.order.first {
                cache.order.removeFirst()
                cache.bytes -= cache.plans.removeValue(forKey: oldest)?.filter.storedBytes ?? 0
            }
        }
        return plan
    }

    /// The memory the kept plans take now.
    static var cachedBytes: Int { cache.withLock { $0.bytes } }

    /// The most memory `shared` keeps plans in.
    static let cacheBytes = 8 << 20
    private static let cache = Lock<(plans: [SIMD3<Int>: AxisPlan], order: [SIMD3<Int>], bytes: Int)>(([:], [], 0))
}

/// Fixed-point weights of a separable resampling filter along one axis.
///
/// Output `i` is `sum over t of weights[i * tapCount + t] * input[firstInput[i] + t]`,
/// divided by `FilterWeights.unit`. Every output has exactly `tapCount` taps (zero weights
/// pad short windows at the edges), and its weights sum exactly to `unit`, so a flat input
/// gives exactly the same flat output.
///
/// Reducing (`inputPerOutput` >= 1) uses Lanczos-3 stretched by the ratio; enlarging uses
/// Catmull-Rom (bicubic, a = -0.5) unstretched. Windows are clipped at the image edges and
/// renormalised, as Pillow does. Weights are computed with IEEE-754 basic operations only
/// (no libm), then rounded to 14 bits: the same integers on every machine.
struct FilterWeights: Sendable {
    static let fractionBits = 14
    static let unit: Int32 = 1 << fractionBits

    let inputCount: Int
    let outputCount: Int
    let tapCount: Int
    /// Every output's first input and weights, when made with `storing: true`; empty otherwise
    /// (then `row(_:into:)` computes one output's on demand, in memory independent of
    /// `outputCount`: a 10-million-row tile needs no 360 MB table).
    private(set) var firstInput: [Int]
    private(set) var weights: [Int32]
    /// The largest `sum of |weight|` over all outputs: with inputs in 0...m, every partial
    /// sum stays within `m * maxAbsoluteWeightSum` (used to prove the sums fit an `Int32`).
    private(set) var maxAbsoluteWeightSum: Int
    /// The largest `|weight|` of any output.
    private(set) var maxAbsoluteWeight: Int32

    private let reduces: Bool
    private let stretch: Double
    private let support: Double
    private let inputPerOutput: Double

    init(inputCount: Int, outputCount: Int, inputPerOutput: Double, storing: Bool = true) {
        precondition(inputCount >= 1 && outputCount >= 1)
        self.inputCount = inputCount
        self.outputCount = outputCount
        self.inputPerOutput = inputPerOutput
        reduces = inputPerOutput >= 1
        stretch = reduces ? inputPerOutput : 1
        support = (reduces ? 3.0 : 2.0) * stretch

        var tapCount = 1
        // The same window as `window(_:)`, before `self` is complete.
        for output in 0..<outputCount {
            let centre = (Double(output) + 0.5) * inputPerOutput
            let low = max(0, Int(centre - support + 0.5)), high = min(inputCount, Int(centre + support + 0.5))
            tapCount = max(tapCount, max(high, low + 1) - low)
        }
        tapCount = min(tapCount, inputCount)
        self.tapCount = tapCount
        (firstInput, weights, maxAbsoluteWeightSum, maxAbsoluteWeight) = ([], [], 0, 0)

        var firstInput = [Int](repeating: 0, count: storing ? outputCount : 0)
        var weights = [Int32](repeating: 0, count: storing ? outputCount * tapCount : 0)
        var maxAbsoluteWeightSum = 0, maxAbsoluteWeight: Int32 = 0
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: tapCount) { row in
            for output in 0..<outputCount {
                let first = computeRow(output, into: row)
                var absoluteSum = 0
                for weight in row {
                    absoluteSum += Int(weight.magnitude)
                    maxAbsoluteWeight = max(maxAbsoluteWeight, Int32(weight.magnitude))
                }
                maxAbsoluteWeightSum = max(maxAbsoluteWeightSum, absoluteSum)
                if storing {
                    firstInput[output] = first
                    for tap in 0..<tapCount { weights[output &* tapCount &+ tap] = row[tap] }
                }
            }
        }
        self.firstInput = firstInput
        self.weights = weights
        self.maxAbsoluteWeightSum = maxAbsoluteWeightSum
        self.maxAbsoluteWeight = maxAbsoluteWeight
    }

    /// The memory the stored weights and first inputs take.
    var storedBytes: Int {
        weights.count * MemoryLayout<Int32>.stride + firstInput.count * MemoryLayout<Int>.stride
    }

    private func window(_ output: Int) -> (centre: Double, range: Range<Int>) {
        let centre = (Double(output) + 0.5) * inputPerOutput
        // Truncation toward zero, as Pillow's (int) cast (negative values clamp to 0 anyway).
        let low = max(0, Int(centre - support + 0.5))
        let high = min(inputCount, Int(centre + support + 0.5))
        return (centre, low..<max(high, low + 1))
    }

    /// Writes output `output`'s `tapCount` weights into `weights` and returns its first input:
    /// copied when stored, computed otherwise (the same numbers either way).
    func row(_ output: Int, into weights: UnsafeMutableBufferPointer<Int32>) -> Int {
        if !firstInput.isEmpty {
            _ = weights.update(fromContentsOf: self.weights[(output * tapCount)..<((output + 1) * tapCount)])
            return firstInput[output]
        }
        return computeRow(output, into: weights)
    }

    private func computeRow(_ output: Int, into weights: UnsafeMutableBufferPointer<Int32>) -> Int {
        let (centre, range) = window(output)
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: range.count) { realWeights in
            quantise(centre: centre, range: range, realWeights: realWeights, into: weights)
        }
    }

    /// `computeRow` with a scratch buffer of `range.count` real weights.
    private func quantise(centre: Double, range: Range<Int>, realWeights: UnsafeMutableBufferPointer<Double>,
                          into weights: UnsafeMutableBufferPointer<Int32>) -> Int {
        var total = 0.0
        for (tap, input) in range.enumerated() {
            let distance = (Double(input) + 0.5 - centre) / stretch
            realWeights[tap] = reduces ? lanczos3(distance) : catmullRom(distance)
            total += realWeights[tap]
        }
        // The window always holds the input nearest the centre, whose weight is > 0.5.
        let first = min(range.lowerBound, inputCount - tapCount)
        let base = range.lowerBound - first
        weights.update(repeating: 0)
        var quantisedTotal: Int32 = 0
        var largestTap = 0
        for tap in 0..<range.count {
            let quantised = Int32(roundedHalfAwayFromZero(realWeights[tap] / total * Double(Self.unit)))
            weights[base + tap] = quantised
            quantisedTotal += quantised
            if quantised > weights[base + largestTap] { largestTap = tap }
        }
        weights[base + largestTap] += Self.unit - quantisedTotal
        return first
    }
}

/// Lanczos-3: sinc(x) * sinc(x / 3) on (-3, 3).
func lanczos3(_ x: Double) -> Double {
    let distance = x.magnitude
    guard distance < 3 else { return 0 }
    guard distance > 1e-9 else { return 1 }
    // sin(pi x) * sin(pi x / 3) / (pi^2 x^2 / 3)
    return 3 * sinPi(distance) * sinPi(distance / 3) / (Double.pi * Double.pi * distance * distance)
}

/// Catmull-Rom cubic (Keys, a = -0.5): interpolating, support (-2, 2).
func catmullRom(_ x: Double) -> Double {
    let d = x.magnitude
    if d < 1 { return (1.5 * d - 2.5) * d * d + 1 }
    if d < 2 { return ((-0.5 * d + 2.5) * d - 4) * d + 2 }
    return 0
}

/// The nearest integer, halves away from zero (by truncation: this module uses no libm).
func roundedHalfAwayFromZero(_ x: Double) -> Int {
    x >= 0 ? Int(x + 0.5) : -Int(-x + 0.5)
}

/// sin(pi * x) from + and * only (no libm, so every machine gets the same bits);
/// absolute error below 1e-12, far under the 2^-14 weight quantum.
func sinPi(_ x: Double) -> Double {
    let nearestInteger = roundedHalfAwayFromZero(x)
    let r = (x - Double(nearestInteger)) * Double.pi  // in [-pi/2, pi/2]
    let r2 = r * r
    // Taylor series of sin to r^17 (the next term is < 1e-13 at pi/2), in Horner form.
    let series = ((((((((1 / 355_687_428_096_000 * r2 - 1 / 1_307_674_368_000) * r2
        + 1 / 6_227_020_800) * r2 - 1 / 39_916_800) * r2 + 1 / 362_880) * r2
        - 1 / 5_040) * r2 + 1 / 120) * r2 - 1 / 6) * r2 + 1)
    let value = series * r
    return nearestInteger & 1 == 0 ? value : -value
}
