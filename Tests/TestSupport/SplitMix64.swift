/// Sebastiano Vigna's SplitMix64: a tiny, fast, well-mixed 64-bit generator; enough for test data.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in `range` from the top 53 bits (the same on every platform, unlike
    /// `Double.random(in:using:)`, whose algorithm the standard library may change).
    public mutating func uniform(in range: ClosedRange<Double>) -> Double {
        range.lowerBound + Double(next() >> 11) * 0x1p-53 * (range.upperBound - range.lowerBound)
    }
}
