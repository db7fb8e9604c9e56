import ArgumentParser

/// A length of time on the command line: `90s`, `15m`, `2h`, or plain seconds.
struct DurationArgument: ExpressibleByArgument, Sendable {
    /// The length meant.
    var duration: Duration

    init?(argument: String) {
        let units = ["ms": 0.001, "s": 1.0, "m": 60, "h": 3_600]
        for (suffix, scale) in units.sorted(by: { $0.key.count > $1.key.count }) where argument.hasSuffix(suffix) {
            guard let amount = Double(argument.dropLast(suffix.count)), amount >= 0 else { return nil }
            duration = .milliseconds(Int64(amount * scale * 1_000))
            return
        }
        guard let seconds = Double(argument), seconds >= 0 else { return nil }
        duration = .milliseconds(Int64(seconds * 1_000))
    }
}
