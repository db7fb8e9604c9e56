/// SplitMix64: a small seeded generator that gives the same sequence for the same seed, so a
/// failing fuzz case is replayed exactly from the seed it printed. Consecutive seeds give
/// unrelated sequences (each output goes through the full mixing function).
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    /// A generator starting from `seed`.
    init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` (`bound` > 0).
    mutating func below(_ bound: Int) -> Int { Int(next(upperBound: UInt64(bound))) }

    /// True with probability `numerator` / `denominator`.
    mutating func chance(_ numerator: Int, in denominator: Int) -> Bool { below(denominator) < numerator }

    /// One of `choices` (not empty).
    mutating func pick<Element>(_ choices: [Element]) -> Element { choices[below(choices.count)] }
}
