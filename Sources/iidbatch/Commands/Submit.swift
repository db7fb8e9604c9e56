import ArgumentParser
import Foundation
import InstanceAPI
import Kafka
import Pipeline

/// `iidbatch submit`: turns a file of items into request records.
struct Submit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Put work in: turn a file of tokens or installation ids into request records.",
        discussion: """
            Reads one item per line (or one column of a CSV file with a header row; '-' reads \
            stdin), cuts the items into records of --record-size, and produces them to the op's \
            request topic, keyed by topic name, subject, application or group name so that changes \
            to one thing keep their order. Ids are <prefix>-000001, -000002, …; the prefix is a hash \
            of the op, target, record size and items, so submitting the same input again produces \
            the same ids (and the operations are idempotent). Bad lines (whitespace or control \
            characters inside an item, a CSV row without the column, a non-hex APNs token) are \
            reported with their line numbers and skipped, or, with --strict, stop the submit before \
            anything is produced.
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

    @Option(help: ArgumentHelp("Items per record (default: 1000 for topics, 100 for imports and deletions, 20 for groups).", valueName: "n"))
    var recordSize: Int?

    @Option(help: ArgumentHelp("The request topic (default: that of the pipeline file that takes the op).", valueName: "kafka-topic"))
    var requestTopic: String?

    @OptionGroup var defaults: PipelineTopics

    @Option(help: "The input layout: lines or csv (default: csv for *.csv, else lines).")
    var format: String?

    @Option(help: ArgumentHelp("CSV: the item column, by header name or 1-based number.", valueName: "name|n"))
    var column = "1"

    @Option(help: "Ids are <prefix>-<n> with this prefix instead of the derived one.")
    var idPrefix: String?

    @Flag(help: "Fail (exit 1, produce nothing) when any line is bad, instead of skipping it.")
    var strict = false

    @OptionGroup var kafka: KafkaOptions

    func run() async throws {
        guard let operation = RequestOp(rawValue: op) else { throw ValidationError("--op: unknown op '\(op)'; expected one of \(RequestOp.names)") }
        let target = try SubmitTarget.target(
            for: operation, topic: topic, subject: subject, application: application, sandbox: sandbox, group: group, notificationKey: notificationKey,
            details: details, byKey: byKey)
        let size = recordSize ?? SubmitTarget.defaultRecordSize(operation)
        let limit = operation.requestItemLimit ?? RequestDecoder().maxItems
        guard (1...limit).contains(size) else { throw ValidationError("--record-size: \(size) is out of range 1-\(limit) for \(op)") }
        let list = try readItems(operation)
        report(list)
        if strict && !list.badLines.isEmpty {
            throw ValidationError("--strict: \(list.badLines.count) bad line(s); nothing was submitted")
        }
        guard !list.items.isEmpty else { throw ValidationError("\(input): no items to submit") }
        let plan = SubmitPlan(op: operation, target: target, recordSize: size, items: list.items, idPrefix: idPrefix)
        let topic = try requestTopic ?? defaults.requestTopic(for: operation, orName: "--request-topic")
        let records = plan.recordCount(items: list.items.count)
        let configuration = try kafka.configuration()
        let producer = try KafkaProducer(configuration: configuration)
        let progress = ProgressReporter("submit", total: list.items.count)
        let outgoing = (1...records).lazy.map { number in
            let request = plan.request(number, of: list.items)
            return KafkaProducerRecord(topic: topic, key: Array(request.recordKey.utf8), value: Array(request.jsonBody()))
        }
        var sent = 0
        do {
            // In order: one key's records must reach its partition in file order.
            try await producer.sendInOrder(outgoing) { index, _ in
                sent += 1
                progress.advance(by: min(size, list.items.count - index * size))
            }
        } catch {
            progress.finish()
            await producer.close()
            throw ValidationError("producing to \(topic) at \(configuration["bootstrap.servers"] ?? "") failed after \(sent) of \(records) record(s): \(error)")
        }
        progress.finish()
        await producer.close()
        Output.line("submitted \(records) record(s), \(list.items.count) items, to \(topic): ids \(plan.id(1)) … \(plan.id(records))")
    }

    private func readItems(_ operation: RequestOp) throws -> ItemList {
        let data: Data
        if input == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            do { data = try Data(contentsOf: URL(fileURLWithPath: input)) } catch {
                throw ValidationError("\(input): cannot read the file: \((error as NSError).localizedDescription)")
            }
        }
        let layout: ItemList.Format
        switch format ?? (input.lowercased().hasSuffix(".csv") ? "csv" : "lines") {
        case "lines": layout = .lines
        case "csv": layout = .csv(column: column)
        case let other: throw ValidationError("--format: '\(other)' is not lines or csv")
        }
        do { return try ItemList(data, format: layout, op: operation) } catch { throw ValidationError("\(input): \(error)") }
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
