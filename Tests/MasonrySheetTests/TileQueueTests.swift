@testable import MasonrySheet
import Testing
import TestSupport

/// The order workers take a page's tiles in (`TileQueue`): the costliest the window admits,
/// never a tile below the window, every tile exactly once.
@Suite struct TileQueueTests {
    /// With the whole page in the window, the order is by cost, the lower position on a tie.
    @Test func costliestFirstWhenTheWindowHoldsThePage() {
        var queue = TileQueue(bottoms: [10, 20, 30, 40, 50], costs: [5, 90, 5, 40, 90], windowRows: 100)
        var order: [Int] = []
        while let position = queue.next(encodedRows: 0) { order.append(position) }
        #expect(order == [1, 4, 3, 0, 2])
        #expect(queue.isEmpty)
    }

    /// A tile below the window waits, however costly: the window bounds the band memory.
    @Test func aCostlyTileBelowTheWindowWaits() {
        var queue = TileQueue(bottoms: [16, 32, 200], costs: [1, 2, 1000], windowRows: 64)
        #expect(queue.next(encodedRows: 0) == 1)
        #expect(queue.next(encodedRows: 0) == 0)
        #expect(queue.next(encodedRows: 0) == nil)
        #expect(!queue.isEmpty)
        #expect(queue.next(encodedRows: 135) == nil)
        #expect(queue.next(encodedRows: 136) == 2)
        #expect(queue.isEmpty)
    }

    /// Random pages and encoder progress: each tile taken is the one a full search picks among
    /// the admitted tiles left, and every tile is taken once.
    @Test func matchesAFullSearch() {
        let seed = SplitMix64.suiteSeed
        var random = SplitMix64(seed: seed ^ 0x711E)
        for round in 0..<400 {
            let count = random.int(0...40), window = random.int(1...120)
            let bottoms = (0..<count).map { _ in random.int(0...300) }
            let costs = (0..<count).map { _ in random.int(0...6) }
            var queue = TileQueue(bottoms: bottoms, costs: costs, windowRows: window)
            var left = Set(0..<count), encoded = 0
            while !queue.isEmpty {
                let admitted = left.filter { bottoms[$0] - encoded <= window }
                let expected = admitted.min { (-costs[$0], $0) < (-costs[$1], $1) }
                let got = queue.next(encodedRows: encoded)
                #expect(got == expected, "seed \(seed) round \(round): encoded \(encoded), window \(window)")
                guard let got, got == expected else {
                    if got == nil && expected == nil { encoded += random.int(1...40); continue }
                    return
                }
                left.remove(got)
            }
            #expect(left.isEmpty, "seed \(seed) round \(round)")
        }
    }
}
