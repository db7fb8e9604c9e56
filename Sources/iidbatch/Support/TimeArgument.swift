import ArgumentParser
import CommandSupport
import Foundation
import Pipeline

/// A point in time on the command line: ISO 8601 (`2026-11-22T10:00:00Z`) or an age (`90s`,
/// `15m`, `2h`, `1d`: that long ago).
struct TimeArgument: ExpressibleByArgument, Sendable {
    /// The time meant.
    var date: Date

    init?(argument: String) {
        if let date = try? Date(argument, strategy: .iso8601) {
            self.date = date
        } else if let date = try? Date(argument, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) {
            self.date = date
        } else if let age = DurationText.parse(argument) {
            self.date = Date().addingTimeInterval(-age.seconds)
        } else {
            return nil
        }
    }

    static var defaultCompletionKind: CompletionKind { .default }
}
