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
}
