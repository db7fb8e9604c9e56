import Foundation

/// Answers "is subject S erased, and when?" from the outcomes of its `installations.delete`
/// requests (replays included): each installation's latest final code and time.
public struct ErasureReport: Sendable {
    /// The data subject.
    public let subject: String
    /// Per installation, its latest receipt line.
    public private(set) var installations: [String: ItemReceipt] = [:]
    /// The requests (ids) whose outcomes were read.
    public private(set) var requestIDs: Set<String> = []

    /// An empty report for `subject`.
    public init(subject: String) {
        self.subject = subject
    }

    /// Takes `outcome` into account when it is a deletion for this subject; returns whether it was.
    @discardableResult
    public mutating func add(_ outcome: Outcome) -> Bool {
        guard outcome.op == .installationsDelete, outcome.target[PipelineRequest.Field.subject.rawValue] == subject else { return false }
        requestIDs.insert(outcome.replayOf ?? outcome.requestID)
        for line in outcome.receipt ?? [] where installations[line.item].map({ $0.at <= line.at }) ?? true {
            installations[line.item] = line
        }
        return true
    }

    /// True when at least one installation is known and every one is gone (`OK` or `ALREADY_ABSENT`).
    public var isErased: Bool { !installations.isEmpty && installations.values.allSatisfy(\.code.isSuccess) }

    /// When the last installation was erased, once all are.
    public var erasedAt: Date? { isErased ? installations.values.map(\.at).max() : nil }

    /// Installations not (yet) erased, by item.
    public var outstanding: [ItemReceipt] { installations.values.filter { !$0.code.isSuccess }.sorted { $0.item < $1.item } }
}
