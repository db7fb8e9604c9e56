import Foundation
import InstanceAPI

/// Answers "is subject S erased, and when?" from the outcomes of its `installations.delete`
/// requests (replays included): each installation's latest final code and time, and every
/// outcome that hides installations from that count.
///
/// Guarantees: `isErased` is true only when every outcome seen for the subject lists its
/// installations in success receipt lines. A rejected deletion naming the subject (its
/// installations unknown), a cancelled one (none deleted), one without receipt lines (a compact
/// outcome, its item lists left out as too large) and one whose subject was cut to
/// `Outcome.maxCompactTargetBytes` bytes and may be this subject each leave the subject not
/// erased, named in `doubts`. A cancelled or compact one is settled by a delivery of that same
/// request that brings its receipt lines: same id, same `replayOf`, same batch, and as many lines
/// as the hidden outcome counted items (an id used again for other installations settles
/// nothing). A rejected or cut one stays (its installations are never known).
public struct ErasureReport: Sendable {
    /// The data subject.
    public let subject: String
    /// Per installation, its latest receipt line.
    public private(set) var installations: [String: ItemReceipt] = [:]
    /// The requests (ids) whose outcomes were read.
    public private(set) var requestIDs: Set<String> = []
    /// An outcome that hides installations.
    private struct Hidden {
        /// Why, for `doubts`.
        var reason: String
        /// Whether the same delivery's receipt lines settle it (cancelled, compact), and which:
        /// its batch and its item count.
        var settledBy: Delivery?
    }

    /// What a receipt-bearing outcome of a delivery covers.
    private struct Delivery: Hashable {
        var batch: String?
        var items: Int
    }

    /// Per delivery (`key(_:)`), the outcome that hides installations.
    private var hidden: [String: Hidden] = [:]
    /// Per delivery, the receipt-bearing outcomes seen.
    private var receipts: [String: Set<Delivery>] = [:]

    /// An empty report for `subject`.
    public init(subject: String) {
        self.subject = subject
    }

    /// True when `outcome` may be a deletion of this subject: an `installations.delete` outcome
    /// (or a rejected record without a readable op) whose target's subject is this one, or is
    /// this one cut to `Outcome.maxCompactTargetBytes` bytes (which cannot be told apart).
    public func concerns(_ outcome: Outcome) -> Bool {
        guard outcome.op == .installationsDelete || (outcome.op == nil && outcome.status == .rejected) else { return false }
        guard let value = outcome.target[PipelineRequest.Field.subject.rawValue] else { return false }
        return value == subject || isCut(value)
    }

    /// Takes `outcome` into account when it concerns this subject (`concerns(_:)`); returns
    /// whether it did.
    @discardableResult
    public mutating func add(_ outcome: Outcome) -> Bool {
        guard concerns(outcome) else { return false }
        requestIDs.insert(outcome.replayOf ?? outcome.requestID)
        let key = Self.key(outcome)
        let name = outcome.requestID + (outcome.replayOf.map { " (replay of \($0))" } ?? "")
        if let value = outcome.target[PipelineRequest.Field.subject.rawValue], value != subject {
            hidden[key] = Hidden(
                reason:
                    "\(name): its subject was cut to \(value.utf8.count) bytes (a compact outcome) and may be this one; check with iidbatch batches receipt",
                settledBy: nil)
            return true
        }
        switch outcome.status {
        case .rejected:
            hidden[key] = Hidden(reason: "\(name) rejected: \(outcome.reason ?? "no reason given")", settledBy: nil)
            return true
        case .cancelled:
            if hidden[key] == nil {
                hidden[key] = Hidden(reason: "\(name) cancelled: \(outcome.reason ?? "no reason given")", settledBy: Self.delivery(outcome))
            }
            return true
        case .succeeded, .partial, .failed:
            break
        }
        guard let receipt = outcome.receipt else {
            if hidden[key] == nil {
                hidden[key] = Hidden(
                    reason: "\(name): outcome without receipt lines (too large); check with iidbatch batches receipt", settledBy: Self.delivery(outcome))
            }
            return true
        }
        receipts[key, default: []].insert(Delivery(batch: outcome.batch, items: receipt.count))
        for line in receipt where installations[line.item].map({ $0.at <= line.at }) ?? true {
            installations[line.item] = line
        }
        return true
    }

    /// Why some installations of the subject are not known to be gone, one line per request
    /// (`d-2 rejected: …`), sorted; empty when every outcome seen listed its installations.
    public var doubts: [String] {
        hidden.filter { key, hidden in !(hidden.settledBy.map { receipts[key]?.contains($0) ?? false } ?? false) }.values.map(\.reason).sorted()
    }

    /// True when at least one installation is known, every one is gone (`OK` or
    /// `ALREADY_ABSENT`), and no outcome seen hides installations (`doubts` is empty).
    public var isErased: Bool { !installations.isEmpty && installations.values.allSatisfy(\.code.isSuccess) && doubts.isEmpty }

    /// When the last installation was erased, once all are.
    public var erasedAt: Date? { isErased ? installations.values.map(\.at).max() : nil }

    /// Installations not (yet) erased, by item.
    public var outstanding: [ItemReceipt] { installations.values.filter { !$0.code.isSuccess }.sorted { $0.item < $1.item } }

    /// True when `value` is not this subject but what cutting it to a compact outcome's
    /// `Outcome.maxCompactTargetBytes` bytes gives.
    private func isCut(_ value: String) -> Bool {
        value != subject && value == subject.utf8Prefix(maxBytes: Outcome.maxCompactTargetBytes)
    }

    /// What a hidden outcome's own receipt lines would cover: its batch and the items it counts.
    private static func delivery(_ outcome: Outcome) -> Delivery {
        Delivery(batch: outcome.batch, items: outcome.counts.values.reduce(0, +))
    }

    /// One delivery of a request: its id and the id it replays.
    private static func key(_ outcome: Outcome) -> String {
        outcome.requestID + "\u{0}" + (outcome.replayOf ?? "")
    }
}
