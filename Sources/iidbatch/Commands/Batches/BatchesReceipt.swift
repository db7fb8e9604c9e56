import ArgumentParser
import CommandSupport
import Foundation
import Kafka
import Pipeline

/// `iidbatch batches receipt NAME`: one document for a batch, for an auditor.
struct BatchesReceipt: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receipt",
        abstract: "Write one batch's receipt: per request its status, per item its final code and time, totals, cancels, and the outcomes' SHA-256.",
        discussion: """
            Reads the batch's outcomes (from its creation) and its request records. Deletions: \
            each installation's code and time are its outcome's receipt line. Other ops: failed \
            items from the outcome's failedItems, every other item of the request record with the \
            success code (OK) and the outcome's completedAt; the record is the one of its id whose \
            items fit the outcome, and when no single one is known only the failed items are \
            listed (itemsComplete false). A request with several outcomes (a \
            redelivery) is reported by the last by offset. outcomesSha256 is the SHA-256 of each \
            outcome record of the batch in topic, partition and offset order, as \
            `kcat -C -e -t TOPIC -f '%t %p %o %S\\n%s\\n'` prints it (keeping the batch's records): \
            docs/records.md says how to check it. --format csv writes one row per item.
            """)

    @Argument(help: "The batch's name.")
    var name: String

    @Option(help: "json or csv.")
    var format = "json"

    @Option(help: ArgumentHelp("Write the receipt to FILE (default: stdout).", valueName: "file"))
    var output: String?

    @Option(help: ArgumentHelp("A request topic. Repeatable. Default: those of the batch's manifest.", valueName: "kafka-topic"))
    var requests: [String] = []

    @OptionGroup var sources: BatchSources

    func validate() throws {
        guard ["json", "csv"].contains(format) else { throw ValidationError("--format: '\(format)' is not json or csv") }
    }

    func run() async throws {
        let manifest = try await sources.manifest(name)
        var outcomes: [(record: KafkaRecord, outcome: Outcome)] = []
        let outcomeTopics = try sources.outcomeTopics(for: [manifest])
        let extent = try await sources.readOutcomes(outcomeTopics, since: manifest.outcomesSince) { record, outcome in
            if outcome.batch == manifest.name { outcomes.append((record, outcome)) }
            return true
        }
        Output.error(extent.summary("receipt", outcomeTopics))
        var records: [PipelineRequest] = []
        // Each request record read as its pipeline's worker read it: one within that worker's
        // limits but past the defaults is the batch's.
        let pipelines = sources.defaults.readable(without: "request records are read with the default limits")
        let configuration = try sources.kafka.configuration()
        try await TopicScan.read(
            requests.isEmpty ? manifest.requestTopics : requests, kafka: configuration, timeout: sources.kafka.timeout, since: manifest.outcomesSince
        ) {
            record in
            if case .success(let request) = RequestDecoder(readingTopic: record.topic, of: pipelines).decode(record.value ?? []),
                request.batch == manifest.name
            {
                records.append(request)
            }
            return true
        }
        let board = await sources.board()
        let receipt = BatchReceipt(
            manifest: manifest, outcomes: outcomes, requests: records, cancels: BatchSources.cancels(of: manifest, on: board, readers: sources.readers))
        let bytes = format == "csv" ? Array(receipt.csv().utf8) : receipt.jsonBytes() + [UInt8(ascii: "\n")]
        if let output {
            do { try Data(bytes).write(to: URL(fileURLWithPath: output)) } catch {
                throw RuntimeError(.ioError, "\(output): cannot write the receipt: \((error as NSError).localizedDescription)")
            }
        } else if Output.isTerminal {
            // On a terminal, line by line without control characters (`TerminalText`): items and
            // ids are what records said. A pipe or file gets the document's bytes. (CSV lines
            // end in CR LF, JSON's in LF.)
            let end = format == "csv" ? "\r\n" : "\n"
            let lines = String(decoding: bytes, as: UTF8.self).components(separatedBy: end)
            FileHandle.standardOutput.write(Data(lines.map(TerminalText.printable).joined(separator: end).utf8))
        } else {
            FileHandle.standardOutput.write(Data(bytes))
        }
        if let skipped = manifest.skippedLines {
            Output.error("batch \(manifest.name): submit skipped \(skipped) bad line(s) of its input: their items are in no request of this receipt")
        }
        if receipt.unlistedIDs {
            Output.error(
                "batch \(manifest.name): its manifest names \(manifest.requests) requests, more than a receipt lists unread: requests of which nothing was read are not listed"
            )
        }
        let statuses = receipt.requestsByStatus.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        Output.error(
            "batch \(manifest.name): \(receipt.requests.count) request(s) (\(statuses)), \(receipt.outcomeRecords) outcome record(s), outcomesSha256 \(receipt.outcomesSHA256)"
        )
    }
}
