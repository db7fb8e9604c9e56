import ArgumentParser
import CommandSupport
import Kafka

/// `--timeout`: how long a command waits for the Kafka cluster to answer (a metadata request,
/// the first delivery report, the offsets of a topic) before it gives up with EX_UNAVAILABLE
/// (69), naming the brokers that did not answer. The one owner of the option and its default.
/// It bounds the start, not a running worker, which rides out a broker outage.
struct KafkaTimeout: ParsableArguments {
    /// The option's default.
    static let defaultText = "15s"

    @Option(
        name: .customLong("timeout"),
        help: ArgumentHelp(
            "How long to wait for the Kafka brokers to answer (metadata, a topic's offsets, the first delivery) before exiting \(ExitStatus.unavailable.rawValue).",
            valueName: "duration"))
    var limit = DurationArgument(argument: KafkaTimeout.defaultText)!

    /// The longest timeout, in milliseconds: librdkafka's timeouts (`message.timeout.ms`, which
    /// a control write takes from this option) are 32-bit milliseconds, at most 2147483647
    /// (about 24.8 days).
    static let maximumMilliseconds = 2_147_483_647

    /// The length of time.
    var duration: Duration { limit.duration }

    /// The length of time in whole milliseconds (at least 1), as librdkafka's properties take it.
    var milliseconds: Int { max(1, Int((duration / .milliseconds(1)).rounded(.up))) }

    /// Refuses a timeout of 0 or less, and one longer than `maximumMilliseconds`, naming the bound.
    func validate() throws {
        guard limit.duration > .zero else { throw ValidationError("--timeout must be longer than 0, got '\(limit.text)'") }
        guard limit.duration <= .milliseconds(Self.maximumMilliseconds) else {
            throw ValidationError(
                "--timeout must be at most \(Self.maximumMilliseconds)ms (about 24.8 days, librdkafka's longest timeout), got '\(limit.text)'")
        }
    }

    /// The cluster's brokers and topics, asked of `configuration`'s bootstrap servers: the
    /// bounded first contact a command makes before it reads or writes anything. `purpose` says
    /// what for in the error (e.g. `producing to requests`), naming the topic where there is one.
    ///
    /// - Throws: `RuntimeError` `.unavailable` naming the bootstrap servers when none answers
    ///   within the timeout (librdkafka's metadata request is bounded by it); `.config` when
    ///   they refuse the credentials or the client cannot be made.
    func reach(_ configuration: KafkaConfiguration, for purpose: String) async throws -> KafkaClusterMetadata {
        let what = "\(purpose): asking the Kafka cluster for its metadata"
        let admin: KafkaAdmin
        do { admin = try KafkaAdmin(configuration: configuration) } catch { throw failure(what, configuration, error) }
        defer { admin.close() }
        do { return try await admin.metadata(timeout: duration) } catch { throw failure(what, configuration, error) }
    }

    /// The error that ends a command whose Kafka step `what` failed with `error`, naming the
    /// brokers: when no broker answered, EX_UNAVAILABLE saying so with this timeout; otherwise
    /// the status of the error's kind (`ExitStatus.init(_:)`).
    func failure(_ what: String, _ configuration: KafkaConfiguration, _ error: KafkaError) -> RuntimeError {
        let brokers = Self.brokers(configuration)
        guard Self.isNoAnswer(error) else { return RuntimeError(kafka: error, "\(what) failed at \(brokers): \(error)") }
        return RuntimeError(.unavailable, "\(what): the Kafka brokers at \(brokers) did not answer within --timeout \(limit.text): \(error)")
    }

    /// The error that ends a command whose send of records to `topics` failed with `error`.
    /// librdkafka holds records for a topic the cluster does not have, and does not create,
    /// until `topic.metadata.propagation.max.ms` (30 s), longer than the first answer may take:
    /// so when no answer came, the cluster is asked again, and if it answers without one of the
    /// topics, that is the cause (configuration, naming the topic), not an outage. Otherwise
    /// as `failure(_:_:_:)`.
    func sendFailure(_ what: String, topics: [String], _ configuration: KafkaConfiguration, _ error: KafkaError) async -> RuntimeError {
        guard Self.isNoAnswer(error), let cluster = try? await reach(configuration, for: what) else { return failure(what, configuration, error) }
        let absent = topics.filter { cluster.topic($0) == nil }
        guard !absent.isEmpty else { return failure(what, configuration, error) }
        return RuntimeError(
            .config,
            "\(what): the Kafka cluster at \(Self.brokers(configuration)) answers but has no topic \(absent.joined(separator: ", ")), and did not create it on first use: create it, or name another; if it exists, grant this client DESCRIBE and WRITE on it, since a topic the ACLs hide is not listed (\(error))"
        )
    }

    /// True when `error` says the cluster did not answer (a timeout, a connection that failed, a
    /// name that did not resolve, every broker down), not that it answered with a refusal.
    static func isNoAnswer(_ error: KafkaError) -> Bool {
        switch error {
        case .timedOut, .queueFull: true
        case .broker(let code, _): [.timedOut, .messageTimedOut, .requestTimedOut, .transport, .resolve, .allBrokersDown].contains(code)
        default: false
        }
    }

    /// The bootstrap servers `configuration` names, as messages name them.
    static func brokers(_ configuration: KafkaConfiguration) -> String {
        configuration["bootstrap.servers"] ?? "(no bootstrap.servers)"
    }
}
