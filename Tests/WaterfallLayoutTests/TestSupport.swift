import WaterfallLayout
@_exported import TestSupport

extension SplitMix64 {
    mutating func chance(_ percent: Int) -> Bool { int(0 ... 99) < percent }
}

/// Shorthand for a list of sizes: `sizes((100, 50), (200, 300))`.
func sizes(_ pairs: (Int, Int)...) -> [LayoutSize] {
    pairs.map { LayoutSize(width: $0.0, height: $0.1) }
}

func rect(_ x: Int, _ y: Int, _ width: Int, _ height: Int) -> LayoutRect {
    LayoutRect(x: x, y: y, width: width, height: height)
}

/// A random, valid configuration and a random list of sizes (some extreme), from `random`.
func randomLayoutInput(_ random: inout SplitMix64) throws -> (LayoutConfiguration, [LayoutSize]) {
    let columns = random.int(1 ... 8)
    let columnGap = random.int(0 ... 12)
    let insets = LayoutInsets(
        top: random.int(0 ... 15), right: random.int(0 ... 15),
        bottom: random.int(0 ... 15), left: random.int(0 ... 15))
    let width = insets.left + insets.right + columnGap * (columns - 1) + random.int(columns ... columns * 150)
    let configuration = try LayoutConfiguration(
        width: width, columns: columns, columnGap: columnGap, rowGap: random.int(0 ... 12),
        insets: insets, order: PlacementOrder.allCases.randomElement(using: &random)!,
        tolerance: random.chance(50) ? 0 : random.int(0 ... 300), maxTileAspect: random.int(1 ... 6))
    let images = (0 ..< random.int(0 ... 60)).map { _ in
        if random.chance(5) {
            return random.chance(50) ? LayoutSize(width: 1, height: 20000) : LayoutSize(width: 20000, height: 1)
        }
        return LayoutSize(width: random.int(1 ... 3000), height: random.int(1 ... 3000))
    }
    return (configuration, images)
}

/// A rectangle that may lie partly or wholly outside a `width` x `height` sheet, or be empty.
func randomRect(_ random: inout SplitMix64, width: Int, height: Int) -> LayoutRect {
    rect(random.int(-50 ... width + 50), random.int(-50 ... height + 50),
         random.int(0 ... width / 2 + 10), random.int(0 ... height / 3 + 10))
}
