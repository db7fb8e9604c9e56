import Foundation

/// Which dead letters are work an operator cancelled (`iidbatch control cancel`), so that
/// `iidbatch replay` does not run it again unasked: a replay is a batch of its own, which the
/// cancel of the original's batch no longer names, and a deletion cannot be undone.
///
/// Rule: a letter is cancelled when a cancel in force matches its request (its batch, which the
/// worker keeps on the dead letter, or its id; `ControlCancel.matches`) and belongs to a pipeline
/// reading the letter's original topic, or to a pipeline the files at hand do not know. A
/// letter does not say when its original was produced: a produced-before bound of a cancel that
/// names a batch or an id is not checked (it holds for every letter it otherwise matches, the
/// safe side: such letters are listed, and replayed only when asked); a cancel by its bound
/// alone holds for the letters written before it, whose originals surely were.
public struct CancelledLetters: Sendable {
    /// The cancels in force.
    private let cancels: [ControlCancel]
    /// The request topic of each pipeline of the files at hand, by name.
    private let readers: [String: String]

    /// The cancels in force on `board`; `pipelines`, the pipeline files at hand (none: every
    /// cancel may concern any letter).
    public init(board: ControlBoard, pipelines: [PipelineConfiguration]) {
        cancels = board.cancels.values.flatMap(\.values).sorted { ($0.pipeline, $0.tag) < ($1.pipeline, $1.tag) }
        readers = Dictionary(pipelines.map { ($0.name, $0.requestTopic) }, uniquingKeysWith: { first, _ in first })
    }

    /// The cancel that holds for `letter`, or nil (also for a letter without a request or an
    /// original topic: there is nothing to replay).
    public func cancel(of letter: DeadLetter) -> ControlCancel? {
        guard let request = letter.request, let topic = letter.originalTopic else { return nil }
        return cancels.first { cancel in
            // A cancel naming neither batch nor id holds by its bound alone: for the letters
            // written before it (their originals were produced before them).
            let producedAt = cancel.batch == nil && cancel.requestID == nil ? letter.record.timestamp ?? .distantFuture : nil
            return (readers[cancel.pipeline].map { ExactText($0) == ExactText(topic) } ?? true) && cancel.matches(request, producedAt: producedAt)
        }
    }
}
