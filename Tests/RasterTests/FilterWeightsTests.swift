import Foundation
import Testing
@testable import Raster

@Suite struct FilterWeightsTests {
    /// Every output's weights sum exactly to one unit and its taps stay inside the input.
    @Test func weightsSumExactlyToOneWithinBounds() {
        var generator = SplitMix64(seed: SplitMix64.testSeed)
        for _ in 0..<300 {
            let source = Int.random(in: 1...5000, using: &generator), target = Int.random(in: 1...400, using: &generator)
            let plan = AxisPlan(sourceSize: source, targetSize: target)
            let filter = plan.filter
            #expect(plan.shrinkFactor == max(1, source / (2 * target)))
            #expect(filter.tapCount <= filter.inputCount && filter.inputCount == plan.shrunkSize)
            for output in 0..<filter.outputCount {
                let weights = filter.weights[output * filter.tapCount ..< (output + 1) * filter.tapCount]
                #expect(weights.reduce(0, +) == FilterWeights.unit, "\(source) -> \(target), output \(output)")
                #expect(filter.firstInput[output] >= 0 && filter.firstInput[output] + filter.tapCount <= filter.inputCount)
            }
        }
    }

    /// The resampler multiplies in 16-bit lanes, so every weight must fit an Int16. Over every
    /// clipping of both kernels' windows the largest normalised weight is 1.29 units (a Lanczos
    /// window cut down to two taps at an edge); this checks it on every size pair up to 48 and
    /// on random reductions and enlargements, where edge windows are clipped hardest.
    @Test func everyWeightFitsSixteenBits() {
        var generator = SplitMix64(seed: SplitMix64.testSeed ^ 0x16)
        var sizes = [(Int, Int)]()
        for source in 1...48 { for target in 1...48 { sizes.append((source, target)) } }
        for _ in 0..<300 {
            sizes.append((Int.random(in: 1...6000, using: &generator), Int.random(in: 1...600, using: &generator)))
        }
        var largest: Int32 = 0
        for (source, target) in sizes {
            let weights = AxisPlan(sourceSize: source, targetSize: target).filter.weights
            largest = max(largest, weights.map(\.magnitude).max().map(Int32.init) ?? 0)
        }
        #expect(largest <= Int32(Int16.max), "largest weight \(largest), seed \(SplitMix64.testSeed ^ 0x16)")
        #expect(largest < 22_000, "largest weight \(largest) is above the 1.29-unit bound")
    }

    /// After the box shrink the filter's remaining ratio is below 4, so windows stay small.
    @Test(arguments: [(4000, 290, 6), (3000, 218, 6), (1200, 290, 2), (100, 290, 1), (20000, 1, 10000)])
    func shrinkFactorFollowsLibvips(source: Int, target: Int, factor: Int) {
        let plan = AxisPlan(sourceSize: source, targetSize: target)
        #expect(plan.shrinkFactor == factor)
        #expect(plan.filter.tapCount <= 2 * 3 * 4 + 1)
    }

    @Test func kernelsHaveTheirTextbookValues() {
        #expect(lanczos3(0) == 1 && catmullRom(0) == 1)
        for integer in 1...3 {
            #expect(abs(lanczos3(Double(integer))) < 1e-12)
            #expect(catmullRom(Double(integer)) == 0)
        }
        #expect(abs(lanczos3(0.5) - 0.6079271018540267) < 1e-12)
        #expect(catmullRom(0.5) == 0.5625 && catmullRom(1.5) == -0.0625)
        for step in -700...700 {
            let x = Double(step) / 100
            #expect(abs(sinPi(x) - sin(Double.pi * x)) < 1e-12, "sinPi(\(x))")
        }
    }

    /// A shared plan is the plan made afresh (a kept one, and one too large to keep), and the
    /// process-wide cache stays within its byte bound however many sizes pass through it.
    @Test func sharedPlansEqualFreshOnesWithinTheCacheBound() {
        var generator = SplitMix64(seed: SplitMix64.testSeed ^ 0xCA)
        // Random small pairs, then one whose plan is over 1 MiB, so is not kept.
        let sizes = (0..<300).map { _ in (Int.random(in: 1...3000, using: &generator), Int.random(in: 1...500, using: &generator)) }
            + [(100, 45_000)]
        for (source, target) in sizes {
            let shared = AxisPlan.shared(sourceSize: source, targetSize: target)
            let again = AxisPlan.shared(sourceSize: source, targetSize: target)
            let fresh = AxisPlan(sourceSize: source, targetSize: target)
            for plan in [shared, again] {
                #expect(plan.shrinkFactor == fresh.shrinkFactor && plan.shrunkSize == fresh.shrunkSize)
                #expect(plan.filter.weights == fresh.filter.weights && plan.filter.firstInput == fresh.filter.firstInput,
                        "\(source) -> \(target)")
            }
            #expect(AxisPlan.cachedBytes <= AxisPlan.cacheBytes)
        }
    }
}
