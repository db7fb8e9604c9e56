import ArgumentParser
import CommandSupport
import Foundation
import Kafka
import Pipeline

/// `iidbatch replay`: puts dead-lettered requests back on their request topics.
struct Replay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replay failed work: re-produce selected dead letters to their original request topics.",
        discussion: """
            Reads the dead-letter topic from its beginning and selects the requests whose items \
            ran out of retries (--code, --op, --since and --until narrow the selection; each given \
            condition must hold; with --since and --until only the records stamped from \
            \(TopicScan.clockMarginText) before --since to \(TopicScan.untilMarginText) after \
            --until are read (a record may be stored that much after its stamp), found by time, and a line on stderr says how many). Each is \
            produced to the request topic it came from, with its key, its id, replayOf naming the original request and priorAttempts set to the \
            attempts already spent, so its outcome settles the original's dead-lettered items. \
            Replaying the same selection again is harmless: the operations are idempotent and the \
            ids stable, so `iidbatch reconcile` counts each request once. Several letters of one \
            request (its dead letter and that of a replay of it that failed again) go as one record: \
            a letter whose items are all in another of the same id, op and target is folded into \
            it (listed on stderr), which goes with the most attempts spent; side by side, the worker \
            would reject all but the first as duplicates in flight. A letter naming a topic \
            iidbatch writes for itself (the dead-letter topic read, the control or batch topic, or \
            an outcome, dead-letter or export topic of the pipeline files here) is not replayed \
            but listed on stderr. Undecodable records are \
            never replayed (they would be rejected again); fix them and produce them by hand. \
            Letters of work an operator cancelled (a cancel in force in the control topic that \
            matches the letter's batch, which the worker keeps on it, or its request id, of a \
            pipeline reading its topic; a produced-before bound is not checked, since a letter \
            does not say when its original was produced) are listed on stderr and not replayed \
            unless --include-cancelled: the replay is a batch of its own, which the cancel would \
            not name. --dry-run lists what would go and produces nothing. The replays are a batch of their \
            own (--batch, printed first): each names it instead of its original's, and its \
            manifest goes to the batch topic before the first record and after the last was \
            acknowledged.
            """
    )

    @Option(help: ArgumentHelp("The dead-letter topic.", valueName: "kafka-topic"))
    var from: String

    @Option(help: ArgumentHelp("Only letters whose items ended on CODE (e.g. RESOURCE_EXHAUSTED). Repeatable.", valueName: "code"))
    var code: [String] = []

    @Option(help: ArgumentHelp("Only letters of OP. Repeatable.", valueName: "op"))
    var op: [String] = []

    @Option(help: ArgumentHelp("Only letters dead-lettered at or after TIME (ISO 8601, or an age: 15m, 2h, 1d).", valueName: "time"))
    var since: TimeArgument?

    @Option(help: ArgumentHelp("Only letters dead-lettered before TIME.", valueName: "time"))
    var until: TimeArgument?

    @Flag(help: "Show what would be replayed; produce nothing.")
    var dryRun = false

    @Flag(help: "Replay letters of cancelled work too (without it they are listed on stderr and left).")
    var includeCancelled = false

    @OptionGroup var stamp: BatchStamp

    @OptionGroup var defaults: PipelineTopics

    @OptionGroup var control: ControlOptions

    @OptionGroup var kafka: KafkaOptions

    func run() async throws {
        let ops = try op.map { name in
            guard let op = RequestOp(rawValue: name) else { throw ValidationError("--op: unknown op '\(name)'; expected one of \(RequestOp.names)") }
            return op
        }
        let now = Date()
        let input = "replay-" + from.replacingOccurrences(of: ".", with: "-")
        let filter = DeadLetterFilter(codes: Set(code), ops: Set(ops), since: since?.date, until: until?.date)
        let configuration = try kafka.configuration()
        // A letter's original topic is its header's word: never one iidbatch writes for itself.
        let allowed = ReplayDestinations(
            deadLetterTopic: from, controlTopic: control.controlTopic, batchTopic: stamp.batches.batchTopic,
            pipelines: defaults.readable(without: "only the dead-letter, control and batch topics are refused as destinations"))
        var selected: [DeadLetter] = []
        var read = 0
        var undecodable = 0
        var unreplayable = 0
        let extent = try await TopicScan.read(
            [from], kafka: configuration, timeout: kafka.timeout, since: since?.date, until: until?.date
        ) { record in
            read += 1
            let letter = DeadLetter(record)
            if letter.kind == .undecodable { undecodable += 1 }
            if filter.matches(letter) { selected.append(letter) }
            if let why = filter.unreplayable(letter) {
                unreplayable += 1
                Output.error("\(letter.position) (request \(RequestID.shortForm(letter.requestID ?? "?"))) cannot be replayed: \(why)")
            }
            return true
        }
        if since != nil || until != nil { Output.error(extent.summary("replay", [from])) }
        let selection = ReplaySelection(selected)
        let kept = selection.kept.filter { letter in
            guard let topic = letter.originalTopic, let why = allowed.refusal(of: topic) else { return true }
            Output.error("\(letter.position) (request \(RequestID.shortForm(letter.request?.id ?? ""))) is not replayed: \(why)")
            return false
        }
        let refused = selection.kept.count - kept.count
        let cancelled = includeCancelled ? nil : try await cancelledLetters(configuration)
        let replayed = kept.filter { letter in
            guard let cancel = cancelled?.cancel(of: letter) else { return true }
            let batch = letter.request?.batch.map { ", batch \($0)" } ?? ""
            Output.error(
                "\(letter.position) (request \(RequestID.shortForm(letter.request?.id ?? ""))\(batch)) is not replayed: cancelled in \(cancel.pipeline) (\(cancel.reason)); --include-cancelled replays it"
            )
            return false
        }
        let items = replayed.reduce(0) { $0 + ($1.request?.items.count ?? 0) }
        var skipped = "\(read - selected.count) not selected (\(undecodable) undecodable, never replayed)"
        if refused > 0 { skipped += "; \(refused) naming a topic that is no request topic, not replayed (listed on stderr)" }
        if unreplayable > 0 { skipped += "; \(unreplayable) of work that cannot be replayed (stubs or unreadable; listed on stderr)" }
        if replayed.count < kept.count { skipped += "; \(kept.count - replayed.count) of cancelled work, not replayed (listed on stderr)" }
        if !selection.folded.isEmpty { skipped += "; \(selection.folded.count) folded into another letter of their request" }
        for fold in selection.folded {
            let id = RequestID.shortForm(fold.letter.request?.id ?? "")
            Output.error("\(fold.letter.position) (request \(id)) goes with \(fold.into.position), which holds all its items")
        }
        if dryRun {
            Output.line("batch \(stamp.proposedName(input: input, at: now)) (dry run: not checked against the batch topic)")
            Output.line(
                "POSITION".padded(28) + " " + "REQUEST".padded(28) + " " + "OP".padded(20) + " " + "ITEMS".leftPadded(to: 6) + "  " + "ATTEMPTS  CODES → TOPIC")
            for letter in replayed {
                let request = letter.request!
                Output.line(
                    "\(letter.position.padded(28)) \(request.id.padded(28)) \(request.op.rawValue.padded(20)) \(String(request.items.count).leftPadded(to: 6))  \(String(letter.attempts).leftPadded(to: 8))  \(letter.codes.joined(separator: ",")) → \(letter.originalTopic ?? "?")"
                )
            }
            Output.line("dry run: would replay \(replayed.count) record(s), \(items) items, of \(read) in \(from); \(skipped)")
            return
        }
        guard !replayed.isEmpty else {
            Output.line("nothing to replay: \(read) record(s) in \(from), \(skipped)")
            return
        }
        let cluster = try await kafka.timeout.reach(configuration, for: "replaying from \(from)")
        let batch = try await stamp.name(input: input, at: now, cluster: cluster, kafka: kafka)
        Output.line("batch \(batch)")
        let producer: KafkaProducer
        do { producer = try KafkaProducer(configuration: configuration) } catch { throw kafka.timeout.failure("making a Kafka producer", configuration, error) }
        let replays = replayed.compactMap { letter in letter.replay(batch: batch).map { (record: $0, items: letter.request?.items.count ?? 0) } }
        var manifest = manifest(batch, replays: replays, selected: replayed, at: now)
        do { try await stamp.write(manifest, producer: producer, cluster: cluster, kafka: kafka) } catch {
            await producer.close(timeout: .zero)
            throw error
        }
        let progress = ProgressReporter("replay", total: items)
        var topics: [String: Int] = [:]
        var sent = 0
        do {
            try await producer.sendInOrder(replays.lazy.map(\.record), firstAnswerWithin: kafka.timeout.duration) { index, report in
                sent += 1
                topics[report.topic, default: 0] += 1
                progress.advance(by: replays[index].items)
            }
        } catch {
            progress.finish()
            // The broker did not take them: waiting for it to take the rest would only delay the exit.
            await producer.close(timeout: .zero)
            let topics = Set(replays.map(\.record.topic)).sorted()
            throw await kafka.timeout.sendFailure(
                "producing replays to \(topics.joined(separator: ", ")) (\(sent) of \(replays.count) record(s) acknowledged)", topics: topics, configuration,
                error)
        }
        progress.finish()
        manifest.state = .submitted
        do { try await stamp.write(manifest, producer: producer, cluster: cluster, kafka: kafka) } catch {
            await producer.close(timeout: .zero)
            throw error
        }
        await producer.close()
        let destinations = topics.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        Output.line("replayed \(replays.count) record(s), \(items) items, from \(from) to \(destinations); \(skipped)")
    }

    /// The replays' manifest: their one op (none when they mix ops), the one pipeline file that
    /// takes them from their topics (none when there are several or no files), and the SHA-256 of
    /// the values produced, each followed by a newline.
    private func manifest(
        _ batch: String, replays: [(record: KafkaProducerRecord, items: Int)], selected: [DeadLetter], at now: Date
    ) -> BatchManifest {
        let ops = Set(selected.compactMap { $0.request?.op })
        let topics = Set(replays.map(\.record.topic))
        let files = (try? PipelineFile.loadAll(defaults.pipelines)) ?? []
        let pipelines = Set(files.filter { file in topics.contains(file.requestTopic) && ops.allSatisfy(file.takes) }.map(\.name))
        var input: [UInt8] = []
        for replay in replays { input += (replay.record.value ?? []) + [UInt8(ascii: "\n")] }
        return BatchManifest(
            name: batch, op: ops.count == 1 ? ops.first : nil, pipeline: pipelines.count == 1 ? pipelines.first : nil, requestTopics: topics.sorted(),
            // Outcomes name the record they answer: letters of one id not folded together (an id a
            // producer used for two requests) are records of their own.
            requests: replays.count, items: replays.reduce(0) { $0 + $1.items }, createdBy: stamp.by,
            createdAt: now,
            inputSHA256: BatchManifest.inputDigest(input), state: .submitting)
    }

    /// The cancels in force on the control topic, to leave letters of cancelled work.
    ///
    /// - Throws: the reading's failure, naming the control topic (a missing one too, but for a
    ///   dry run, which warns: `run` makes it, so its name is likely wrong): replaying without
    ///   knowing the cancels could run cancelled deletions again (`--include-cancelled` does not
    ///   read it).
    private func cancelledLetters(_ configuration: KafkaConfiguration) async throws -> CancelledLetters {
        let board: ControlBoard
        do { board = try await control.topic(configuration).fetch(timeout: kafka.timeout.duration).board } catch {
            // A dry run lists what would go: without the control topic, with a warning.
            if dryRun, case .invalidArgument(name: "topic", let name, _) = error, name == control.controlTopic {
                Output.error("warning: the cluster has no control topic \(name): this dry run checks no cancel (give --control-topic if it has another name)")
                return CancelledLetters(board: ControlBoard(), pipelines: [])
            }
            throw kafka.timeout.failure(
                "reading the cancels in the control topic \(control.controlTopic) (or replay with --include-cancelled, which does not)", configuration, error)
        }
        return CancelledLetters(board: board, pipelines: defaults.readable(without: "every cancel may concern any letter"))
    }
}
