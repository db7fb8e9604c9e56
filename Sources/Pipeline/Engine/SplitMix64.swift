/// A small seeded random number generator (SplitMix64) for retry jitter: seeded from the system
/// generator in production, from a fixed number in tests, so a state machine's decisions can be
/// replayed exactly.
struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator starting from `seed`.
    init(seed: UInt64) { state = seed }

    /// A generator seeded from the system's.
    init() {
        var system = SystemRandomNumberGenerator()
        state = system.next()
    }

    /// The next 64 random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
