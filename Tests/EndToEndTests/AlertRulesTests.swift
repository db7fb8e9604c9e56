import Emulator
import Foundation
import Pipeline
import TestSupport
import Testing

/// The alert rules in deploy/prometheus/ as Prometheus runs them (`promtool`, installed from
/// Debian's prometheus package by `make deps`), and the metrics they need as `run` serves them:
/// each with its HELP, the counters the rules compare over time there from the start (issue 32).
@Suite("Alert rules and the metrics they use", .serialized)
struct AlertRulesTests {
    private func promtool(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["promtool"] + arguments, seconds: 120)
    }

    @Test("promtool check rules and promtool test rules pass, and every alert has a unit test")
    func promtoolPasses() async throws {
        let check = try await promtool(["check", "rules", AlertRuleFile.path])
        #expect(check.status == 0, "promtool check rules (run make deps if promtool is missing): \(check.output)")
        let rules = try AlertRuleFile()
        #expect(check.output.contains("SUCCESS: \(rules.alerts.count) rules found"), "\(check.output)")
        let test = try await promtool(["test", "rules", AlertRuleFile.testPath])
        #expect(test.status == 0, "promtool test rules: \(test.output)")
        #expect(test.output.contains("SUCCESS"), "\(test.output)")
        let tests = try String(contentsOfFile: AlertRuleFile.testPath, encoding: .utf8)
        for alert in rules.alerts {
            #expect(tests.contains("alertname: \(alert.name)"), "\(alert.name) has no test in alerts-test.yaml")
        }
        // No rule depends on the scrape job's name: the Kubernetes manifest's annotations put
        // the workers in the scrape config's job (kubernetes-pods), systemd hosts in any.
        for alert in rules.alerts {
            #expect(!alert.expression.contains(/\bjob\s*=/), "\(alert.name) selects a scrape job by name: \(alert.expression)")
        }
        // The consumer groups the rules name are the shipped pipelines' own.
        let groups = Set(try PipelineFile.loadAll(ReadmeScript.repository.appendingPathComponent("pipelines").path).map(\.group))
        for alert in rules.alerts {
            for match in alert.expression.matches(of: /consumergroup="([^"]+)"/) {
                #expect(groups.contains(String(match.1)), "\(alert.name) names group \(match.1), which no pipeline in pipelines/ has")
            }
        }
    }

    /// The metric families of a scrape: each `# TYPE` name with its `# HELP` text (nil without
    /// one), and the sample lines.
    private struct Scrape {
        var help: [String: String] = [:]
        var types: [String: String] = [:]
        var samples: [String] = []

        init(_ text: String) {
            for line in text.split(separator: "\n").map(String.init) {
                if line.hasPrefix("# HELP ") {
                    let rest = line.dropFirst("# HELP ".count)
                    let name = rest.prefix { $0 != " " }
                    help[String(name)] = String(rest.dropFirst(name.count)).trimmingCharacters(in: .whitespaces)
                } else if line.hasPrefix("# TYPE ") {
                    let parts = line.split(separator: " ")
                    if parts.count == 4 { types[String(parts[2])] = String(parts[3]) }
                } else if !line.isEmpty {
                    samples.append(line)
                }
            }
        }

        /// The families that have no HELP, or an empty one.
        var withoutHelp: [String] { types.keys.filter { (help[$0] ?? "").isEmpty }.sorted() }

        /// The value of the sample of `name` whose labels include every one of `labels`.
        func value(_ name: String, _ labels: [String] = []) -> Double? {
            samples.first { line in
                (line.hasPrefix(name + "{") || line.hasPrefix(name + " ")) && labels.allSatisfy { line.contains($0) }
            }.flatMap { Double($0.split(separator: " ").last ?? "") }
        }

        /// The sum over every sample of `name` whose labels include `label`.
        func sum(_ name: String, _ label: String) -> Double {
            samples.filter { $0.hasPrefix(name + "{") && $0.contains(label) }.compactMap { Double($0.split(separator: " ").last ?? "") }.reduce(0, +)
        }
    }

    private func scrape(_ port: Int) async throws -> Scrape {
        let result = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/curl"), ["-sSf", "http://127.0.0.1:\(port)/metrics"], seconds: 120)
        guard result.status == 0 else { throw FixtureFailure("GET /metrics: \(result.output)") }
        return Scrape(result.output)
    }

    @Test("run serves a HELP for every series; the rules' counters exist from the start; throttled attempts, build info and process metrics")
    func servedMetrics() async throws {
        try await withPipelineFixture(partitions: 2, faults: FaultPlan(callErrors: ["429": 0.2], retryAfter: "0")) { fixture in
            let folder = try RunFolder(fixture, name: "alert-metrics")
            defer { folder.remove() }
            let pipeline = try folder.pipeline(
                fixture, group: "alert-metrics", "ops: [installations.delete, topics.subscribe]\nbatching: { max-items: 50, linger: 10ms }")
            let port = Int.random(in: TestPorts.alertRules)
            let started = Date().timeIntervalSince1970
            let worker = try await ChildProcess(
                try Programs.iidbatch,
                folder.runArguments(
                    fixture, pipeline: pipeline,
                    ["--http-port", "\(port)", "--log-level", "warning", "-X", "statistics.interval.ms=500", "-X", "auto.commit.interval.ms=500"]))
            var first: Scrape?
            try await waitUntil("/metrics to answer") {
                first = try? await scrape(port)
                return first != nil
            }

            // Before any request: every series has its HELP, and the counters the rules compare
            // over time are there at 0, so the first event is an increase.
            let start = try #require(first)
            #expect(start.withoutHelp.isEmpty, "no HELP: \(start.withoutHelp)")
            let pipelineLabel = "pipeline=\"alert-metrics\""
            for kind in ["retry-exhausted", "undecodable", "duplicate-in-flight"] {
                #expect(start.value("iidbatch_dead_letters_total", [pipelineLabel, "kind=\"\(kind)\""]) == 0, "dead letters of \(kind) at 0")
            }
            for code in ["OK", "ALREADY_ABSENT"] {
                #expect(start.value("iidbatch_items_total", [pipelineLabel, "op=\"installations.delete\"", "code=\"\(code)\""]) == 0)
            }
            #expect(start.value("iidbatch_throttled_attempts_total", [pipelineLabel, "api=\"iid.batchAdd\""]) == 0)
            #expect(start.types["iidbatch_throttled_attempts_total"] == "counter")
            let build = try #require(start.samples.first { $0.hasPrefix("iidbatch_build_info{") }, "iidbatch_build_info")
            #expect(build.contains(/version="[0-9]+\.[0-9]+\.[0-9]+[^"]*"/) && build.contains(/commit="[^"]+"/), "\(build)")
            #expect(start.value("iidbatch_build_info") == 1, "\(build)")
            #expect(try #require(start.value("process_resident_memory_bytes")) > 1_000_000)
            #expect(try #require(start.value("process_virtual_memory_bytes")) > 1_000_000)
            #expect(try #require(start.value("process_open_fds")) >= 3)
            #expect(try #require(start.value("process_max_fds")) >= start.value("process_open_fds") ?? .infinity)
            // Whole seconds from /proc's boot time, on a loaded machine: within 2 minutes of the test.
            let startTime = try #require(start.value("process_start_time_seconds"))
            #expect(abs(startTime - started) < 120, "started with the test (at \(started)): \(startTime)")
            #expect(start.types["process_cpu_seconds_total"] == "counter")

            // After work with throttling: the request latency histogram reaches 30 minutes, each
            // throttled attempt counts once, and every metric the rules use is served.
            let tokens = fixture.seedTokens(400, prefix: "alerts")
            let requests = (0..<8).map { n in
                PipelineRequest(id: "alerts-\(n)", op: .topicsSubscribe, target: .topic("a\(n % 2)"), items: Array(tokens[(n * 50)..<(n * 50 + 50)]))
            }
            try await fixture.submit(requests)
            _ = try await fixture.waitForOutcomes(requests.map(\.id))
            var later = start
            try await waitUntil("the lag of the request partitions to be reported") {
                later = (try? await scrape(port)) ?? later
                return later.value("kafka_consumergroup_lag") != nil
            }
            #expect(later.withoutHelp.isEmpty, "no HELP: \(later.withoutHelp)")
            #expect(later.value("iidbatch_request_duration_seconds_bucket", [pipelineLabel, "le=\"1800"]) == Double(requests.count), "buckets to 1800 s")
            let throttled = later.sum("iidbatch_call_attempts_total", "status=\"429\"")
            #expect(throttled > 0, "the emulator answered 429 to a fifth of the calls")
            #expect(later.sum("iidbatch_throttled_attempts_total", pipelineLabel) == throttled, "one throttled attempt per 429")
            let unserved = try AlertRuleFile().metrics.filter { later.types[$0] == nil }
            #expect(unserved.isEmpty, "the rules use metrics run does not serve: \(unserved.sorted())")
            #expect(try #require(later.value("process_cpu_seconds_total")) > 0)
            worker.interrupt()
            #expect(try await worker.waitForExit() == 0)
        }
    }
}
