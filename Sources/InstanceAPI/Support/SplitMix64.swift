/// SplitMix64: a small, fast seeded generator. The same seed gives the same sequence, so a state
/// machine's jitter, the emulator's faults and a test's random cases replay exactly from a seed;
/// consecutive seeds give unrelated sequences (each output goes through the full mixing function).
/// Not for secrets.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator starting from `seed`.
    public init(seed: UInt64) { state = seed }

    /// A generator seeded from the system's.
    public init() {
        var system = SystemRandomNumberGenerator()
        state = system.next()
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in [0, 1).
    public mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
