import Synchronization

/// How the process writes its log lines and its last error: as text, or as one JSON object per
/// line in Cloud Logging's structured form (`--log-format json`, `JSONLogHandler`).
///
/// Process-wide: `WorkerSetup.bootstrapLogging` records the format a command chose, and
/// `IIDBatch.main` reads it to write the final `Error: …` line in the same form.
package enum LogFormat: String, Sendable, CaseIterable {
    /// swift-log's text lines; errors as plain text.
    case text
    /// One JSON object per line, every line the process writes.
    case json

    /// The long name of the option that chooses it, in `run` and `demo`.
    package static let optionName = "log-format"
    /// The option as typed.
    package static let option = "--" + optionName

    private static let chosen = Mutex(LogFormat.text)

    /// The format recorded for this process (text until a command chooses).
    package static var current: LogFormat {
        get { chosen.withLock { $0 } }
        set { chosen.withLock { $0 = newValue } }
    }

    /// The format `arguments` ask for (`--log-format json` or `--log-format=json`), if any: for
    /// an error found while the arguments are parsed, before the command could record it.
    package static func requested(in arguments: some Sequence<String>) -> LogFormat? {
        var found: LogFormat?
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            if argument == "--" { break }
            if argument == option {
                found = iterator.next().flatMap(LogFormat.init(rawValue:)) ?? found
            } else if argument.hasPrefix(option + "=") {
                found = LogFormat(rawValue: String(argument.dropFirst(option.count + 1))) ?? found
            }
        }
        return found
    }
}
