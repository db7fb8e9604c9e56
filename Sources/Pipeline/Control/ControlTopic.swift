import Kafka

/// The compacted Kafka topic of operator overrides: one record per scope (a pipeline's name, or
/// `*`), keyed by the scope, whose value is a `ControlDocument` or a tombstone. Workers `fetch` it
/// whole before their first request and then `follow` it; `iidbatch control` reads and writes it.
///
/// Reading joins no consumer group and commits nothing, so any number of workers and operator
/// commands read it side by side.
public struct ControlTopic: Sendable {
    /// The topic used when none is named.
    public static let defaultName = "iidbatch.control"

    /// The topic as a cluster iidbatch starts itself (the embedded one) is made with: `iidbatch
    /// run` reads the control topic before it starts, and librdkafka's mock cluster does not
    /// create a topic a client asks for.
    public static let embeddedSpec = KafkaTopicSpec(name: defaultName)

    /// The header of a tombstone naming who reset the scope.
    public static let updatedByHeader = "iidbatch-updated-by"
    /// The header of a tombstone saying why.
    public static let reasonHeader = "iidbatch-reason"

    /// The topic's name.
    public let name: String
    private let configuration: KafkaConfiguration

    /// The control topic `name` of the cluster `configuration` reaches.
    public init(name: String = ControlTopic.defaultName, configuration: KafkaConfiguration) {
        self.name = name
        self.configuration = configuration
    }

    /// Reads every record the topic holds now, in offset order.
    ///
    /// - Parameter timeout: how long the cluster may take to answer each request for the topic's
    ///   metadata and offsets.
    /// - Throws: `.invalidArgument` naming the topic when the cluster has none of that name,
    ///   `.timedOut` or a transport error when it does not answer within `timeout`, or the
    ///   broker's error.
    public func fetch(timeout: Duration = .seconds(10)) async throws(KafkaError) -> ControlSnapshot {
        let reader = try await KafkaTopicReader(configuration: configuration, topics: [name], timeout: timeout)
        defer { reader.close() }
        var snapshot = ControlSnapshot(endOffsets: reader.endOffsets)
        for try await record in reader.records { snapshot.read(record) }
        return snapshot
    }

    /// Follows the topic from where `snapshot` ended, handing `body` each record's change and the
    /// board after it, until the task is cancelled.
    ///
    /// - Throws: the reader's fatal error.
    public func follow(from snapshot: ControlSnapshot, _ body: (ControlBoard, ControlBoard.Change) async -> Void) async throws(KafkaError) {
        // A new version is fetched within about 100 ms of being written.
        let reader = try await KafkaTopicReader(
            configuration: configuration.withDefaults(["fetch.wait.max.ms": "100"]), topics: [name], follow: true, from: snapshot.endOffsets)
        defer { reader.close() }
        var board = snapshot.board
        for try await record in reader.records {
            let change = board.receive(record)
            await body(board, change)
        }
    }

    /// Writes `document` as the new version of `scope` and waits until every in-sync replica has it.
    ///
    /// - Returns: where the broker stored it.
    /// - Throws: the broker's error.
    @discardableResult
    public func write(scope: String, _ document: ControlDocument) async throws(KafkaError) -> KafkaDeliveryReport {
        try await send(scope: scope, value: document.jsonBytes(), headers: [])
    }

    /// Writes `cancel` as a record of its own (`ControlCancel.recordKey`) and waits until every
    /// in-sync replica has it.
    ///
    /// - Returns: where the broker stored it.
    /// - Throws: the broker's error.
    @discardableResult
    public func write(_ cancel: ControlCancel) async throws(KafkaError) -> KafkaDeliveryReport {
        try await send(scope: cancel.recordKey, value: cancel.jsonBytes(), headers: [])
    }

    /// Writes a tombstone for `scope`, returning its pipelines to their files, with who and why in
    /// its headers, and waits until every in-sync replica has it.
    ///
    /// - Returns: where the broker stored it.
    /// - Throws: the broker's error.
    @discardableResult
    public func reset(scope: String, updatedBy: String, reason: String) async throws(KafkaError) -> KafkaDeliveryReport {
        try await send(
            scope: scope, value: nil, headers: [KafkaHeader(key: Self.updatedByHeader, string: updatedBy), KafkaHeader(key: Self.reasonHeader, string: reason)])
    }

    private func send(scope: String, value: [UInt8]?, headers: [KafkaHeader]) async throws(KafkaError) -> KafkaDeliveryReport {
        let producer = try KafkaProducer(configuration: configuration.withDefaults(["acks": "all"]))
        do {
            let report = try await producer.send(topic: name, key: Array(scope.utf8), value: value, headers: headers)
            await producer.close(timeout: .seconds(5))
            return report
        } catch {
            await producer.close(timeout: .seconds(5))
            throw error
        }
    }
}
