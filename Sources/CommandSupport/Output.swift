import Foundation
import Logging
import Synchronization

/// Writes lines to stdout and flushes at once, so a pipe or a test reading them sees each line
/// when it is written. With `--log-format json` (`asLog`), lines go to the log instead, so every
/// line the process writes is JSON. On a terminal, control characters are replaced
/// (`TerminalText`): lines hold what records said, and a record's bytes must not steer the
/// operator's terminal; a pipe or a file gets the text as it is.
package enum Output {
    private static let logger = Mutex<Logger?>(nil)

    /// From now on, lines are notice-level log records of `logger` and errors error-level ones.
    package static func asLog(_ target: Logger) {
        logger.withLock { $0 = target }
    }

    /// Writes `text` as one line to stdout (or a notice-level log record, after `asLog`).
    /// Whether stdout and stderr are terminals (an operator reads them), decided once.
    package static let isTerminal = isatty(STDOUT_FILENO) != 0 || isatty(STDERR_FILENO) != 0

    package static func line(_ text: String) {
        let text = isTerminal ? TerminalText.printable(text) : text
        if let log = logger.withLock({ $0 }) { return log.notice("\(text)") }
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Writes `text` as one line to stderr (or an error-level log record, after `asLog`).
    package static func error(_ text: String) {
        let text = isTerminal ? TerminalText.printable(text) : text
        if let log = logger.withLock({ $0 }) { return log.error("\(text)") }
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
