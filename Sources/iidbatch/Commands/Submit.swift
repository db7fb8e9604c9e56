import ArgumentParser
import CommandSupport
import Foundation
import InstanceAPI
import Kafka
import Pipeline

/// `iidbatch submit`: turns a file of items into request records.
struct Submit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Put work in: turn a file of tokens or installation ids into request records.",
        discussion: """
            Reads one item per line (or one column of a CSV file with a header row, its fields \
            separated by --csv-delimiter; '-' reads stdin), cuts the items into records of \
            --record-size, and produces them to the op's request topic, keyed by topic name, subject, application or group name so that changes \
            to one thing keep their order. Ids are <prefix>-000001, -000002, …; the prefix is a hash \
            of the op, target, record size and items, so submitting the same input again produces \
            the same ids (and the operations are idempotent). Bad lines (whitespace or control \
            characters inside an item, a CSV row without the column, a non-hex APNs token) are \
            reported with their line numbers and skipped, or, with --strict, stop the submit before \
            anything is produced. Every record names the batch (--batch, printed); the \
            batch's manifest (op, pipeline, counts, who, when, the input's SHA-256) goes to the \
            batch topic before the first record and again, submitted, after the last was \
            acknowledged: `iidbatch batches` follows it.
            """
    )

    @Option(help: ArgumentHelp("The op: \(RequestOp.names).", valueName: "op"))
    var op: String

    @Argument(help: ArgumentHelp("The item file, or '-' for stdin.", valueName: "file"))
    var input: String

    @Option(help: "topics.*: the FCM topic name (without /topics/).")
    var topic: String?

    @Option(help: "installations.delete: the data subject, recorded in the outcome (the erasure receipt).")
    var subject: String?

    @Option(help: "apns.import: the iOS bundle id.")
    var application: String?

    @Flag(help: "apns.import: the tokens are from the APNs sandbox (default: production).")
    var sandbox = false

    @Option(help: "groups.*: the device group's name (notification_key_name).")
    var group: String?

    @Option(help: "groups.add/remove: the group's notification key, when known (else it is looked up by name).")
    var notificationKey: String?

    @Flag(help: "instances.info: ask for topic subscriptions too.")
    var details = false

    @Flag(help: "groups.export: the lines are notification keys (default: notification key names).")
    var byKey = false

    @Option(
        help: ArgumentHelp(
            "Items per record (default: 1000 for topics, 100 for imports, deletions and lookups, 20 for group changes, 50 for group exports).",
            valueName: "n"))
    var recordSize: Int?

    @Option(help: ArgumentHelp("The request topic (default: that of the pipeline file that takes the op).", valueName: "kafka-topic"))
    var requestTopic: String?

    @OptionGroup var defaults: PipelineTopics

    @Option(
        help: ArgumentHelp(
            "The pipeline that takes the records, in the batch's manifest (default: the pipeline file that takes the op from the request topic).",
            valueName: "name"))
    var pipeline: String?

    @OptionGroup var stamp: BatchStamp

    @Option(help: "The input layout: lines or csv (default: csv for *.csv, else lines).")
    var format: String?

    @Option(help: ArgumentHelp("CSV: the item column, by header name or 1-based number.", valueName: "name|n"))
    var column = "1"

    @Option(
        help: ArgumentHelp(
            "CSV: the field delimiter, \(CSVDelimiter.names) (default ','; Excel writes ';' in many locales). Implies --format csv.",
            valueName: "delimiter"))
    var csvDelimiter: String?

    @Option(help: "Ids are <prefix>-<n> with this prefix instead of the derived one.")
    var idPrefix: String?

    @Flag(help: "Fail (exit \(ExitStatus.dataError.rawValue), produce nothing) when any line is bad, instead of skipping it.")
    var strict = false

    @OptionGroup var kafka: KafkaOptions

    func run() async throws {
        guard let operation = RequestOp(rawValue: op) else { throw ValidationError("--op: unknown op '\(op)'; expected one of \(RequestOp.names)") }
        let target = try SubmitTarget.target(
            for: operation, topic: topic, subject: subject, application: application, sandbox: sandbox, group: group, notificationKey: notificationKey,
            details: details, byKey: byKey)
        if let idPrefix, let problem = SubmitPlan.problem(withIDPrefix: idPrefix) { throw ValidationError("--id-prefix: '\(idPrefix)' \(problem)") }
        let now = Date()
        let size = recordSize ?? SubmitTarget.defaultRecordSize(operation)
        let limit = operation.requestItemLimit ?? RequestDecoder().maxItems
        guard (1...limit).contains(size) else { throw ValidationError("--record-size: \(size) is out of range 1-\(limit) for \(op)") }
        // The input first: bad input is reported (65, 66) before any broker is asked.
        let (data, list) = try readItems(operation)
        report(list)
        if strict && !list.badLines.isEmpty {
            throw RuntimeError(.dataError, "\(input): --strict: \(list.badLines.count) bad line(s); nothing was submitted")
        }
        guard !list.items.isEmpty else { throw RuntimeError(.dataError, "\(input): no items to submit") }
        let topic = try requestTopic ?? defaults.requestTopic(for: operation, orName: "--request-topic")
        // The pipeline file that takes the op from that topic, when the files are at hand.
        let files: [PipelineConfiguration]
        do { files = try PipelineFile.loadAll(defaults.pipelines) } catch {
            if FileManager.default.fileExists(atPath: defaults.pipelines) {
                Output.error("warning: --pipelines: \(error): records are checked against the default limits, not the pipeline's")
            }
            files = []
        }
        let pipelineName = pipeline ?? files.first { $0.requestTopic == topic && $0.takes(operation) }?.name
        let configuration = try kafka.configuration()
        // First contact, bounded by --timeout: an unreachable cluster is reported now, by name.
        let cluster = try await kafka.timeout.reach(configuration, for: "producing to \(topic)")
        let digest = BatchManifest.inputDigest(data)
        let prefix = SubmitPlan(op: operation, target: target, recordSize: size, items: list.items, idPrefix: idPrefix).idPrefix
        // A submit that failed halfway is run again under its name: the same work (the id prefix
        // derived from op, target, record size and items; the same input, topic and counts), left
        // submitting. A given --id-prefix says nothing of the target: no take-over then.
        let records = SubmitPlan(op: operation, target: target, recordSize: size, items: list.items, idPrefix: prefix).recordCount(items: list.items.count)
        let batch = try await stamp.name(input: input == "-" ? nil : input, at: now, cluster: cluster, kafka: kafka) { existing in
            idPrefix == nil && existing.state == .submitting && existing.op == operation && existing.inputSHA256 == digest && existing.idPrefix == prefix
                && existing.requestTopics == [topic] && existing.requests == records && existing.items == list.items.count
        }
        Output.line("batch \(batch)")
        let plan = SubmitPlan(op: operation, target: target, recordSize: size, items: list.items, idPrefix: prefix, batch: batch)
        // Each record as the worker reading the topic will read it: one it would reject (too large
        // for its max-record-bytes, an outcome past its max-outcome-bytes) stops the submit here,
        // where a smaller --record-size fixes it, not as a rejected outcome of no batch.
        let decoder = RequestDecoder(readingTopic: topic, of: files)
        for number in 1...records {
            let request = plan.request(number, of: list.items)
            let bytes = Array(request.jsonBody())
            if case .failure(let rejection) = decoder.decode(bytes) {
                throw RuntimeError(
                    .dataError,
                    "record \(number) (\(request.id), \(request.items.count) items, \(bytes.count) bytes) would be rejected by the worker reading \(topic): \(rejection.reason); nothing was submitted (a smaller --record-size makes smaller records)"
                )
            }
        }
        let producer: KafkaProducer
        do { producer = try KafkaProducer(configuration: configuration) } catch { throw kafka.timeout.failure("making a Kafka producer", configuration, error) }
        var manifest = BatchManifest(
            name: batch, op: operation, pipeline: pipelineName, requestTopics: [topic], requests: records, items: list.items.count, createdBy: stamp.by,
            createdAt: now, inputSHA256: digest, state: .submitting, idPrefix: plan.idPrefix,
            skippedLines: list.badLines.count)
        do { try await stamp.write(manifest, producer: producer, cluster: cluster, kafka: kafka) } catch {
            await producer.close(timeout: .zero)
            throw error
        }
        let progress = ProgressReporter("submit", total: list.items.count)
        let outgoing = (1...records).lazy.map { number in
            let request = plan.request(number, of: list.items)
            return KafkaProducerRecord(topic: topic, key: Array(request.recordKey.utf8), value: Array(request.jsonBody()))
        }
        var sent = 0
        do {
            // In order: one key's records must reach its partition in file order.
            try await producer.sendInOrder(outgoing, firstAnswerWithin: kafka.timeout.duration) { index, _ in
                sent += 1
                progress.advance(by: min(size, list.items.count - index * size))
            }
        } catch {
            progress.finish()
            // The broker did not take them: waiting for it to take the rest would only delay the exit.
            await producer.close(timeout: .zero)
            throw await kafka.timeout.sendFailure(
                "producing to \(topic) (\(sent) of \(records) record(s) acknowledged)", topics: [topic], configuration, error)
        }
        progress.finish()
        manifest.state = .submitted
        do { try await stamp.write(manifest, producer: producer, cluster: cluster, kafka: kafka) } catch {
            await producer.close(timeout: .zero)
            throw error
        }
        await producer.close()
        Output.line("submitted \(records) record(s), \(list.items.count) items, to \(topic): ids \(plan.id(1)) … \(plan.id(records))")
    }

    private func readItems(_ operation: RequestOp) throws -> (Data, ItemList) {
        let layout = try inputLayout()
        let data: Data
        if input == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            do { data = try Data(contentsOf: URL(fileURLWithPath: input)) } catch {
                throw RuntimeError(.noInput, "\(input): cannot read the file: \((error as NSError).localizedDescription)")
            }
        }
        do { return (data, try ItemList(data, format: layout, op: operation)) } catch { throw RuntimeError(.dataError, "\(input): \(error)") }
    }

    /// The layout the options name: `--format`, else csv when `--csv-delimiter` is given or the
    /// file is named *.csv, else lines; the CSV fields cut on `--csv-delimiter` (default `,`).
    private func inputLayout() throws -> ItemList.Format {
        let delimiter: CSVDelimiter
        do { delimiter = try csvDelimiter.map(CSVDelimiter.init) ?? .comma } catch { throw ValidationError("--csv-delimiter: \(error)") }
        switch format ?? (csvDelimiter != nil || input.lowercased().hasSuffix(".csv") ? "csv" : "lines") {
        case "lines":
            if csvDelimiter != nil { throw ValidationError("--csv-delimiter \(delimiter) is for CSV input, but --format is lines") }
            return .lines
        case "csv": return .csv(column: column, delimiter: delimiter)
        case let other: throw ValidationError("--format: '\(other)' is not lines or csv")
        }
    }

    private func report(_ list: ItemList) {
        for bad in list.badLines.prefix(50) { Output.error("\(input): \(bad)") }
        if list.badLines.count > 50 { Output.error("\(input): … and \(list.badLines.count - 50) more bad lines") }
        var parts = ["\(list.items.count) items"]
        if !list.badLines.isEmpty { parts.append("\(list.badLines.count) bad line(s) \(strict ? "(--strict)" : "skipped")") }
        if list.blankLines > 0 { parts.append("\(list.blankLines) blank line(s) skipped") }
        Output.line("read \(input): " + parts.joined(separator: ", "))
    }
}
