import Foundation
import Yams

/// deploy/prometheus/alerts.yaml as the tests read it: its alerts' names and expressions, and
/// the metric names a PromQL expression uses (for the rules and the dashboard alike).
struct AlertRuleFile {
    /// The rules file.
    static let path = ReadmeScript.repository.appendingPathComponent("deploy/prometheus/alerts.yaml").path
    /// Its unit tests, for `promtool test rules`.
    static let testPath = ReadmeScript.repository.appendingPathComponent("deploy/prometheus/alerts-test.yaml").path

    /// Each alert's name and expression, in the file's order.
    let alerts: [(name: String, expression: String)]

    /// The file, parsed.
    init() throws {
        let text = try String(contentsOfFile: Self.path, encoding: .utf8)
        let document = try Yams.load(yaml: text) as? [String: Any] ?? [:]
        let rules = ((document["groups"] as? [[String: Any]]) ?? []).flatMap { ($0["rules"] as? [[String: Any]]) ?? [] }
        alerts = rules.compactMap { rule in
            guard let name = rule["alert"] as? String, let expression = rule["expr"] as? String else { return nil }
            return (name, expression)
        }
    }

    /// Every metric the alerts' expressions use.
    var metrics: Set<String> { alerts.reduce(into: []) { $0.formUnion(Self.metrics(in: $1.expression)) } }

    /// The metric names `expression` uses that iidbatch could serve (`iidbatch_`, `kafka_`,
    /// `process_`; Prometheus's own `up` is not one), histogram suffixes removed.
    static func metrics(in expression: String) -> Set<String> {
        let regex = try! Regex("\\b(iidbatch|kafka|process)_[a-z_]+")
        return Set(
            expression.matches(of: regex).map { match in
                var name = String(expression[match.range])
                for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) { name.removeLast(suffix.count) }
                return name
            })
    }
}
