import Foundation
import Pipeline
import Testing

@Suite("Pipeline files")
struct PipelineFileTests {
    @Test("the shipped pipelines/ folder loads: one pipeline per kind of work, distinct request topics")
    func shippedFiles() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../pipelines").standardizedFileURL.path
        let pipelines = try PipelineFile.loadAll(folder)
        #expect(pipelines.map(\.name) == ["apns-imports", "deletions", "device-groups", "topic-changes"])
        let topics = try #require(pipelines.first { $0.name == "topic-changes" })
        #expect(topics.topicBackend == .fcmV1 && topics.callsPerSecond == 3_000 && topics.itemsPerCall(.topicsSubscribe) == 1)
        #expect(topics.turnedDownAPIs.isEmpty, "the shipped topic pipeline is on the API that stays")
        let groups = try #require(pipelines.first { $0.name == "device-groups" })
        #expect(groups.exportTopic == "iidbatch.group-exports" && groups.takes(.groupsExport))
        #expect(groups.turnedDownAPIs.map(\.rawValue) == ["fcm.notification", "fcm.notification.export"])
        var legacy = topics
        legacy.topicBackend = .iidBatch
        #expect(legacy.turnedDownAPIs.map(\.rawValue) == ["iid.batchAdd", "iid.batchRemove", "iid.info"])
        #expect(pipelines.first { $0.name == "apns-imports" }?.itemsPerCall(.apnsImport) == 100)
        // Every op is taken by exactly one shipped pipeline: the commands' default topics come from here.
        for op in RequestOp.allCases {
            #expect(pipelines.filter { $0.ops?.contains(op) == true }.count == 1, "\(op.rawValue)")
        }
        #expect(PipelineConfiguration.pipeline(for: .groupsRemove, in: pipelines)?.requestTopic == "iidbatch.device-groups")
        #expect(PipelineConfiguration.pipeline(for: .instancesInfo, in: pipelines)?.requestTopic == "iidbatch.topic-changes")
    }

    @Test("ops: a pipeline takes only the ops it lists; without the key it takes any; a file without one is the fallback")
    func ops() throws {
        let listed = try PipelineFile.parse("request-topic: d\nops: [installations.delete]\n", file: "d.yaml", name: "d")
        let any = try PipelineFile.parse("request-topic: a\n", file: "a.yaml", name: "a")
        #expect(listed.takes(.installationsDelete) && !listed.takes(.topicsSubscribe))
        #expect(any.ops == nil && any.takes(.apnsImport))
        #expect(PipelineConfiguration.pipeline(for: .installationsDelete, in: [any, listed])?.name == "d")
        #expect(PipelineConfiguration.pipeline(for: .topicsSubscribe, in: [any, listed])?.name == "a")
        #expect(PipelineConfiguration.pipeline(for: .topicsSubscribe, in: [listed]) == nil)
        let decoder = RequestDecoder(configuration: listed)
        guard case .failure(let rejection) = decoder.decode(Array(#"{"id":"x","op":"topics.subscribe","topic":"t","tokens":["a"]}"#.utf8)) else {
            Issue.record("a request of an op the pipeline does not take was accepted")
            return
        }
        #expect(rejection.field == "op" && rejection.reason.contains("not taken by this pipeline (ops: installations.delete)"), "\(rejection)")
    }

    @Test("every setting is read, with units")
    func everySetting() throws {
        let pipeline = try PipelineFile.parse(
            """
            request-topic: req
            group: g
            outcome-topic: out
            dead-letter-topic: dlq
            backend: fcm-v1
            batching: { max-items: 500, linger: 250ms }
            concurrency: 4
            rate-limit: 12.5
            max-in-flight-items: 1000
            max-in-flight-bytes: 16777216
            max-record-bytes: 4096
            drain-timeout: 3s
            retry: { max-attempts: 3, initial-backoff: 100ms, max-backoff: 2s, max-elapsed: 1m }
            circuit-breaker: { threshold: 2, cooldown: 500ms, max-cooldown: 10s }
            """, file: "p.yaml", name: "p")
        #expect(pipeline.group == "g" && pipeline.outcomeTopic == "out" && pipeline.deadLetterTopic == "dlq")
        #expect(pipeline.topicBackend == .fcmV1 && pipeline.itemsPerCall(.topicsSubscribe) == 1 && pipeline.itemsPerCall(.apnsImport) == 100)
        #expect(pipeline.maxItemsPerCall == 500 && pipeline.linger == .milliseconds(250) && pipeline.concurrency == 4)
        #expect(pipeline.callsPerSecond == 12.5 && pipeline.maxInFlightItems == 1_000 && pipeline.maxRecordBytes == 4_096)
        #expect(pipeline.maxInFlightBytes == 16 << 20)
        #expect(pipeline.drainTimeout == .seconds(3) && pipeline.retry.maxElapsed == .seconds(60) && pipeline.retry.initialBackoff == .milliseconds(100))
        #expect(pipeline.breakerThreshold == 2 && pipeline.breakerCooldown == .milliseconds(500) && pipeline.breakerMaxCooldown == .seconds(10))
    }

    @Test("only the request topic is required; the rest default from it")
    func defaults() throws {
        let pipeline = try PipelineFile.parse("request-topic: erasures\n", file: "d.yaml", name: "d")
        #expect(pipeline.group == "iidbatch-erasures" && pipeline.outcomeTopic == "erasures.outcomes" && pipeline.deadLetterTopic == "erasures.dead-letters")
        #expect(pipeline.maxInFlightItems == 50_000 && pipeline.maxInFlightBytes == 64 << 20)
    }

    @Test("the worker's read-ahead is bounded in bytes by the largest record and in records by max-in-flight-items")
    func readAhead() throws {
        let plain = try PipelineFile.parse("request-topic: erasures\n", file: "d.yaml", name: "d")
        #expect(plain.consumerDefaults == ["queued.max.messages.kbytes": "65536", "queued.min.messages": "10000"])
        let tuned = try PipelineFile.parse(
            "request-topic: erasures\nmax-in-flight-items: 200000\nmax-record-bytes: 33554432\n", file: "t.yaml", name: "t")
        #expect(tuned.consumerDefaults == ["queued.max.messages.kbytes": "131072", "queued.min.messages": "40000"])
        let small = try PipelineFile.parse("request-topic: erasures\nmax-in-flight-items: 100\n", file: "s.yaml", name: "s")
        #expect(small.consumerDefaults["queued.min.messages"] == "1000", "never under 1,000 records a partition")
    }

    @Test(
        "bad YAML or a bad value fails with the file, the key and the reason",
        arguments: [
            ("request-topic: [unclosed", nil, "is not valid YAML"),
            ("- a\n- b", nil, "must be a mapping"),
            ("group: g", "request-topic", "is required"),
            ("request-topic: has space", "request-topic", "'has space' is not a Kafka topic name"),
            ("request-topic: r\nconcurency: 4", "concurency", "is not a setting"),
            ("request-topic: r\nconcurrency: 0", "concurrency", "0 is out of range 1...1024"),
            ("request-topic: r\nconcurrency: many", "concurrency", "must be an integer, got many"),
            ("request-topic: r\nbatching: { max-items: 1001 }", "batching.max-items", "1001 is out of range 1...1000"),
            ("request-topic: r\nbatching: { linger: 50 }", "batching.linger", "must be a duration such as 250ms"),
            ("request-topic: r\nretry: { max-attempts: 3, backoff: 1s }", "retry.backoff", "is not a setting"),
            ("request-topic: r\nretry: { initial-backoff: 2s, max-backoff: 1s }", "retry.max-backoff", "must not be shorter than initial-backoff"),
            ("request-topic: r\nbackend: grpc", "backend", "'grpc' is not a backend; expected iid-batch or fcm-v1"),
            ("request-topic: r\nrate-limit: -1", "rate-limit", "must be a positive number"),
            ("request-topic: r\nops: [topics.explode]", "ops", "'topics.explode' is not an op"),
            ("request-topic: r\nops: []", "ops", "must be a non-empty list of ops"),
            // Extreme values are refused with the key's name instead of trapping at start (issue 17).
            ("request-topic: r\nrate-limit: 1e-300", "rate-limit", "must be a positive number"),
            ("request-topic: r\nrate-limit: 1e300", "rate-limit", "must be a positive number"),
            ("request-topic: r\ndrain-timeout: 1e300s", "drain-timeout", "must be a duration"),
            ("request-topic: r\nretry: { max-elapsed: 99999999999999h }", "retry.max-elapsed", "must be a duration"),
            ("request-topic: r\nbatching: { linger: nan }", "batching.linger", "must be a duration"),
            ("request-topic: r\noutcome-topic: r", "outcome-topic", "must differ from request-topic"),
            ("request-topic: r\nmax-in-flight-bytes: 1000", "max-in-flight-bytes", "1000 is out of range 1048576...1099511627776"),
            ("request-topic: r\nmax-in-flight-bytes: 64MiB", "max-in-flight-bytes", "must be an integer, got 64MiB"),
        ] as [(String, String?, String)])
    func badFiles(text: String, key: String?, reason: String) {
        let error = #expect(throws: PipelineFileError.self) { try PipelineFile.parse(text, file: "pipelines/x.yaml", name: "x") }
        #expect(error?.file == "pipelines/x.yaml")
        #expect(error?.key == key)
        #expect(error?.reason.contains(reason) == true, "\(error?.description ?? "")")
        #expect(error?.description.hasPrefix("pipelines/x.yaml: ") == true)
    }

    @Test("a folder without pipeline files, a missing path, and two files consuming one topic are refused")
    func folders() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pipelines-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(throws: PipelineFileError.self) { try PipelineFile.loadAll(folder.path) }
        #expect(throws: PipelineFileError.self) { try PipelineFile.loadAll(folder.path + "/missing") }
        try "request-topic: same\n".write(to: folder.appendingPathComponent("a.yaml"), atomically: true, encoding: .utf8)
        try "request-topic: same\n".write(to: folder.appendingPathComponent("b.yml"), atomically: true, encoding: .utf8)
        let error = #expect(throws: PipelineFileError.self) { try PipelineFile.loadAll(folder.path) }
        #expect(error?.key == "request-topic" && error?.reason.contains("also consumed by a") == true)
    }
}
