import Kafka
import WireJSON

/// The compacted Kafka topic of batch manifests: one record per batch, keyed by its name, whose
/// value is a `BatchManifest`. `iidbatch submit` and `replay` write it; `iidbatch batches` reads it.
///
/// Reading joins no consumer group and commits nothing.
public struct BatchTopic: Sendable {
    /// The topic used when none is named.
    public static let defaultName = "iidbatch.batches"

    /// The topic as a cluster iidbatch starts itself (the embedded one) is made with: librdkafka's
    /// mock cluster does not create a topic a client writes to.
    public static let embeddedSpec = KafkaTopicSpec(name: defaultName)

    /// The manifests read, the latest per batch, and the records refused.
    public struct Contents: Sendable {
        /// The latest manifest of each batch, by name.
        public var manifests: [String: BatchManifest] = [:]
        /// The records that are not manifests, each with where it sits and why.
        public var refused: [(position: String, error: BatchManifestError)] = []

        /// Nothing read yet.
        public init() {}

        /// Reads the next record: the latest record of a key is its truth; a tombstone removes it.
        public mutating func read(_ record: KafkaRecord) {
            let key = record.key.map { String(decoding: $0, as: UTF8.self) }
            // Before the key is hashed, in time quadratic in such text.
            if let key, StreamSafeText.exceedsLimit(key) {
                refused.append(("\(record.topic)/\(record.partition)/\(record.offset)", BatchManifestError(field: "key", StreamSafeText.reason)))
                return
            }
            guard let value = record.value else {
                if let key { manifests[key] = nil }
                return
            }
            do {
                let manifest = try BatchManifest.parse(value)
                guard key == manifest.name else {
                    refused.append(("\(record.topic)/\(record.partition)/\(record.offset)", BatchManifestError(field: "name", "is not the record key")))
                    return
                }
                manifests[manifest.name] = manifest
            } catch {
                refused.append(("\(record.topic)/\(record.partition)/\(record.offset)", error))
            }
        }
    }

    /// The topic's name.
    public let name: String

    /// The batch topic `name`.
    public init(name: String = BatchTopic.defaultName) {
        self.name = name
    }

    /// The record that writes `manifest`: keyed by the batch's name.
    public func record(_ manifest: BatchManifest) -> KafkaProducerRecord {
        KafkaProducerRecord(topic: name, key: Array(manifest.name.utf8), value: manifest.jsonBytes())
    }
}
