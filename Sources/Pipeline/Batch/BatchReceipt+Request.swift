import InstanceAPI
import Kafka

extension BatchReceipt {
    /// The most outcome-by-record fits one request's line may take: an id with more distinct
    /// records times outcomes in a batch (someone wrote thousands of records with it) lists the
    /// records its reported outcome is not of as unanswered, without telling them apart.
    static let mostFits = 1_000_000

    /// A record as a receipt tells records apart: op, target and items by their bytes.
    private struct Shape: Hashable {
        let op: RequestOp
        let target: RequestTarget
        let items: [ExactText]

        init(_ record: PipelineRequest) {
            (op, target, items) = (record.op, record.target, record.items.map(ExactText.init))
        }
    }

    /// The line of request `id`, from its batch's `records`, its reported outcome (`latest`) and
    /// `answers`, its outcomes that called or cancelled (duplicates' rejections left out), in
    /// order. Each distinct record (`Shape`) is answered by the last outcome that fits it and no
    /// other distinct record (a called one never replaced by a cancelled one): the reported
    /// outcome's record is listed first, then each other record with its answer's codes (the
    /// status then from each item's latest code, `status(of:)`), then the items of records no
    /// outcome answered, without a code (each item once by its bytes), and the request is
    /// `pending` when its outcome called.
    static func request(
        _ id: String, _ records: [PipelineRequest], _ latest: (record: KafkaRecord, outcome: Outcome)?, answers: [Outcome], outcomes: Int
    ) -> Request {
        var seen: Set<Shape> = []
        let distinct = records.filter { seen.insert(Shape($0)).inserted }
        guard let (position, outcome) = latest.map({ ("\($0.record.topic)/\($0.record.partition)/\($0.record.offset)", $0.outcome) }) else {
            let record = distinct.count == 1 ? distinct.first : nil
            let items = (record?.items ?? []).enumerated().map { Item(index: $0.offset, item: $0.element, code: nil, at: nil) }
            return Request(id: id, status: pending, outcome: nil, outcomes: outcomes, completedAt: nil, items: items, itemsComplete: record != nil)
        }
        /// The one distinct record `answer` fits, nil when it fits none or several.
        func answered(by answer: Outcome) -> Int? {
            var found: Int?
            for (index, record) in distinct.enumerated() where answer.fits(record) {
                guard found == nil else { return nil }
                found = index
            }
            return found
        }
        let listed = answered(by: outcome)
        var (items, complete) = lines(of: outcome, record: listed.map { distinct[$0] })
        var finals = Finals()
        finals.note(items, op: outcome.op, target: listed.map { distinct[$0].target.outcomeFields } ?? outcome.target)
        // Each other record's outcome: the last that is of it, one that called never replaced by
        // a cancelled or rejected redelivery (as the reported one is chosen).
        var answerOf: [Int: Outcome] = [:]
        if distinct.count > 1, distinct.count * answers.count <= mostFits {
            for answer in answers {
                guard let index = answered(by: answer) else { continue }
                if let kept = answerOf[index], kept.status.called, !answer.status.called { continue }
                answerOf[index] = answer
            }
        }
        var statuses: Set<OutcomeStatus> = [outcome.status]
        var unanswered: [Item] = []
        var known: Set<ExactText> = []
        for (index, record) in distinct.enumerated() where index != listed {
            if let answer = answerOf[index] {
                let (more, whole) = lines(of: answer, record: record)
                finals.note(more, op: record.op, target: record.target.outcomeFields)
                items += more
                complete = complete && whole
                statuses.insert(answer.status)
            } else {
                for (at, item) in record.items.enumerated() where known.insert(ExactText(item)).inserted {
                    unanswered.append(Item(index: at, item: item, code: nil, at: nil))
                }
            }
        }
        guard unanswered.isEmpty else {
            let called = outcome.status.called
            return Request(
                id: id, status: called ? pending : outcome.status.rawValue, outcome: position, outcomes: outcomes,
                completedAt: called ? nil : outcome.completedAt, items: items + unanswered, itemsComplete: false)
        }
        return Request(
            id: id, status: statuses.count == 1 ? outcome.status.rawValue : finals.status.rawValue, outcome: position,
            outcomes: outcomes, completedAt: outcome.completedAt, items: items, itemsComplete: complete)
    }

    /// Each item's final line over several records of a request, and the request's status from
    /// them. An item is one of a record's items for its op and target (by their bytes): another
    /// topic's success is not this topic's. Its final line is its latest coded one (by `at`; on a
    /// tie the first noted, the reported outcome's), as a replay's success settles an earlier
    /// failure; a line without a code (an outcome that cannot say its items' codes) stands until a
    /// coded one comes, and counts as not a success.
    private struct Finals {
        private struct Key: Hashable {
            let op: RequestOp?
            let target: [String: String]
            let item: ExactText
        }

        private var lines: [Key: Item] = [:]

        mutating func note(_ items: [Item], op: RequestOp?, target: [String: String]) {
            let target = Dictionary(uniqueKeysWithValues: target.map { ($0.key, ExactText.key($0.value)) })
            for item in items {
                let key = Key(op: op, target: target, item: ExactText(item.item))
                if let kept = lines[key], kept.code != nil {
                    guard item.code != nil, let keptAt = kept.at, let at = item.at, at > keptAt else { continue }
                }
                lines[key] = item
            }
        }

        /// `succeeded` when every item's final line is a success, `failed` when none is, else
        /// `partial`.
        var status: OutcomeStatus {
            let successes = lines.values.count { $0.code.map { ResultCode(rawValue: $0).isSuccess } ?? false }
            return OutcomeStatus.of(succeeded: successes, failed: lines.count - successes)
        }
    }

    /// The item lines `outcome` gives `record` (nil: which record it is of is not known), and
    /// whether they are all of its items with their codes.
    private static func lines(of outcome: Outcome, record: PipelineRequest?) -> (items: [Item], complete: Bool) {
        if let receipt = outcome.receipt {
            return (receipt.enumerated().map { Item(index: $0.offset, item: $0.element.item, code: $0.element.code.rawValue, at: $0.element.at) }, true)
        }
        let failed = Dictionary(outcome.failedItems.map { ($0.index, $0) }, uniquingKeysWith: { _, last in last })
        let codes = outcome.counts.keys.filter { $0 != Outcome.cancelledItems }.map(ResultCode.init(rawValue:))
        let successes = Set(codes.filter(\.isSuccess))
        let unlisted = outcome.counts.filter { !ResultCode(rawValue: $0.key).isSuccess && $0.key != Outcome.cancelledItems }.values.reduce(0, +)
        // The items the outcome does not list have one known code: a cancelled request's
        // CANCELLED, else the one success code, when every failure is listed.
        let attributable = outcome.status == .cancelled || (unlisted == failed.count && successes.count <= 1)
        let others = outcome.status == .cancelled ? Outcome.cancelledItems : attributable ? successes.first?.rawValue : nil
        guard let record else {
            let listed = outcome.failedItems.sorted { $0.index < $1.index }
            return (listed.map { Item(index: $0.index, item: $0.item, code: $0.code.rawValue, at: outcome.completedAt) }, false)
        }
        let items = record.items.enumerated().map { index, item in
            if let bad = failed[index] { return Item(index: index, item: bad.item, code: bad.code.rawValue, at: outcome.completedAt) }
            return Item(index: index, item: item, code: others, at: others == nil ? nil : outcome.completedAt)
        }
        return (items, attributable)
    }
}
