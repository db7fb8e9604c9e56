import InstanceAPI
import WireJSON

/// Where the items of an answered attempt go (`ItemDecision` per item): settled now, retried after
/// a backoff and charged the attempt, or paced (throttled, uncharged) to the next allowed slot;
/// items a revoke dropped go nowhere. Pure: `DispatchMachine` schedules what it holds.
struct AnswerSplit {
    /// Runs of items that are final, in the call's order.
    private(set) var settled: [ItemSettlement] = []
    /// The items to retry after a backoff, charged this attempt (empty: none).
    private(set) var retry: CallJob
    /// The throttled items to send again at the next allowed slot, not charged (empty: none).
    private(set) var paced: CallJob
    /// Whether any item was throttled (`RESOURCE_EXHAUSTED`): the API's rate is cut.
    private(set) var throttled = false

    /// Splits `call`'s items by `answers` (an item beyond them has no result: `INTERNAL`).
    /// `withinTime`: throttled items may still be paced; `mayRetry`: retryable items may go again.
    ///
    /// The items are walked in segments within which nothing differs: one run of answers, one run
    /// of origins, all answered or none, and (only when a revoke came during the call) one item.
    /// Each segment is decided and moved at once, not per item.
    init(_ call: RunningCall, answers: RunLengthList<ItemAnswer>, withinTime: Bool, mayRetry: Bool) {
        let job = call.job
        var paced = job.emptied()
        paced.throttles += 1
        var charged = job
        charged.attempts += 1
        // Answered with a retryable code (INTERNAL, UNAVAILABLE): the server may have done it.
        charged.mayHaveTakenEffect = true
        var retry = charged.emptied()
        let answeredCount = answers.count
        var answerRun = 0
        var originRun = 0
        var position = 0
        while position < job.items.count {
            while originRun < job.origins.runs.count - 1, job.origins.runs[originRun].end <= position { originRun += 1 }
            var end = min(job.origins.runs[originRun].end, job.items.count)
            let answered = position < answeredCount
            if answered {
                while answers.runs[answerRun].end <= position { answerRun += 1 }
                end = min(end, answers.runs[answerRun].end)
            }
            if !call.revoked.isEmpty { end = position + 1 }
            let segment = position..<end
            position = end
            let code = answered ? answers.runs[answerRun].value.result.code : .internal
            if code == .resourceExhausted { throttled = true }
            switch ItemDecision(code, revoked: call.revoked.contains(segment.lowerBound), withinTime: withinTime, mayRetry: mayRetry) {
            case .drop: continue
            case .pace: paced.take(segment, of: job)
            case .retry: retry.take(segment, of: job)
            case .settle(let wasThrottled):
                // The counters are those of the half the item would have gone on in (the paced
                // half holds no items yet).
                let answer = answered ? answers.runs[answerRun].value : Self.missing
                let attempts = wasThrottled ? paced.attemptsMade : charged.attemptsMade
                ItemSettlement.append(ItemSettlement(of: job, at: segment, answer, attempts: attempts), to: &settled)
            }
        }
        self.retry = retry
        self.paced = paced
    }

    /// The answer of an item the backend's answer left out.
    private static let missing = ItemAnswer(ItemResult(.internal, message: "the backend gave no result for this item"))
}
