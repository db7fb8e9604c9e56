import Foundation
import Kafka
import Pipeline

/// The operator commands (`submit`, `outcomes`, `replay`, `reconcile`) run as a user runs them:
/// the built binary, against a cluster over TCP.
enum OperatorCommand {
    /// Runs `iidbatch <arguments> --brokers <brokers>` to completion.
    static func run(_ arguments: [String], brokers: String, stdin: Data? = nil, seconds: Double = 180) async throws -> (status: Int32, output: String) {
        try await ChildProcess.run(try Programs.iidbatch, arguments + ["--brokers", brokers], stdin: stdin, seconds: seconds)
    }

    /// Every record `topic` holds now, read without joining a group.
    static func records(_ kafka: EmbeddedKafka, _ topic: String) async throws -> [KafkaRecord] {
        let reader = try await KafkaTopicReader(configuration: kafka.configuration(), topics: [topic])
        defer { reader.close() }
        var records: [KafkaRecord] = []
        for try await record in reader.records { records.append(record) }
        return records
    }

    /// The requests `topic` holds now, decoded, in offset order per partition.
    static func requests(_ kafka: EmbeddedKafka, _ topic: String) async throws -> [(record: KafkaRecord, request: PipelineRequest)] {
        try await records(kafka, topic).map { record in (record, try RequestDecoder().decode(record.value ?? []).get()) }
    }

    /// A temporary folder, removed by the caller.
    static func temporaryFolder(_ name: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("iidbatch-\(name)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}

extension String {
    /// The string padded on the right to `width` characters, as the operator commands print their columns.
    func padded(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
