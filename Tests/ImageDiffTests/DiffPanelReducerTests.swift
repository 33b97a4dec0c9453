import ImageDiff
import Testing
import TestSupport

/// Runs the reducer over a whole picture; checks rows come out in order, each as soon as the
/// last source row of its block is in.
func reduce(picture: [UInt8], classes: [UInt8], width: Int, height: Int, to targetWidth: Int, _ targetHeight: Int,
            includeAA: Bool = false) -> [UInt8] {
    let reducer = DiffPanelReducer(sourceWidth: width, sourceHeight: height, targetWidth: targetWidth,
                                   targetHeight: targetHeight, includeAA: includeAA)
    var out: [UInt8] = []
    for y in 0..<height {
        picture[4 * width * y ..< 4 * width * (y + 1)].withUnsafeBufferPointer { p in
            classes[width * y ..< width * (y + 1)].withUnsafeBufferPointer { c in
                reducer.push(picture: p, classes: c) { ty, row in
                    #expect(ty == out.count / (4 * targetWidth))
                    out += row
                }
            }
        }
        // Target row t is due once source row ⌈(t+1)·h/th⌉-1 (at least its first row) is in.
        let due = (0..<targetHeight).filter { t in max(t * height / targetHeight + 1, (t + 1) * height / targetHeight) - 1 <= y }.count
        #expect(out.count == 4 * targetWidth * due, "after source row \(y)")
    }
    return out
}

@Suite struct DiffPanelReducerTests {
    /// A 1280×800 screenshot's difference shown in a 300×188 panel: any single differing pixel
    /// stays visible as exactly one red pixel near its scaled position, the rest stays grey.
    @Test func singleDifferingPixelSurvivesShrinking() {
        let seed = SplitMix64.suiteSeed
        var g = SplitMix64(seed: seed)
        let width = 1280, height = 800
        let picture = [UInt8](repeating: 230, count: 4 * width * height)
        for _ in 0..<4 {
            let x = g.int(0...width - 1), y = g.int(0...height - 1)
            var classes = [UInt8](repeating: PixelClass.same, count: width * height)
            classes[y * width + x] = PixelClass.differing
            let out = reduce(picture: picture, classes: classes, width: width, height: height, to: 300, 188)
            let red = (0..<300 * 188).filter { out[4 * $0 ..< 4 * $0 + 4] == [255, 0, 0, 255] }
            #expect(red.count == 1, "seed \(seed): pixel \(x),\(y)")
            if let hit = red.first {
                #expect(abs(hit % 300 - x * 300 / width) <= 1 && abs(hit / 300 - y * 188 / height) <= 1, "seed \(seed): \(x),\(y) -> \(hit % 300),\(hit / 300)")
            }
            #expect((0..<300 * 188).allSatisfy { red.contains($0) || out[4 * $0 ..< 4 * $0 + 4] == [230, 230, 230, 230] })
        }
    }

    /// Blocks of 2×2 average to the rounded mean of their pixels, channel by channel.
    @Test func averagesBlocksExactly() {
        let values: [UInt8] = [0, 1, 10, 20,  3, 4, 30, 41,  100, 101, 7, 7,  102, 104, 7, 8]
        let picture: [UInt8] = values.flatMap { v -> [UInt8] in [v, v / 2, 255 - v, 255] }
        let out = reduce(picture: picture, classes: [UInt8](repeating: 0, count: 16), width: 4, height: 4, to: 2, 2)
        // (0+1+3+4)/4 = 2, (10+20+30+41)/4 = 25.25, (100+101+102+104)/4 = 101.75, (7+7+7+8)/4 = 7.25
        #expect(out.count == 16)
        #expect(stride(from: 0, to: 16, by: 4).map { out[$0] } == [2, 25, 102, 7])
        // Second channel: halves (0,0,1,2) (5,10,15,20) (50,50,51,52) (3,3,3,4)
        #expect(stride(from: 1, to: 16, by: 4).map { out[$0] } == [1, 13, 51, 3])
    }

    /// Red beats yellow beats the average; with includeAA anti-aliased pixels are red.
    @Test func differingOutranksAntialiased() {
        let picture = [UInt8](repeating: 200, count: 4 * 4 * 2)
        let classes: [UInt8] = [0, 2, 1, 2,  0, 0, 0, 0]  // blocks 2×2: {0,2,0,0} {1,2,0,0}
        let plain = reduce(picture: picture, classes: classes, width: 4, height: 2, to: 2, 1)
        #expect(plain == [255, 255, 0, 255, 255, 0, 0, 255])
        let withAA = reduce(picture: picture, classes: classes, width: 4, height: 2, to: 2, 1, includeAA: true)
        #expect(withAA == [255, 0, 0, 255, 255, 0, 0, 255])
    }

    /// Enlarging repeats source pixels (target t shows source ⌊t·s/T⌋).
    @Test func enlargingRepeatsPixels() {
        let picture: [UInt8] = [10, 10, 10, 255,  20, 20, 20, 255,  30, 30, 30, 255,  40, 40, 40, 255]
        let out = reduce(picture: picture, classes: [0, 0, 0, 0], width: 2, height: 2, to: 5, 3)
        let expected = (0..<3).flatMap { ty in (0..<5).flatMap { tx in
            let s = 4 * ((ty * 2 / 3) * 2 + tx * 2 / 5)
            return picture[s ..< s + 4]
        } }
        #expect(out == expected)
    }
}
