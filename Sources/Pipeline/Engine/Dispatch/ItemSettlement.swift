import InstanceAPI

/// A run of items became final together: `count` consecutive items of one request, starting at
/// `origin`, with the same answer after the same attempts. A call's items mostly end alike, so
/// a call of 1,000 items usually settles as one run.
struct ItemSettlement: Sendable, Hashable {
    /// Where the run's first item came from.
    var origin: PlannedCall.Origin
    /// Its final answer.
    var answer: ItemAnswer
    /// Attempts made in this worker.
    var attempts: Int
    /// The last whole-call failure the items saw, if any.
    var lastError: String?
    /// Items in the run: `origin.index ..< origin.index + count` of `origin.request`.
    var count = 1

    /// The item positions the run covers in its request.
    var indexes: Range<Int> { origin.index..<origin.index + count }

    /// Every item of `job` settled with `answer` after `attempts` attempts, in runs.
    static func every(of job: CallJob, _ answer: ItemAnswer, attempts: Int) -> [ItemSettlement] {
        var settled: [ItemSettlement] = []
        for run in job.origins.runs { append(ItemSettlement(of: job, at: run.positions, answer, attempts: attempts), to: &settled) }
        return settled
    }

    /// Appends `next` to `settlements`, extending the last run when `next` is the item after it
    /// with the same answer, attempts and error.
    static func append(_ next: ItemSettlement, to settlements: inout [ItemSettlement]) {
        if let last = settlements.indices.last, settlements[last].extends(to: next) {
            settlements[last].count += next.count
        } else {
            settlements.append(next)
        }
    }

    /// True when `item` is the item of the same request right after the run.
    func isFollowed(by item: PlannedCall.Origin) -> Bool {
        item.request == origin.request && item.index == indexes.upperBound
    }

    private func extends(to next: ItemSettlement) -> Bool {
        isFollowed(by: next.origin) && next.attempts == attempts && next.lastError == lastError && next.answer == answer
    }
}

extension ItemSettlement {
    /// The items at `positions` of `job`, consecutive items of one request, settled with `answer`
    /// after `attempts` attempts, with the job's last error.
    init(of job: CallJob, at positions: Range<Int>, _ answer: ItemAnswer, attempts: Int) {
        self.init(origin: job.origins[positions.lowerBound], answer: answer, attempts: attempts, lastError: job.lastError, count: positions.count)
    }
}
