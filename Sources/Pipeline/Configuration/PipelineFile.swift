import Foundation
import Yams

/// Reads pipelines from YAML files (`pipelines/*.yaml`), strictly: an unknown key, a missing
/// topic, a mistyped or out-of-range value fails with the file, the key and the reason.
///
/// ```yaml
/// request-topic: iidbatch.topics        # required
/// group: iidbatch-topics                # default: iidbatch-<request-topic>
/// outcome-topic: iidbatch.outcomes      # default: <request-topic>.outcomes
/// dead-letter-topic: iidbatch.topics.dead-letters
/// export-topic: iidbatch.group-exports     # groups.export; default: <request-topic>.group-exports
/// ops: [topics.subscribe, topics.unsubscribe]  # default: any op
/// project: my-firebase-app              # default: --project, $GOOGLE_CLOUD_PROJECT, the credentials'
/// sender-id: "123456789012"             # device groups: the project number FCM wants as project_id
/// backend: iid-batch                    # or fcm-v1 (topic pipelines)
/// batching: { max-items: 1000, linger: 50ms }
/// concurrency: 16                       # the most calls in flight; per API, rate × latency × 1.5 of them
/// rate-limit: 500                       # calls per second per API: the adaptive rate's ceiling
/// adaptive-rate: { floor: 1, increase: 2, decrease: 0.95 }  # unpaced until the first throttle;
///                                       # start: N paces from the first call at N calls/s
/// max-in-flight-items: 50000
/// max-in-flight-bytes: 67108864            # record bytes held in flight (64 MiB)
/// max-record-bytes: 1048576
/// max-outcome-bytes: 1000000                # requests whose outcome could be larger are rejected
/// drain-timeout: 20s
/// retry: { max-attempts: 6, initial-backoff: 500ms, max-backoff: 30s, max-elapsed: 5m }
/// circuit-breaker: { threshold: 5, cooldown: 1s, max-cooldown: 30s }
/// ```
public enum PipelineFile {
    /// Every `*.yaml` / `*.yml` file in `directory` (or the one file `directory` names), sorted;
    /// no two consuming one request topic or joining one consumer group (a process's consumers
    /// share its `group.instance.id`, which must be unique within a group).
    public static func loadAll(_ path: String) throws(PipelineFileError) -> [PipelineConfiguration] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw PipelineFileError(file: path, key: nil, reason: "no such file or directory")
        }
        guard isDirectory.boolValue else { return [try load(path)] }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [])
            .filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }.sorted()
        guard !names.isEmpty else { throw PipelineFileError(file: path, key: nil, reason: "holds no *.yaml pipeline files") }
        let pipelines = try names.map { name throws(PipelineFileError) in try load((path as NSString).appendingPathComponent(name)) }
        var seen: [String: String] = [:]
        for pipeline in pipelines {
            if let other = seen[pipeline.requestTopic] {
                throw PipelineFileError(file: pipeline.name, key: "request-topic", reason: "'\(pipeline.requestTopic)' is also consumed by \(other)")
            }
            seen[pipeline.requestTopic] = pipeline.name
        }
        // One consumer group per file: two workers of one process in one group would share the
        // process's group.instance.id (static membership, unique per group) and fence each other.
        var groups: [String: String] = [:]
        for (name, pipeline) in zip(names, pipelines) {
            let file = (path as NSString).appendingPathComponent(name)
            if let other = groups[pipeline.group] {
                throw PipelineFileError(
                    file: file, key: "group", reason: "'\(pipeline.group)' is also the group of \(other): each pipeline file needs a group of its own")
            }
            groups[pipeline.group] = file
        }
        return pipelines
    }

    /// One pipeline file.
    public static func load(_ file: String) throws(PipelineFileError) -> PipelineConfiguration {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw PipelineFileError(file: file, key: nil, reason: "cannot be read")
        }
        let name = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
        return try parse(String(decoding: data, as: UTF8.self), file: file, name: name)
    }

    /// A pipeline from YAML text; `file` is named in errors.
    public static func parse(_ text: String, file: String, name: String) throws(PipelineFileError) -> PipelineConfiguration {
        let document: Any?
        do { document = try Yams.load(yaml: text) } catch {
            throw PipelineFileError(file: file, key: nil, reason: "is not valid YAML: \(error)")
        }
        guard let root = document as? [String: Any] else {
            throw PipelineFileError(file: file, key: nil, reason: "must be a mapping of settings")
        }
        var reader = YAMLFields(file: file, fields: root, path: "")
        let retrySection = root["retry"] as? [String: Any]
        let written: [ControlKey: Bool] = [
            .rateLimit: root["rate-limit"] != nil, .concurrency: root["concurrency"] != nil, .maxInFlightItems: root["max-in-flight-items"] != nil,
            .retryMaxAttempts: retrySection?["max-attempts"] != nil, .retryMaxElapsed: retrySection?["max-elapsed"] != nil,
        ]
        let requestTopic = try reader.topic("request-topic", required: true)!
        var pipeline = PipelineConfiguration(
            name: name, requestTopic: requestTopic, group: try reader.string("group"),
            outcomeTopic: try reader.topic("outcome-topic"), deadLetterTopic: try reader.topic("dead-letter-topic"),
            exportTopic: try reader.topic("export-topic"))
        pipeline.ops = try reader.ops("ops")
        pipeline.project = try reader.project("project")
        pipeline.senderID = try reader.senderID("sender-id")
        pipeline.fileSettings = Set(written.filter(\.value).keys)
        if let backend = try reader.string("backend") {
            guard let choice = TopicBackend(rawValue: backend) else {
                throw reader.error("backend", "'\(backend)' is not a backend; expected \(TopicBackend.allCases.map(\.rawValue).joined(separator: " or "))")
            }
            pipeline.topicBackend = choice
        }
        if var batching = try reader.section("batching") {
            pipeline.maxItemsPerCall = try batching.integer("max-items", in: 1...RequestOp.largestCallLimit) ?? pipeline.maxItemsPerCall
            pipeline.linger = try batching.duration("linger", allowZero: true) ?? pipeline.linger
            try batching.finish()
        }
        pipeline.concurrency = try reader.integer("concurrency", in: ControlKey.concurrencyRange) ?? pipeline.concurrency
        pipeline.callsPerSecond = try reader.number("rate-limit", in: ControlKey.rateLimitRange) ?? pipeline.callsPerSecond
        if var adaptive = try reader.section("adaptive-rate") {
            pipeline.adaptiveRate.start = try adaptive.number("start", in: 0.01...1_000_000) ?? pipeline.adaptiveRate.start
            pipeline.adaptiveRate.floor = try adaptive.number("floor", in: 0.01...1_000_000) ?? pipeline.adaptiveRate.floor
            pipeline.adaptiveRate.increase = try adaptive.number("increase", in: 0.01...1_000_000) ?? pipeline.adaptiveRate.increase
            pipeline.adaptiveRate.decrease = try adaptive.number("decrease", in: 0.05...0.99) ?? pipeline.adaptiveRate.decrease
            if let start = pipeline.adaptiveRate.start, pipeline.adaptiveRate.floor > start {
                throw adaptive.error("floor", "\(pipeline.adaptiveRate.floor) must not be above start (\(start))")
            }
            try adaptive.finish()
        }
        pipeline.maxInFlightItems = try reader.integer("max-in-flight-items", in: ControlKey.maxInFlightItemsRange) ?? pipeline.maxInFlightItems
        pipeline.maxInFlightBytes = try reader.integer("max-in-flight-bytes", in: PipelineConfiguration.maxInFlightBytesRange) ?? pipeline.maxInFlightBytes
        pipeline.maxRecordBytes = try reader.integer("max-record-bytes", in: 64...(64 << 20)) ?? pipeline.maxRecordBytes
        pipeline.maxOutcomeBytes = try reader.integer("max-outcome-bytes", in: 16_384...(64 << 20)) ?? pipeline.maxOutcomeBytes
        pipeline.drainTimeout = try reader.duration("drain-timeout") ?? pipeline.drainTimeout
        if var retry = try reader.section("retry") {
            pipeline.retry.maxAttempts = try retry.integer("max-attempts", in: ControlKey.retryMaxAttemptsRange) ?? pipeline.retry.maxAttempts
            pipeline.retry.initialBackoff = try retry.duration("initial-backoff") ?? pipeline.retry.initialBackoff
            pipeline.retry.maxBackoff = try retry.duration("max-backoff") ?? pipeline.retry.maxBackoff
            pipeline.retry.maxElapsed = try retry.duration("max-elapsed") ?? pipeline.retry.maxElapsed
            if pipeline.retry.maxBackoff < pipeline.retry.initialBackoff {
                throw retry.error("max-backoff", "must not be shorter than initial-backoff")
            }
            try retry.finish()
        }
        if var breaker = try reader.section("circuit-breaker") {
            pipeline.breakerThreshold = try breaker.integer("threshold", in: 1...1_000) ?? pipeline.breakerThreshold
            pipeline.breakerCooldown = try breaker.duration("cooldown") ?? pipeline.breakerCooldown
            pipeline.breakerMaxCooldown = try breaker.duration("max-cooldown") ?? pipeline.breakerMaxCooldown
            try breaker.finish()
        }
        try reader.finish()
        for (key, topic) in [("outcome-topic", pipeline.outcomeTopic), ("dead-letter-topic", pipeline.deadLetterTopic), ("export-topic", pipeline.exportTopic)]
        where topic == requestTopic {
            throw PipelineFileError(file: file, key: key, reason: "'\(topic)' must differ from request-topic")
        }
        return pipeline
    }
}
