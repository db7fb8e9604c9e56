import Emulator
import Foundation
import InstanceAPI
import TestSupport
import Testing

/// Credentials found as Google's libraries find them, each source over real HTTP against the
/// emulator (which also serves the metadata server's paths).
@Suite("Application Default Credentials: explicit key, GOOGLE_APPLICATION_CREDENTIALS, metadata server")
struct ApplicationDefaultCredentialsTests {
    /// A loopback address where nothing listens.
    let nowhere = ["GCE_METADATA_HOST": "127.0.0.1:1"]

    private func keyFile(_ fixture: EmulatorFixture) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("adc-key-\(UUID()).json").path
        try fixture.keyFile.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// `body` with a client of `source`, shut down whatever `body` throws: a client dropped
    /// running stops the whole test process.
    private func withClient<T>(
        _ source: CredentialSource, _ fixture: EmulatorFixture, _ body: (InstanceAPIClient) async throws -> T
    ) async throws -> T {
        let client = InstanceAPIClient(source: source, configuration: .singleHost(fixture.server.baseURL))
        do {
            let result = try await body(client)
            try await client.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    /// A call made with tokens from `source` works.
    private func works(_ source: CredentialSource, _ fixture: EmulatorFixture) async throws {
        let tokens = fixture.seedTokens(2, prefix: "adc")
        let results = try await withClient(source, fixture) { client in try await client.batchAdd(topic: "adc", tokens: tokens) }
        #expect(results.map(\.code) == [.ok, .ok])
    }

    @Test("an explicit key file wins over everything else")
    func explicit() async throws {
        try await withEmulator { fixture in try await explicit(fixture) }
    }

    private func explicit(_ fixture: EmulatorFixture) async throws {
        let path = try keyFile(fixture)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let source = try await ApplicationDefaultCredentials.find(
            explicitPath: path, environment: ["GOOGLE_APPLICATION_CREDENTIALS": "/nonexistent.json"].merging(nowhere) { $1 })
        guard case .serviceAccount = source else { throw FixtureFailure("expected the key file, got \(source)") }
        try await works(source, fixture)
    }

    @Test("GOOGLE_APPLICATION_CREDENTIALS names the key file when no flag does; a bad one is named in the error")
    func environmentVariable() async throws {
        try await withEmulator { fixture in try await environmentVariable(fixture) }
    }

    private func environmentVariable(_ fixture: EmulatorFixture) async throws {
        let path = try keyFile(fixture)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let source = try await ApplicationDefaultCredentials.find(
            explicitPath: nil, environment: ["GOOGLE_APPLICATION_CREDENTIALS": path].merging(nowhere) { $1 })
        guard case .serviceAccount = source else { throw FixtureFailure("expected the key file, got \(source)") }
        try await works(source, fixture)
        let error = await #expect(throws: ApplicationDefaultCredentials.NotFound.self) {
            try await ApplicationDefaultCredentials.find(explicitPath: nil, environment: ["GOOGLE_APPLICATION_CREDENTIALS": "/nonexistent/key.json"])
        }
        #expect(error?.description.contains("GOOGLE_APPLICATION_CREDENTIALS=/nonexistent/key.json") == true)
    }

    @Test("the metadata server (GCE_METADATA_HOST) gives the project and tokens; the token is never in a description")
    func metadataServer() async throws {
        try await withEmulator { fixture in try await metadataServer(fixture) }
    }

    private func metadataServer(_ fixture: EmulatorFixture) async throws {
        let host = fixture.server.baseURL.replacingOccurrences(of: "http://", with: "")
        // A generous probe: a busy test machine can be slow to answer; the default is for real hosts.
        let source = try await ApplicationDefaultCredentials.find(explicitPath: nil, environment: ["GCE_METADATA_HOST": host, "GCE_METADATA_TIMEOUT": "30"])
        guard case .metadataServer(let found, let project) = source else { throw FixtureFailure("expected the metadata server, got \(source)") }
        #expect(found == host && project == fixture.backend.configuration.projectID)
        try await works(source, fixture)
        let token = try await withClient(source, fixture) { client in try await client.tokens.token() }
        #expect(!"\(token)".contains(token.value) && !"\(source)".contains(token.value))
    }

    @Test("none found: the error names every source tried")
    func noneFound() async throws {
        let error = await #expect(throws: ApplicationDefaultCredentials.NotFound.self) {
            try await ApplicationDefaultCredentials.find(explicitPath: nil, environment: nowhere.merging(["GCE_METADATA_TIMEOUT": "2"]) { $1 })
        }
        let text = error?.description ?? ""
        #expect(text.contains("GOOGLE_APPLICATION_CREDENTIALS is not set"), "\(text)")
        #expect(text.contains("the metadata server at 127.0.0.1:1"), "\(text)")
        #expect(text.contains("--credentials"), "\(text)")
    }
}
