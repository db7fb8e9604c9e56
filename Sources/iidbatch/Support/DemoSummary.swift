import CommandSupport
import Emulator
import Foundation
import InstanceAPI
import Pipeline

/// The demo's closing report.
struct DemoSummary {
    var reconciliation: Reconciliation
    var statistics: WorkerStatistics
    var deadLetters: (all: Int, undecodable: Int)
    var emulator: EmulatorStats
    var elapsed: Duration
    var validItems: Int

    func print() {
        Output.line("")
        Output.line("outcomes by op and status:")
        for (op, statuses) in reconciliation.statusesByOp.sorted(by: { $0.key < $1.key }) {
            let text = OutcomeStatus.allCases.compactMap { status in statuses[status].map { "\(status.rawValue) \($0)" } }
            Output.line("  \(op.padding(toLength: 22, withPad: " ", startingAt: 0)) \(text.joined(separator: ", "))")
        }
        Output.line("items by op and final code:")
        for (op, codes) in reconciliation.codesByOp.sorted(by: { $0.key < $1.key }) where !codes.isEmpty {
            let text = codes.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }
            Output.line("  \(op.padding(toLength: 22, withPad: " ", startingAt: 0)) \(text.joined(separator: ", "))")
        }
        let seconds = max(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, 0.001)
        let latency = [0.5, 0.99].map { statistics.latency.percentile($0).map { "\(Int(($0 / .milliseconds(1)).rounded())) ms" } ?? "-" }
        Output.line(
            "throughput: \(validItems) items in \(NumberText.fixed(seconds, places: 1)) s = \(Int(Double(validItems) / seconds)) items/s; request→outcome p50 \(latency[0]), p99 \(latency[1])"
        )
        Output.line(
            "backend: \(statistics.calls) call attempts (\(statistics.failedCalls) failed whole), \(statistics.retries) item retries, circuit breaker opened \(statistics.breakerOpenings) times"
        )
        Output.line("adaptive rate: \(RateLine.describe(statistics)); \(statistics.throttledCalls) throttled attempts")
        let emulatorCalls = emulator.apis.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.calls)" }
        Output.line("emulator saw: \(emulatorCalls.joined(separator: ", "))")
        Output.line(
            "dead letters: \(deadLetters.all) records (\(deadLetters.undecodable) undecodable, \(deadLetters.all - deadLetters.undecodable) with items whose retries ran out)"
        )
        let duplicates = reconciliation.duplicates.count
        let once = reconciliation.answered - duplicates
        let missing = reconciliation.missing
        Output.line(
            "reconciliation: \(reconciliation.expected.count) requests, \(reconciliation.answered) with an outcome (\(once) exactly once, \(duplicates) more than once), \(missing.count) lost"
        )
        if !missing.isEmpty { Output.line("  lost: \(missing.prefix(20).joined(separator: ", "))\(missing.count > 20 ? ", …" : "")") }
    }
}
