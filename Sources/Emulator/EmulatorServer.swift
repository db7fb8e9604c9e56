import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// Serves an `EmulatorBackend` over HTTP/1.1, or over HTTPS with HTTP/2 and HTTP/1.1 by ALPN
/// when its configuration has `tls`, until `shutdown()`. Every TCP connection accepted counts in
/// the backend's `stats.connections`.
public final class EmulatorServer: Sendable {
    /// The backend it serves; read state and change faults through it in-process.
    public let backend: EmulatorBackend
    /// The port it listens on.
    public let port: Int
    /// `http://host:port` (`https://` with TLS): every API's base URL, and the token endpoint at `/token`.
    public let baseURL: String
    private let group: ServiceGroup
    private let running: Task<Void, any Error>

    private init(backend: EmulatorBackend, port: Int, baseURL: String, group: ServiceGroup, running: Task<Void, any Error>) {
        self.backend = backend
        self.port = port
        self.baseURL = baseURL
        self.group = group
        self.running = running
    }

    /// Starts listening and returns once the port is bound.
    ///
    /// - Throws: `EmulatorError.startFailed` naming the address when it cannot be bound.
    public static func start(_ configuration: EmulatorConfiguration, logger: Logger = Logger(label: "iidbatch.emulator")) async throws -> EmulatorServer {
        try await start(EmulatorBackend(configuration: configuration), logger: logger)
    }

    /// Starts serving `backend`, prepared beforehand (seeded, its key written), so that whoever
    /// sees the port open finds it ready. Returns once the port is bound.
    ///
    /// - Throws: `EmulatorError.startFailed` naming the address when it cannot be bound;
    ///   `EmulatorError.tls` when its certificate and key cannot be used.
    public static func start(_ backend: EmulatorBackend, logger: Logger = Logger(label: "iidbatch.emulator")) async throws -> EmulatorServer {
        let configuration = backend.configuration
        let server: HTTPServerBuilder
        if let tls = configuration.tls {
            let tlsConfiguration = try tls.serverConfiguration()
            server = HTTPServerBuilder { responder in
                CountingChildChannel(base: try HTTP2UpgradeChannel(tlsConfiguration: tlsConfiguration, responder: responder)) { backend.connectionAccepted() }
            }
        } else {
            server = HTTPServerBuilder { responder in
                CountingChildChannel(base: HTTP1Channel(responder: responder)) { backend.connectionAccepted() }
            }
        }
        let bound = BoundPort()
        var quiet = logger  // Hummingbird logs every request at info; keep warnings and worse
        quiet.logLevel = max(logger.logLevel, .warning)
        let app = Application(
            router: EmulatorRouter.make(backend),
            server: server,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "iidbatch-emulator"),
            onServerRunning: { channel in bound.resolve(channel.localAddress?.port ?? -1) },
            logger: quiet)
        let group = ServiceGroup(configuration: .init(services: [app], logger: quiet))
        let running = Task { try await group.run() }
        let port: Int
        do {
            port = try await bound.wait(orFailureOf: running)
        } catch {
            throw EmulatorError.startFailed("cannot listen on \(configuration.host):\(configuration.port): \(error)")
        }
        let scheme = configuration.tls == nil ? "http" : "https"
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return EmulatorServer(backend: backend, port: port, baseURL: "\(scheme)://\(host):\(port)", group: group, running: running)
    }

    /// Stops accepting calls, finishes the ones in progress, and returns when the server is down.
    public func shutdown() async {
        await group.triggerGracefulShutdown()
        _ = try? await running.value
    }

    /// Writes a service-account key this emulator accepts to `path`; its `token_uri` points here.
    public func writeServiceAccountKey(to path: String, project: String? = nil) throws {
        let json = try backend.makeServiceAccountKey(tokenURI: baseURL + "/token", project: project)
        try json.write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}

/// The port, once the server reports it.
private final class BoundPort: Sendable {
    private let state = Mutex<(port: Int?, waiter: CheckedContinuation<Int, any Error>?)>((nil, nil))

    func resolve(_ port: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Int, any Error>? in
            state.port = port
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: port)
    }

    func wait(orFailureOf running: Task<Void, any Error>) async throws -> Int {
        let watcher = Task {
            // If the server stops before binding, report why.
            do {
                try await running.value
                self.fail(EmulatorError.startFailed("server stopped before listening"))
            } catch { self.fail(error) }
        }
        defer { watcher.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Int? in
                if let port = state.port { return port }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    private func fail(_ error: any Error) {
        let waiter = state.withLock { state -> CheckedContinuation<Int, any Error>? in
            defer { state.waiter = nil }
            return state.port == nil ? state.waiter : nil
        }
        waiter?.resume(throwing: error)
    }
}
