import Emulator
import Foundation
import InstanceAPI

/// An emulator in this process, and a client for it, for benchmarks.
struct BenchTarget {
    let client: InstanceAPIClient
    let server: EmulatorServer
    let description: String

    /// Starts the emulator; the client keeps up to `connections` connections open.
    static func make(connections: Int, faults: FaultPlan = FaultPlan()) async throws -> BenchTarget {
        let server = try await EmulatorServer.start(EmulatorConfiguration(faults: faults))
        let credentials = try ServiceAccountCredentials(json: try server.backend.makeServiceAccountKey(tokenURI: server.baseURL + "/token"))
        var configuration = InstanceAPIConfiguration.singleHost(server.baseURL)
        configuration.maxConnectionsPerHost = connections
        let client = InstanceAPIClient(credentials: credentials, configuration: configuration)
        let description = "emulator in this process at \(server.baseURL) (sharing \(ProcessInfo.processInfo.activeProcessorCount) cores with the client)"
        return BenchTarget(client: client, server: server, description: description)
    }

    func shutdown() async {
        try? await client.shutdown()
        await server.shutdown()
    }
}
