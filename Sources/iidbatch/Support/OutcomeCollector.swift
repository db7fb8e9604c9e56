import CommandSupport
import Foundation
import Kafka
import Pipeline
import Synchronization

/// Reads outcome and dead-letter topics in the background into a `Reconciliation`.
final class OutcomeCollector: Sendable {
    private struct State {
        var reconciliation = Reconciliation()
        var deadLetters = 0
        var undecodable = 0
        var lastOutcome = ContinuousClock.now
    }

    private let state = Mutex(State())
    private let consumer: KafkaConsumer
    private let deadLetterTopics: Set<String>

    /// Joins a fresh group on `outcomeTopics` and `deadLetterTopics`, from the beginning.
    init(configuration: KafkaConfiguration, outcomeTopics: [String], deadLetterTopics: [String]) throws(KafkaError) {
        let topics = Array(Set(outcomeTopics + deadLetterTopics)).sorted()
        consumer = try KafkaConsumer(configuration: configuration, groupID: "iidbatch-collector-\(UUID().uuidString.prefix(8))", topics: topics)
        self.deadLetterTopics = Set(deadLetterTopics)
    }

    /// Expects an outcome for `id`.
    func expect(_ id: String) { state.withLock { $0.reconciliation.expect(id) } }

    /// The reconciliation so far.
    var reconciliation: Reconciliation { state.withLock { $0.reconciliation } }

    /// Dead-letter records seen, and how many of them were undecodable records.
    var deadLetters: (all: Int, undecodable: Int) { state.withLock { ($0.deadLetters, $0.undecodable) } }

    /// When the last outcome arrived.
    var lastOutcome: ContinuousClock.Instant { state.withLock { $0.lastOutcome } }

    /// Reads until `close()`.
    func run() async {
        let decoder = Outcome.decoder()
        do {
            for try await event in consumer.events {
                guard case .record(let record) = event else { continue }
                if deadLetterTopics.contains(record.topic) {
                    let undecodable = DeadLetter.kind(of: record) == .undecodable
                    state.withLock {
                        $0.deadLetters += 1
                        if undecodable { $0.undecodable += 1 }
                    }
                } else if let value = record.value, let outcome = Outcome.read(value, using: decoder) {
                    state.withLock {
                        $0.reconciliation.record(outcome)
                        $0.lastOutcome = .now
                    }
                }
            }
        } catch {
            Output.error("reading outcomes failed: \(error)")
        }
    }

    /// Stops reading.
    func close() async { try? await consumer.close() }
}
