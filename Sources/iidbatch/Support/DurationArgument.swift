import ArgumentParser
import Pipeline

/// A length of time on the command line: `90s`, `15m`, `2h`, or plain seconds (`DurationText`).
struct DurationArgument: ExpressibleByArgument, Sendable {
    /// The length meant.
    var duration: Duration
    /// The text it was written as, for `--help`'s defaults and messages that name it.
    let text: String

    var defaultValueDescription: String { text }

    init?(argument: String) {
        guard let duration = DurationText.parse(argument, bareSeconds: true) else { return nil }
        self.duration = duration
        self.text = argument
    }
}
