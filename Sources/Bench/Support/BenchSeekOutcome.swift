import Foundation
import InstanceAPI
import Pipeline

/// The outcomes `bench seek` fills its topic with: the shapes a migration and an erasure leave,
/// in their wire form (a few hundred bytes each), and the erasure batch whose receipt it times.
enum BenchSeekOutcome {
    /// The batch whose receipt is timed.
    static let receiptBatch = "erasure-receipt"

    /// Request `n` of `receiptBatch`: the erasure of two installations (22-character FIDs) of one
    /// data subject.
    static func receiptRequest(_ n: Int) -> PipelineRequest {
        let digits = NumberText.digits(n, width: 10)
        return PipelineRequest(
            id: "bench-\(digits)", op: .installationsDelete, target: .subject("subject-\(n)"),
            items: ["fA\(digits)0123456789", "fB\(digits)0123456789"], batch: receiptBatch)
    }

    /// The outcome of `request` (of `receiptBatch`), completed at `completedAt`: both erased.
    static func receiptWireBytes(_ request: PipelineRequest, completedAt: Date) -> [UInt8] {
        let target: [String: String] = if case .subject(let subject?) = request.target { ["subject": subject] } else { [:] }
        return Outcome(
            requestID: request.id, op: request.op, target: target, status: .succeeded, counts: ["OK": request.items.count], failedItems: [],
            receipt: request.items.map { ItemReceipt(item: $0, code: .ok, at: completedAt) }, batch: receiptBatch,
            backendCalls: request.items.count, receivedAt: completedAt.addingTimeInterval(-1.5), completedAt: completedAt
        ).wireBytes(limit: .max)
    }

    /// Outcome number `n`, completed at `completedAt`: mostly topic subscriptions of 500
    /// tokens, one in ten with a failed item; every fourth an erasure of one data subject.
    static func wireBytes(_ n: Int, completedAt: Date) -> [UInt8] {
        let id = "bench-\(NumberText.digits(n, width: 10))"
        let received = completedAt.addingTimeInterval(-1.5)
        let outcome: Outcome
        if n % 4 == 3 {
            outcome = Outcome(
                requestID: id, op: .installationsDelete, target: ["subject": "subject-\(n % 100_000)"], status: .succeeded,
                counts: ["OK": 2, "ALREADY_ABSENT": 1], failedItems: [], batch: "erasure-2026-11", backendCalls: 3, receivedAt: received,
                completedAt: completedAt)
        } else {
            let failed =
                n % 10 == 0
                ? [
                    FailedItem(
                        index: 17, item: "bench-token-\(NumberText.digits(n, width: 10))", code: .notFound, attempts: 1,
                        message: "Requested entity was not found.")
                ]
                : []
            outcome = Outcome(
                requestID: id, op: .topicsSubscribe, target: ["topic": "news-\(n % 50)"], status: failed.isEmpty ? .succeeded : .partial,
                counts: failed.isEmpty ? ["OK": 500] : ["OK": 499, "NOT_FOUND": 1], failedItems: failed, batch: "migration-2026-11",
                backendCalls: 1, receivedAt: received, completedAt: completedAt)
        }
        return outcome.wireBytes(limit: .max)
    }
}
