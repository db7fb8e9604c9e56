import Emulator
import Foundation
import InstanceAPI
import Logging
import Synchronization
import TestSupport

/// An emulator on an ephemeral loopback port and a client holding a key it accepts.
struct EmulatorFixture {
    let server: EmulatorServer
    let client: InstanceAPIClient
    let credentials: ServiceAccountCredentials
    /// The key file the client's credentials came from.
    let keyFile: Data
    var backend: EmulatorBackend { server.backend }

    /// Starts an emulator with `faults` and a client of `project` (the emulator's own by default).
    static func start(
        faults: FaultPlan = FaultPlan(), seed: UInt64 = 42, keyProject: String? = nil, clientProject: String? = nil,
        logger: Logger = Logger(label: "test"), configure: (inout EmulatorConfiguration) -> Void = { _ in }
    ) async throws -> EmulatorFixture {
        var emulator = EmulatorConfiguration(seed: seed, faults: faults)
        configure(&emulator)
        let server = try await EmulatorServer.start(emulator)
        let json = try server.backend.makeServiceAccountKey(tokenURI: server.baseURL + "/token", project: keyProject)
        let credentials = try ServiceAccountCredentials(json: json)
        var configuration = InstanceAPIConfiguration.singleHost(server.baseURL)
        configuration.projectID = clientProject
        let client = InstanceAPIClient(credentials: credentials, configuration: configuration, logger: logger)
        return EmulatorFixture(server: server, client: client, credentials: credentials, keyFile: json)
    }

    func stop() async {
        try? await client.shutdown()
        await server.shutdown()
    }

    /// Seeds `count` tokens named `prefix-0…` and returns them.
    func seedTokens(_ count: Int, prefix: String = "tok", application: String = "com.iid.example") -> [String] {
        let tokens = (0..<count).map { "\(prefix)-\($0)" }
        backend.seed(SeedRequest(tokens: tokens, application: application))
        return tokens
    }
}

/// Runs `body` with a started fixture and always stops it.
func withEmulator<T>(
    faults: FaultPlan = FaultPlan(), seed: UInt64 = 42, keyProject: String? = nil, clientProject: String? = nil,
    logger: Logger = Logger(label: "test"), configure: (inout EmulatorConfiguration) -> Void = { _ in }, _ body: (EmulatorFixture) async throws -> T
) async throws -> T {
    let fixture = try await EmulatorFixture.start(
        faults: faults, seed: seed, keyProject: keyProject, clientProject: clientProject, logger: logger, configure: configure)
    return try await withStarted(fixture, stop: { await $0.stop() }, body)
}

/// A log handler that keeps every line, for checking what reaches logs.
final class CapturingLogHandler: LogHandler, @unchecked Sendable {
    final class Store: Sendable {
        let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
    }

    let store: Store
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    init(store: Store) { self.store = store }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        store.lines.withLock { $0.append("\(event.level) \(event.message) \(merged) \(event.error.map { "\($0)" } ?? "")") }
    }
}
