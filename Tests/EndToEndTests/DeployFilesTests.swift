import Foundation
import Pipeline
import Testing
import Yams

/// The files in deploy/: each parses, the Kubernetes objects pass their schemas (kubernetes-validate,
/// installed by `make deps`), and what they name (metrics, topics, groups, probe paths) exists.
@Suite("Deploy files")
struct DeployFilesTests {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL

    private func yaml(_ path: String) throws -> [Any] {
        let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        return try Array(Yams.load_all(yaml: text)).compactMap { $0 }
    }

    private func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    @Test("the Kubernetes objects pass kubernetes-validate --strict; probes and scraping point at what run serves")
    func kubernetes() async throws {
        let path = root.appendingPathComponent("deploy/kubernetes/iidbatch.yaml").path
        // Installed by `make deps`; found on PATH as a user would run it.
        let result = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["kubernetes-validate", "--strict", path], seconds: 120)
        #expect(result.status == 0, "kubernetes-validate (run make deps if it is missing): \(result.output)")
        #expect(result.output.contains("passed for resource deployment/iidbatch"), "\(result.output)")
        let manifest = try text("deploy/kubernetes/iidbatch.yaml")
        for fragment in ["path: /livez", "path: /readyz", "prometheus.io/scrape: \"true\"", "--http-port", "group.instance.id=$(POD_NAME)"] {
            #expect(manifest.contains(fragment), "\(fragment)")
        }
    }

    @Test("KEDA scales the Deployment on the lag of every shipped pipeline's topic and group")
    func keda() throws {
        let object = try #require(try yaml("deploy/kubernetes/keda-scaledobject.yaml").first as? [String: Any])
        #expect(object["apiVersion"] as? String == "keda.sh/v1alpha1" && object["kind"] as? String == "ScaledObject")
        let spec = try #require(object["spec"] as? [String: Any])
        #expect((spec["scaleTargetRef"] as? [String: Any])?["name"] as? String == "iidbatch")
        let triggers = try #require(spec["triggers"] as? [[String: Any]])
        let pairs = Set(
            triggers.compactMap { trigger -> String? in
                guard trigger["type"] as? String == "kafka", let metadata = trigger["metadata"] as? [String: Any],
                    let group = metadata["consumerGroup"] as? String, let topic = metadata["topic"] as? String, metadata["lagThreshold"] != nil
                else { return nil }
                return "\(group) \(topic)"
            })
        let pipelines = try PipelineFile.loadAll(root.appendingPathComponent("pipelines").path)
        #expect(pairs == Set(pipelines.map { "\($0.group) \($0.requestTopic)" }))
    }

    @Test("compose runs Apache Kafka in KRaft mode, the emulator and run with its metrics port")
    func compose() throws {
        let document = try #require(try yaml("deploy/compose.yaml").first as? [String: Any])
        let services = try #require(document["services"] as? [String: Any])
        let kafka = try #require(services["kafka"] as? [String: Any])
        #expect((kafka["image"] as? String)?.hasPrefix("apache/kafka:") == true)
        let environment = try #require(kafka["environment"] as? [String: Any])
        #expect((environment["KAFKA_PROCESS_ROLES"] as? String)?.contains("controller") == true, "KRaft: no ZooKeeper")
        let run = try #require((services["iidbatch"] as? [String: Any])?["command"] as? [String])
        #expect(run.first == "run" && run.contains("--http-port"))
        #expect(((services["emulator"] as? [String: Any])?["command"] as? [String])?.first == "emulator")
    }

    @Test("the alert rules and the dashboard name only metrics iidbatch exports")
    func metricNames() throws {
        let known = Set(MetricName.allCases.map(\.rawValue))
        let expressions = try AlertRuleFile().alerts.map(\.expression)
        #expect(expressions.count == 7)
        let dashboard = try #require(try JSONSerialization.jsonObject(with: Data(text("deploy/grafana/iidbatch-dashboard.json").utf8)) as? [String: Any])
        let targets = ((dashboard["panels"] as? [[String: Any]]) ?? []).flatMap { ($0["targets"] as? [[String: Any]]) ?? [] }.compactMap {
            $0["expr"] as? String
        }
        #expect(targets.count >= 10)
        var used: Set<String> = []
        for expression in expressions + targets { used.formUnion(AlertRuleFile.metrics(in: expression)) }
        #expect(used.subtracting(known).isEmpty, "unknown metrics: \(used.subtracting(known).sorted())")
        #expect(used.contains(MetricName.consumerGroupLag.rawValue) && used.contains(MetricName.circuitBreakerOpen.rawValue))
    }

    @Test("the image's Swift, the package's swift-tools-version and what the code needs agree (issue 32)")
    func toolchainsAgree() throws {
        func version(_ text: Substring) -> [Int] { text.split(separator: ".").compactMap { Int($0) } }
        let package = try text("Package.swift")
        let tools = try #require(package.firstMatch(of: /\/\/ swift-tools-version:\s*([0-9.]+)/)).1
        let dockerfile = try text("deploy/Dockerfile")
        let image = try #require(dockerfile.firstMatch(of: /FROM swift:([0-9.]+)-/)).1
        #expect(version(image).lexicographicallyPrecedes(version(tools)) == false, "the image's Swift \(image) is older than swift-tools-version \(tools)")
        // Span and String.UTF8View.span came with Swift 6.2: code that uses them needs 6.2 tools.
        let sources = FileManager.default.enumerator(atPath: root.appendingPathComponent("Sources").path)?.compactMap { $0 as? String } ?? []
        let usesSpan = try sources.filter { $0.hasSuffix(".swift") }.contains { path in
            try text("Sources/" + path).contains(/\bSpan<|\.span\b/)
        }
        if usesSpan { #expect(!version(tools).lexicographicallyPrecedes([6, 2]), "the code uses Span (Swift 6.2), the tools say \(tools)") }
        #expect(package.contains(".macOS(.v26)") || !usesSpan, "on Apple platforms Span needs macOS 26: platforms should say so")
    }
}
