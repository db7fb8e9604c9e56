import Foundation
import Pipeline
import WireJSON

/// Outcomes as a table for a terminal, and the counts under it.
struct OutcomeTable {
    private var statuses: [OutcomeStatus: Int] = [:]
    private var codes: [String: Int] = [:]
    /// Outcomes tallied.
    private(set) var count = 0

    /// The header row.
    static let header = row("COMPLETED", "REQUEST", "OP", "TARGET", "STATUS", "ITEMS", "CODES")

    /// Tallies `outcome` and returns its row.
    mutating func add(_ outcome: Outcome) -> String {
        count += 1
        statuses[outcome.status, default: 0] += 1
        codes.merge(outcome.counts, uniquingKeysWith: +)
        let target = outcome.target.sorted { $0.key < $1.key }.map(\.value).joined(separator: ",")
        let id =
            outcome.replayOf.map { $0 == outcome.requestID ? "\(outcome.requestID) (replay)" : "\(outcome.requestID) (replay of \($0))" } ?? outcome.requestID
        let detail = outcome.status == .rejected ? (outcome.reason ?? "") : Self.codes(outcome.counts)
        return Self.row(
            Self.time(outcome.completedAt), id, outcome.op?.rawValue ?? "-", target.isEmpty ? "-" : target, outcome.status.rawValue,
            String(outcome.counts.values.reduce(0, +)), detail)
    }

    /// `12 outcome(s): succeeded 10, partial 1, rejected 1; items: OK=11998 NOT_FOUND=2`, the
    /// codes written as `reconcile` writes them.
    var footer: String {
        let byStatus = OutcomeStatus.allCases.compactMap { status in statuses[status].map { "\(status.rawValue) \($0)" } }
        return "\(count) outcome(s)" + (byStatus.isEmpty ? "" : ": " + byStatus.joined(separator: ", "))
            + (codes.isEmpty ? "" : "; items: " + Self.codes(codes))
    }

    /// `OK=998 NOT_FOUND=2`, most frequent first.
    static func codes(_ counts: [String: Int]) -> String {
        counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    }

    /// `2026-11-22T10:00:01.250Z`.
    static func time(_ date: Date) -> String {
        WireDate.text(date)
    }

    private static func row(_ completed: String, _ id: String, _ op: String, _ target: String, _ status: String, _ items: String, _ codes: String) -> String {
        [completed.padded(24), id.padded(28), op.padded(20), target.padded(16), status.padded(9), items.leftPadded(to: 6), codes].joined(separator: " ")
    }
}
