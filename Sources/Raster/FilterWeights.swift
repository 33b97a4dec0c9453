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

    init(sourceSize: Int, targetSize: Int) {
        precondition(sourceSize >= 1 && targetSize >= 1, "image sizes must be at least 1 pixel")
        shrinkFactor = min(max(1, sourceSize / (2 * targetSize)), Self.maxShrinkFactor)
        shrunkSize = (sourceSize + shrinkFactor - 1) / shrinkFactor
        // Shrunk pixel j is centred on source coordinate (j + 0.5) * shrinkFactor, so the
        // filter maps target pixels to shrunk ones with this ratio (not shrunkSize / targetSize,
        // which a partial last block would skew).
        let inputPerOutput = Double(sourceSize) / Double(targetSize * shrinkFactor)
        filter = FilterWeights(inputCount: shrunkSize, outputCount: targetSize, inputPerOutput: inputPerOutput)
    }
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
    let firstInput: [Int]
    let weights: [Int32]
    /// The largest `sum of |weight|` over all outputs: with inputs in 0...m, every partial
    /// sum stays within `m * maxAbsoluteWeightSum` (used to prove the sums fit an `Int32`).
    let maxAbsoluteWeightSum: Int

    init(inputCount: Int, outputCount: Int, inputPerOutput: Double) {
        precondition(inputCount >= 1 && outputCount >= 1)
        self.inputCount = inputCount
        self.outputCount = outputCount

        let reduces = inputPerOutput >= 1
        let stretch = reduces ? inputPerOutput : 1
        let support = (reduces ? 3.0 : 2.0) * stretch

        func window(_ output: Int) -> (centre: Double, range: Range<Int>) {
            let centre = (Double(output) + 0.5) * inputPerOutput
            // Truncation toward zero, as Pillow's (int) cast (negative values clamp to 0 anyway).
            let low = max(0, Int(centre - support + 0.5))
            let high = min(inputCount, Int(centre + support + 0.5))
            return (centre, low..<max(high, low + 1))
        }

        var tapCount = 1
        for output in 0..<outputCount { tapCount = max(tapCount, window(output).range.count) }
        tapCount = min(tapCount, inputCount)
        self.tapCount = tapCount

        var firstInput = [Int](repeating: 0, count: outputCount)
        var weights = [Int32](repeating: 0, count: outputCount * tapCount)
        var realWeights = [Double](repeating: 0, count: tapCount)
        var maxAbsoluteWeightSum = 0
        for output in 0..<outputCount {
            let (centre, range) = window(output)
            var total = 0.0
            for (tap, input) in range.enumerated() {
                let distance = (Double(input) + 0.5 - centre) / stretch
                realWeights[tap] = reduces ? lanczos3(distance) : catmullRom(distance)
                total += realWeights[tap]
            }
            // The window always holds the input nearest the centre, whose weight is > 0.5.
            let first = min(range.lowerBound, inputCount - tapCount)
            firstInput[output] = first
            let base = output * tapCount + (range.lowerBound - first)
            var quantisedTotal: Int32 = 0
            var largestTap = 0
            for tap in 0..<range.count {
                let quantised = Int32(roundedHalfAwayFromZero(realWeights[tap] / total * Double(Self.unit)))
                weights[base + tap] = quantised
                quantisedTotal += quantised
                if quantised > weights[base + largestTap] { largestTap = tap }
            }
            weights[base + largestTap] += Self.unit - quantisedTotal
            var absoluteSum = 0
            for tap in 0..<range.count { absoluteSum += Int(weights[base + tap].magnitude) }
            maxAbsoluteWeightSum = max(maxAbsoluteWeightSum, absoluteSum)
        }
        self.firstInput = firstInput
        self.weights = weights
        self.maxAbsoluteWeightSum = maxAbsoluteWeightSum
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
