import CommandSupport
import Foundation
import Synchronization

/// Shows how far a long command is, on stderr: a bar redrawn in place on a terminal, or a plain
/// line every few seconds otherwise (logs, pipes, CI). Both show items/s and the time left.
final class ProgressReporter: Sendable {
    private struct State {
        var done = 0
        var lastDraw: ContinuousClock.Instant?
        /// `done` when last drawn: a plain line is not repeated by `finish()`.
        var drawnDone: Int?
        var finished = false
    }

    private let label: String
    private let total: Int
    private let unit: String
    private let terminal: Bool
    private let interval: Duration
    private let start = ContinuousClock.now
    private let state = Mutex(State())

    /// A reporter of `total` `unit`s. `terminal` defaults to whether stderr is a terminal.
    init(_ label: String, total: Int, unit: String = "items", terminal: Bool = isatty(STDERR_FILENO) == 1) {
        self.label = label
        self.total = total
        self.unit = unit
        self.terminal = terminal
        self.interval = terminal ? .milliseconds(100) : .seconds(5)
    }

    /// Adds `count` done; redraws when the last drawing is old enough.
    func advance(by count: Int) {
        let line: String? = state.withLock { state in
            state.done += count
            let now = ContinuousClock.now
            guard !state.finished, state.lastDraw.map({ now - $0 >= interval }) ?? true else { return nil }
            state.lastDraw = now
            state.drawnDone = state.done
            return render(done: state.done, elapsed: now - start)
        }
        if let line { write(line) }
    }

    /// Draws the final state (and ends the bar's line). Safe to call twice.
    func finish() {
        let line: String? = state.withLock { state in
            guard !state.finished else { return nil }
            state.finished = true
            if !terminal && state.drawnDone == state.done { return nil }
            return render(done: state.done, elapsed: ContinuousClock.now - start)
        }
        guard let line else { return }
        write(line + (terminal ? "\n" : ""))
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data((terminal ? text : text + "\n").utf8))
    }

    private func render(done: Int, elapsed: Duration) -> String {
        terminal
            ? Self.bar(label: label, done: done, total: total, unit: unit, elapsed: elapsed)
            : Self.line(label: label, done: done, total: total, unit: unit, elapsed: elapsed)
    }

    /// `\r` + `submit [#########...........]  45%  11250/25000 items  5625 items/s  ETA 2s` + clear to end of line.
    static func bar(label: String, done: Int, total: Int, unit: String, elapsed: Duration, width: Int = 30) -> String {
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let percent = String(Int((fraction * 100).rounded(.down))).leftPadded(to: 3)
        return "\r\(label) [\(bar)] \(percent)%  \(done)/\(total) \(unit)  \(rate(done, elapsed)) \(unit)/s  ETA \(eta(done, total, elapsed))\u{1B}[K"
    }

    /// `submit: 11250/25000 items (45%), 5625 items/s, ETA 2s`.
    static func line(label: String, done: Int, total: Int, unit: String, elapsed: Duration) -> String {
        let percent = total > 0 ? Int((min(1, Double(done) / Double(total)) * 100).rounded(.down)) : 100
        return "\(label): \(done)/\(total) \(unit) (\(percent)%), \(rate(done, elapsed)) \(unit)/s, ETA \(eta(done, total, elapsed))"
    }

    private static func rate(_ done: Int, _ elapsed: Duration) -> Int {
        elapsed.seconds > 0 ? Int((Double(done) / elapsed.seconds).rounded()) : 0
    }

    private static func eta(_ done: Int, _ total: Int, _ elapsed: Duration) -> String {
        guard done < total else { return "0s" }
        guard done > 0, elapsed.seconds > 0 else { return "--" }
        let seconds = Int((Double(total - done) * elapsed.seconds / Double(done)).rounded(.up))
        return seconds >= 60 ? "\(seconds / 60)m\(String(seconds % 60).leftPadded(to: 2, with: "0"))s" : "\(seconds)s"
    }
}
