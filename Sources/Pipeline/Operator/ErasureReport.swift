import Foundation
import InstanceAPI
import WireJSON

/// Answers "is subject S erased, and when?" from the outcomes of its `installations.delete`
/// requests (replays included): each installation's final code and time, and every outcome
/// that hides installations from that count.
///
/// Guarantees: `isErased` is true only when every installation named for the subject has a
/// success line (`OK`, `ALREADY_ABSENT`), no outcome seen hides installations, and every deletion
/// of the subject read from a request topic (`addRequest`) has an outcome read. Per
/// installation the latest line counts, but a `CANCELLED` line (a cancelled delivery lists each
/// installation it left as it was) never replaces another: an earlier delivery that deleted it
/// stands, and only a delivery that reaches the backend settles it, whatever its request id or
/// batch. A rejected deletion naming the subject (its installations unknown), a cancelled one
/// without lines (written before cancelled outcomes had them), one without receipt lines (a
/// compact outcome, its item lists left out as too large) and one whose subject was cut to
/// `Outcome.maxCompactTargetBytes` bytes and may be this subject, and a replay whose original's
/// outcome was not read, each leave the subject not erased for good, named in `doubts`: which
/// installations they hide cannot be known here (`iidbatch batches receipt` reads the request
/// records).
public struct ErasureReport: Sendable {
    /// The data subject.
    public let subject: String
    /// Per installation (its id's bytes: ids Swift calls equal are two ids to the backend), its
    /// final receipt line.
    private var lines: [ExactText: ItemReceipt] = [:]
    /// The requests (ids) whose outcomes were read.
    public private(set) var requestIDs: Set<String> = []
    /// Why outcomes seen hide installations, one line per outcome (`d-2 rejected: …`).
    private var hidden: Set<String> = []
    /// The requests whose own outcome (not a replay's) was read, and for the others whose
    /// replay's was, the replay's name.
    private var originalsRead: Set<ExactText> = []
    private var replaysRead: [ExactText: String] = [:]
    /// The records the outcomes read answer (`Outcome.record`), and the ids of those that name
    /// none (a worker before 0.9.0).
    private var answeredRecords: Set<RecordPosition> = []
    private var answeredIDs: Set<ExactText> = []
    /// The deletions of the subject read from a request topic: where each was read, and its id.
    private var requested: [RecordPosition: String] = [:]

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
        return ExactText(value) == ExactText(subject) || isCut(value)
    }

    /// Takes `outcome` into account when it concerns this subject (`concerns(_:)`); returns
    /// whether it did.
    @discardableResult
    public mutating func add(_ outcome: Outcome) -> Bool {
        guard concerns(outcome) else { return false }
        requestIDs.insert(outcome.replayOf ?? outcome.requestID)
        if let record = outcome.record { answeredRecords.insert(record) } else { answeredIDs.insert(ExactText(outcome.requestID)) }
        let name = outcome.requestID + (outcome.replayOf.map { " (replay of \($0))" } ?? "")
        if let original = outcome.replayOf { replaysRead[ExactText(original)] = name } else { originalsRead.insert(ExactText(outcome.requestID)) }
        if let value = outcome.target[PipelineRequest.Field.subject.rawValue], ExactText(value) != ExactText(subject) {
            hidden.insert(
                "\(name): its subject was cut to \(value.utf8.count) bytes (a compact outcome) and may be this one; check with iidbatch batches receipt")
            return true
        }
        switch outcome.status {
        case .rejected:
            hidden.insert("\(name) rejected: \(outcome.reason ?? "no reason given")")
            return true
        case .cancelled:
            guard let receipt = outcome.receipt else {
                hidden.insert("\(name) cancelled, its installations not listed: \(outcome.reason ?? "no reason given")")
                return true
            }
            for line in receipt where lines[ExactText(line.item)] == nil { lines[ExactText(line.item)] = line }
            return true
        case .succeeded, .partial, .failed:
            break
        }
        guard let receipt = outcome.receipt else {
            hidden.insert("\(name): outcome without receipt lines (too large); check with iidbatch batches receipt")
            return true
        }
        for line in receipt {
            // A cancelled delivery's line gives way to any line of a delivery that called.
            let kept = lines[ExactText(line.item)]
            if let kept, !Self.isCancelled(kept), kept.at > line.at { continue }
            lines[ExactText(line.item)] = line
        }
        return true
    }

    /// Takes into account a record of the outcome topic that is no outcome (`Outcome.read`
    /// refused it), read at `position`: when its bytes name this subject as a worker writes a
    /// target (`"subject":"<subject>"`, escaped as `JSONWriter` escapes it), it may be a deletion
    /// of the subject whose lines cannot be read, and the subject is not erased for good, the
    /// record named in `doubts`. Returns whether it did. A search by bytes, linear in the record,
    /// which nothing here parses.
    @discardableResult
    public mutating func addUnreadable(_ value: [UInt8], at position: RecordPosition) -> Bool {
        var writer = JSONWriter(capacity: subject.utf8.count + 16)
        writer.beginObject()
        writer.member(PipelineRequest.Field.subject.rawValue, subject)
        let needle = writer.bytes.dropFirst()
        guard value.indices.contains(where: { value[$0] == needle.first && value[$0...].starts(with: needle) }) else { return false }
        hidden.insert("a record at \(position) names this subject but is no outcome the tools can read; check it with kcat")
        return true
    }

    /// Takes into account a record of a deletion request topic read at `position`: `request`,
    /// as the worker reading that topic decodes it, or nil when it cannot (`value`, its bytes).
    /// A deletion of this subject whose outcome is not read (`add(_:)`: one naming this record,
    /// or, naming none, of its id) leaves the subject not erased, named in `doubts`: it has not
    /// run, or not to its end (two records of one id are two deletions); so does a record
    /// that no worker can read whose bytes seem to name the subject
    /// (`RequestDecoder.scannedSubject(_:)`): its deletion never runs. Returns whether it did.
    /// Read the request topics before the outcome topics: an outcome read after its request
    /// counts wherever it lands.
    @discardableResult
    public mutating func addRequest(_ request: PipelineRequest?, value: [UInt8], at position: RecordPosition) -> Bool {
        guard let request else {
            guard let named = RequestDecoder.scannedSubject(value), ExactText(named) == ExactText(subject) else { return false }
            hidden.insert("a record at \(position) names this subject but is no request a worker can read: its deletion never runs")
            return true
        }
        guard request.op == .installationsDelete, case .subject(let named?) = request.target, ExactText(named) == ExactText(subject) else { return false }
        requested[position] = request.id
        return true
    }

    /// Why some installations of the subject are not known to be gone, one line per request
    /// (`d-2 rejected: …`), sorted; empty when every outcome seen listed its installations. A
    /// replay's outcome lists only the items its dead letter carried: without the original's
    /// outcome (past the outcome topic's retention, say) the original's other installations
    /// are unknown.
    public var doubts: [String] {
        let unseen = replaysRead.filter { !originalsRead.contains($0.key) }.map { original, replay in
            "\(original.text): only a replay's outcome was read (\(replay)), which lists only the items it carried; check with iidbatch batches receipt"
        }
        let pending = requested.filter { position, id in !answeredRecords.contains(position) && !answeredIDs.contains(ExactText(id)) }.map { position, id in
            "\(id) (at \(position)) has no outcome: its deletion has not run to its end (or its outcome is past the outcome topic's retention)"
        }
        return hidden.union(unseen).union(pending).sorted()
    }

    /// True when at least one installation is known, every one is gone (`OK` or
    /// `ALREADY_ABSENT`), and no outcome seen hides installations (`doubts` is empty).
    public var isErased: Bool { !lines.isEmpty && lines.values.allSatisfy(\.code.isSuccess) && doubts.isEmpty }

    /// When the last installation was erased, once all are.
    public var erasedAt: Date? { isErased ? lines.values.map(\.at).max() : nil }

    /// Each installation's final receipt line, by item.
    public var installations: [ItemReceipt] { lines.values.sorted { $0.item < $1.item } }

    /// Installations not (yet) erased, by item.
    public var outstanding: [ItemReceipt] { installations.filter { !$0.code.isSuccess } }

    /// True when `value` is not this subject but what cutting it to a compact outcome's
    /// `Outcome.maxCompactTargetBytes` bytes gives.
    private func isCut(_ value: String) -> Bool {
        ExactText(value) != ExactText(subject) && ExactText(value) == ExactText(subject.utf8Prefix(maxBytes: Outcome.maxCompactTargetBytes))
    }

    /// Whether `line` is a cancelled delivery's: the installation left as it was.
    private static func isCancelled(_ line: ItemReceipt) -> Bool { line.code == .cancelled }
}
