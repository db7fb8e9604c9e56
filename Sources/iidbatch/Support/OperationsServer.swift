import Foundation
import Hummingbird
import Logging
import Pipeline
import Prometheus

/// `iidbatch run --http-port`: the endpoints operators and Kubernetes use.
///
/// - `GET /metrics`: every metric in Prometheus's text format, as of the scrape: each worker
///   brings its counters and gauges up to date first (`PipelineWorker.refreshMetrics()`), and
///   consumer lag is read then.
/// - `GET /livez` (and `/healthz`, for older probes): 200 while the workers answer.
/// - `GET /readyz`: 200 when every worker has joined its group and no circuit breaker has been
///   open longer than `breakerGrace`; else 503 with a JSON body naming the reason.
enum OperationsServer {
    /// An application serving the endpoints for `workers`, reading metrics from `registry`.
    static func make(
        port: Int, workers: [PipelineWorker], registry: PrometheusCollectorRegistry, breakerGrace: Duration
    ) -> some ApplicationProtocol {
        let router = Router()
        let lag = LagGauges()
        let process = ProcessMetrics()
        router.get("metrics") { _, _ in
            for worker in workers { await worker.refreshMetrics() }
            await lag.update(workers)
            process.update()
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
        for path in ["livez", "healthz"] {
            router.get(RouterPath(path)) { _, _ in
                for worker in workers { _ = await worker.health() }  // each worker's actor answers
                return json(.ok, ["status": "alive"])
            }
        }
        router.get("readyz") { _, _ in
            var reasons: [String] = []
            let now = ContinuousClock.now
            for worker in workers {
                let health = await worker.health()
                let name = worker.configuration.name
                if !health.joined { reasons.append("\(name): has not joined group \(worker.configuration.group) yet") }
                if let since = health.breakerOpenSince, now - since > breakerGrace {
                    reasons.append("\(name): circuit breaker open for \(Int((now - since) / .seconds(1))) s (the backend refuses or fails every call)")
                }
            }
            return reasons.isEmpty ? json(.ok, ["status": "ready"]) : json(.serviceUnavailable, ["status": "not ready", "reasons": reasons])
        }
        var logger = Logger(label: "iidbatch.http")
        logger.logLevel = .warning
        return Application(router: router, configuration: .init(address: .hostname("0.0.0.0", port: port), serverName: "iidbatch"), logger: logger)
    }

    private static func json(_ status: HTTPResponse.Status, _ object: [String: Any]) -> Response {
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
