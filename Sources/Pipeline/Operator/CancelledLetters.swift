/// Which dead letters are work an operator cancelled (`iidbatch control cancel`), so that
/// `iidbatch replay` does not run it again unasked: a replay is a batch of its own, which the
/// cancel of the original's batch no longer names, and a deletion cannot be undone.
///
/// Rule: a letter is cancelled when a cancel in force matches its request (its batch, which the
/// worker keeps on the dead letter, or its id; `ControlCancel.matches`) and belongs to a pipeline
/// reading the letter's original topic, or to a pipeline the files at hand do not know. A
/// letter does not say when its original was produced, so a cancel's produced-before bound is
/// not checked: it holds for every letter it otherwise matches, a cancel by its bound alone for
/// every letter of its pipeline (the safe side: a letter written after the bound may be of a
/// request that started before it and finished whole, and a deletion cannot be undone; such
/// letters are listed, and replayed only when asked: `--include-cancelled`, with `--since` for
/// the letters of an incident after the cancel).
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
            (readers[cancel.pipeline].map { ExactText($0) == ExactText(topic) } ?? true) && cancel.matches(request, producedAt: nil)
        }
    }
}
