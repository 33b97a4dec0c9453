/// SplitMix64 (Steele, Lea, Flood 2014): a tiny seeded generator that gives the same
/// sequence on every platform, for test data and the bench's corpus.
public struct SplitMix64: RandomNumberGenerator {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }
    public mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }
    public mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in byte() } }
}
