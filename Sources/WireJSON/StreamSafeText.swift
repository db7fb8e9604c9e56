/// Unicode's stream-safe text format (UAX #15, section 13): no run of more than
/// `maxNonStarters` non-starters (combining marks) in a row. Text past it is refused wherever
/// an adversary writes text iidbatch reads (records, answers, input files): Swift compares and
/// hashes a `String` by its normal form, and normalizes a run of non-starters by sorting it in
/// time quadratic in its length, so one 1 MB string of alternating marks (U+0301 U+0316 …) held
/// a worker for minutes at every comparison. No real text comes near the limit.
public enum StreamSafeText {
    /// The most non-starters in a row stream-safe text holds.
    public static let maxNonStarters = 30

    /// The scalars whose canonical decomposition starts with a non-starter though their own
    /// combining class is 0 (Tibetan vowel signs), and U+0344, which decomposes into two
    /// non-starters: each counts as two.
    static let decomposingNonStarters: Set<UInt32> = [0x0344, 0x0F73, 0x0F75, 0x0F81]

    /// Whether `scalars` hold a run of more than `maxNonStarters` non-starters.
    public static func exceedsLimit(_ scalars: some Sequence<Unicode.Scalar>) -> Bool {
        var run = 0
        for scalar in scalars {
            run = runLength(after: scalar, run: run)
            if run > maxNonStarters { return true }
        }
        return false
    }

    /// `text` within the limit: each run of non-starters cut after the most that fit (the
    /// rest of the run left out), the other scalars kept. For text iidbatch writes that others
    /// read, quoting a backend's words (a page's excerpt in a message): its own readers refuse
    /// text past the limit, so a message must never carry it. Text within it comes back as is.
    public static func clipped(_ text: String) -> String {
        guard exceedsLimit(text) else { return text }
        var kept = String.UnicodeScalarView()
        var run = 0
        for scalar in text.unicodeScalars {
            run = runLength(after: scalar, run: run)
            if run <= maxNonStarters { kept.append(scalar) }
        }
        return String(kept)
    }

    /// The length of the run of non-starters after `scalar`, the run before it `run` long.
    private static func runLength(after scalar: Unicode.Scalar, run: Int) -> Int {
        // Below the first combining mark (U+0300): a starter, the common case.
        if scalar.value < 0x300 { return 0 }
        if decomposingNonStarters.contains(scalar.value) { return run + 2 }
        return scalar.properties.canonicalCombiningClass.rawValue != 0 ? run + 1 : 0
    }

    /// Whether the text of `text` is past the limit (`exceedsLimit(_:)`); ASCII is looked at
    /// byte by byte.
    public static func exceedsLimit(_ text: String) -> Bool {
        text.utf8.contains { $0 >= 0x80 } && exceedsLimit(text.unicodeScalars)
    }

    /// Whether JSON `bytes` may hold text past the limit: a non-ASCII byte or a `\u` escape
    /// (ASCII text holds no combining mark). What may is read with the strict parser
    /// (`JSONValue.parse`), which refuses it, before any other reader hashes its strings.
    public static func mayExceedLimit(json bytes: some Collection<UInt8>) -> Bool {
        var afterBackslash = false
        for byte in bytes {
            if byte >= 0x80 || (afterBackslash && byte == UInt8(ascii: "u")) { return true }
            afterBackslash = !afterBackslash && byte == UInt8(ascii: "\\")
        }
        return false
    }

    /// The reason a refusal gives.
    public static let reason =
        "holds more than \(maxNonStarters) combining marks in a row, past Unicode's stream-safe limit (UAX #15): such text costs time quadratic in the run to compare"
}
