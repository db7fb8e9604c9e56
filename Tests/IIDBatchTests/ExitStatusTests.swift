import Foundation
import InstanceAPI
import Kafka
import Pipeline
import Testing

@testable import CommandSupport
@testable import iidbatch

/// Which sysexits status each kind of failure ends a command with.
@Suite("ExitStatus: sysexits by kind of failure")
struct ExitStatusTests {
    @Test("the numbers are sysexits.h's")
    func numbers() {
        #expect(CommandSupport.ExitStatus.allCases.map(\.rawValue) == [0, 64, 65, 66, 69, 70, 74, 78])
        #expect(ProcessExit.checkFailedStatus == 70)
    }

    @Test(
        "Kafka errors: no answer is 69, a refusal of credentials or a missing topic is 78, a record too large is 65, a closed client is 70",
        arguments: [
            (KafkaError.timedOut(operation: "metadata", timeout: .seconds(2)), CommandSupport.ExitStatus.unavailable),
            (.broker(code: .transport, message: "Connection refused"), .unavailable),
            (.broker(code: .allBrokersDown, message: "down"), .unavailable),
            (.broker(code: .messageTimedOut, message: "timed out"), .unavailable),
            (.queueFull(topic: "t", waited: .seconds(60)), .unavailable),
            (.broker(code: .notEnoughReplicas, message: "isr"), .unavailable),
            (.broker(code: .saslAuthenticationFailed, message: "bad password"), .config),
            (.broker(code: .authentication, message: "SASL"), .config),
            (.broker(code: .topicAuthorizationFailed, message: "ACL"), .config),
            (.broker(code: .unknownTopicOrPartition, message: "no topic"), .config),
            (.invalidArgument(name: "topic", value: "x", reason: "the cluster has no such topic"), .config),
            (.invalidConfiguration(property: "acks", value: "many", reason: "invalid"), .config),
            (.malformedPropertyAssignment("acks"), .config),
            (.broker(code: .messageSizeTooLarge, message: "too large"), .dataError),
            (.closed(operation: "send"), .software),
            (.cancelled(operation: "send"), .software),
        ])
    func kafka(_ error: KafkaError, _ status: CommandSupport.ExitStatus) {
        #expect(CommandSupport.ExitStatus(error) == status, "\(error)")
        #expect(CommandSupport.ExitStatus(unclassified: error) == status, "an unclassified Kafka error is judged by its kind")
    }

    @Test("only errors that say the cluster did not answer are reported as 'did not answer within --timeout'")
    func noAnswer() {
        #expect(KafkaTimeout.isNoAnswer(.timedOut(operation: "metadata", timeout: .seconds(2))))
        #expect(KafkaTimeout.isNoAnswer(.broker(code: .transport, message: "")))
        #expect(KafkaTimeout.isNoAnswer(.broker(code: .resolve, message: "")))
        #expect(!KafkaTimeout.isNoAnswer(.broker(code: .notEnoughReplicas, message: "")))
        #expect(!KafkaTimeout.isNoAnswer(.broker(code: .saslAuthenticationFailed, message: "")))
    }

    @Test("a failure names the brokers, and says the timeout only when nothing answered")
    func failureMessages() throws {
        let timeout = try KafkaTimeout.parse(["--timeout", "2s"])
        let configuration = KafkaConfiguration(bootstrapServers: "broker-1:9092,broker-2:9092")
        let silent = timeout.failure("reading o", configuration, .broker(code: .transport, message: "Connection refused"))
        #expect(silent.status == .unavailable)
        #expect(
            silent.description
                == "reading o: the Kafka brokers at broker-1:9092,broker-2:9092 did not answer within --timeout 2s: \(KafkaError.broker(code: .transport, message: "Connection refused"))"
        )
        let refused = timeout.failure("reading o", configuration, .broker(code: .topicAuthorizationFailed, message: "ACL"))
        #expect(refused.status == .config && refused.description.hasPrefix("reading o failed at broker-1:9092,broker-2:9092: "), "\(refused)")
        #expect(try KafkaTimeout.parse([]).duration == .seconds(15), "the default")
        #expect(try KafkaTimeout.parse(["--timeout", "1500ms"]).milliseconds == 1_500)
        #expect(throws: (any Error).self) { try KafkaTimeout.parse(["--timeout", "0s"]) }
    }

    @Test("pipeline files are configuration; a key file that is missing is no input, a malformed one configuration")
    func files() {
        #expect(CommandSupport.ExitStatus(PipelineFileError(file: "p.yaml", key: nil, reason: "is not valid YAML")) == .config)
        #expect(CommandSupport.ExitStatus(unclassified: CredentialsError.fileNotFound(path: "k.json")) == .noInput)
        #expect(CommandSupport.ExitStatus(unclassified: CredentialsError.invalidJSON(path: "k.json")) == .config)
        #expect(CommandSupport.ExitStatus(unclassified: RuntimeError(.dataError, "bad")) == .dataError)
        let refused = PipelineWorkerError.publish(topic: "o", requestID: "r", .broker(code: .topicAuthorizationFailed, message: "ACL"))
        #expect(CommandSupport.ExitStatus(unclassified: refused) == .config, "a worker stopped by a refused topic")
        #expect(CommandSupport.ExitStatus(unclassified: PipelineWorkerError.unpublishable(requestID: "r", reason: "x")) == .software)
        #expect(CommandSupport.ExitStatus(unclassified: CocoaError(.fileReadCorruptFile)) == .software, "anything unknown is internal")
    }
}
