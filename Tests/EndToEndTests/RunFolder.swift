import Foundation
import Kafka

/// A temporary folder holding the fixture's service-account key and pipeline files, for running
/// the `iidbatch` binary against the fixture's broker and emulator. `remove()` deletes it.
struct RunFolder {
    /// The folder.
    let url: URL
    /// The key file `iidbatch run --credentials` reads.
    let keyPath: String

    /// A folder with `fixture`'s key in it.
    init(_ fixture: PipelineFixture, name: String) throws {
        url = try OperatorCommand.temporaryFolder(name)
        keyPath = url.appendingPathComponent("key.json").path
        try fixture.keyJSON.write(to: URL(fileURLWithPath: keyPath))
    }

    /// Writes a pipeline file on the fixture's topics in consumer group `group`, with `settings`
    /// (more YAML lines); returns its path.
    func pipeline(_ fixture: PipelineFixture, group: String, _ settings: String = "") throws -> String {
        let path = url.appendingPathComponent("\(group).yaml").path
        try """
        request-topic: \(fixture.requestTopic)
        group: \(group)
        outcome-topic: \(fixture.outcomeTopic)
        dead-letter-topic: \(fixture.deadLetterTopic)
        \(settings)
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `iidbatch run` of `pipeline` against the fixture's broker and emulator, then `extra`.
    func runArguments(_ fixture: PipelineFixture, pipeline: String, _ extra: [String] = []) -> [String] {
        ["run", pipeline, "--brokers", fixture.kafka.bootstrapServers, "--credentials", keyPath, "--backend-url", fixture.emulator.baseURL] + extra
    }

    /// `-X` options for workers that share a group: the embedded cluster's consumer settings
    /// (`EmbeddedKafka.consumerDefaults`, which says why they are needed).
    static let groupOptions = EmbeddedKafka.consumerAssignments.flatMap { ["-X", $0] }

    /// Deletes the folder.
    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
