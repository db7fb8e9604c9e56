import AsyncHTTPClient
import Emulator
import Foundation
import InstanceAPI
import Logging
import Synchronization
import Testing

@Suite("Service-account auth against the emulator")
struct AuthTests {
    @Test("a token is fetched once for many concurrent calls")
    func oneFetchForManyCallers() async throws {
        try await withEmulator { (e: EmulatorFixture) async throws in
            let tokens = e.seedTokens(50)
            try await withThrowingTaskGroup(of: [ItemResult].self) { group in
                for token in tokens { group.addTask { try await e.client.batchAdd(topic: "t", tokens: [token]) } }
                for try await results in group { #expect(results == [.ok]) }
            }
            #expect(await e.client.tokens.fetchCount == 1)
        }
    }

    @Test("an expired token is refreshed, ahead of its expiry")
    func expiry() async throws {
        try await withEmulator { (e: EmulatorFixture) async throws in
            // The clock starts 3,400 s in the past, so assertions stay valid for the emulator.
            let clock = Mutex(Date().addingTimeInterval(-3_400))
            let http = HTTPClientHolder()
            defer { http.shutdown() }
            let provider = AccessTokenProvider(
                credentials: e.credentials, httpClient: http.client, tokenURI: e.server.baseURL + "/token", now: { clock.withLock { $0 } })
            let first = try await provider.token()
            #expect(try await provider.token() == first)
            clock.withLock { $0 = Date() }  // the token now has 200 s left: inside the 225 s margin
            #expect(try await provider.token() == first, "still handed out while its replacement is fetched")
            await provider.refreshEnded()
            let second = try await provider.token()
            #expect(second != first)
            #expect(await provider.fetchCount == 2)
        }
    }

    @Test("a token handed out with 4 minutes to live (as metadata servers do) is used for half of them, not fetched per call")
    func shortLivedToken() async throws {
        let lifetime: (inout EmulatorConfiguration) -> Void = { $0.tokenLifetimeSeconds = 240 }
        try await withEmulator(configure: lifetime) { (e: EmulatorFixture) async throws in
            let start = Date().addingTimeInterval(-200)  // assertions signed in the past stay valid
            let clock = Mutex(start)
            let http = HTTPClientHolder()
            defer { http.shutdown() }
            let provider = AccessTokenProvider(
                credentials: e.credentials, httpClient: http.client, tokenURI: e.server.baseURL + "/token", now: { clock.withLock { $0 } })
            let first = try await provider.token()
            clock.withLock { $0 = start.addingTimeInterval(100) }
            #expect(try await provider.token() == first, "120 s of its 240 are left: still cached")
            #expect(await provider.fetchCount == 1)
            clock.withLock { $0 = start.addingTimeInterval(125) }
            _ = try await provider.token()
            await provider.refreshEnded()
            #expect(try await provider.token() != first, "past half its life: replaced")
            #expect(await provider.fetchCount == 2)
        }
    }

    @Test("a 401 triggers one refresh and one retry")
    func refreshOn401() async throws {
        try await withEmulator { (e: EmulatorFixture) async throws in
            let tokens = e.seedTokens(1)
            #expect(try await e.client.batchAdd(topic: "t", tokens: tokens) == [.ok])
            e.backend.revokeAccessTokens()
            #expect(try await e.client.batchAdd(topic: "t", tokens: tokens) == [.ok])
            #expect(await e.client.tokens.fetchCount == 2)
        }
    }

    @Test("a second 401 after the refresh is a request-level UNAUTHENTICATED failure")
    func unauthenticated() async throws {
        try await withEmulator { (e: EmulatorFixture) async throws in
            let tokens = e.seedTokens(1)
            #expect(try await e.client.batchAdd(topic: "t", tokens: tokens) == [.ok])
            try e.backend.setFaults(FaultPlan(rejectCredentials: true))
            let error = await #expect(throws: InstanceAPIError.self) { try await e.client.batchAdd(topic: "t", tokens: tokens) }
            #expect(error?.resultCode == .unauthenticated)
            #expect(error?.isSystemic == true)
            #expect(await e.client.tokens.fetchCount == 2, "exactly one refresh")
        }
    }

    @Test("a token for another project gets 403")
    func otherProject() async throws {
        try await withEmulator(keyProject: "other-project", clientProject: "demo") { (e: EmulatorFixture) async throws in
            let error = await #expect(throws: InstanceAPIError.self) { try await e.client.deleteInstance(id: "cR5dLwyqQh2wVz0W3Jc8ak") }
            #expect(error?.resultCode == .permissionDenied)
            let fcm = await #expect(throws: InstanceAPIError.self) { try await e.client.fcmSubscribe(token: "tok-0", topic: "t") }
            #expect(fcm?.resultCode == .permissionDenied)
        }
    }

    @Test("a key the emulator never made is refused at the token endpoint, with a clear error")
    func unknownKey() async throws {
        let server = try await EmulatorServer.start(EmulatorConfiguration())
        let (json, _, _) = try ServiceAccountCredentials.generateKeyFile(projectID: "demo", clientEmail: "x@demo", tokenURI: server.baseURL + "/token")
        let client = InstanceAPIClient(credentials: try ServiceAccountCredentials(json: json), configuration: .singleHost(server.baseURL))
        let error = await #expect(throws: InstanceAPIError.self) { try await client.batchAdd(topic: "t", tokens: ["a"]) }
        #expect(error?.description.contains("invalid_grant") == true)
        try await client.shutdown()
        await server.shutdown()
    }

    @Test("neither the access token nor the private key appears in any log line or error")
    func secretsStayOut() async throws {
        let store = CapturingLogHandler.Store()
        var logger = Logger(label: "secrets") { _ in CapturingLogHandler(store: store) }
        logger.logLevel = .trace
        var errors: [String] = []
        let (token, keyMaterial) = try await withEmulator(logger: logger) { (e: EmulatorFixture) async throws in
            let tokens = e.seedTokens(2)
            _ = try await e.client.batchAdd(topic: "t", tokens: tokens)
            _ = try await e.client.deleteInstance(id: "dNeverExisted000000000")
            e.backend.revokeAccessTokens()
            _ = try await e.client.batchRemove(topic: "t", tokens: tokens)
            try e.backend.setFaults(FaultPlan(callErrors: ["503": 1]))
            do { _ = try await e.client.batchAdd(topic: "t", tokens: tokens) } catch { errors.append("\(error)") }
            try e.backend.setFaults(FaultPlan(rejectCredentials: true))
            do { _ = try await e.client.batchAdd(topic: "t", tokens: tokens) } catch { errors.append("\(error)") }
            let token = try await e.client.tokens.token()
            errors.append("\(token)")
            errors.append("\(e.credentials)")
            return (token.value, String(decoding: e.keyFile, as: UTF8.self))
        }
        #expect(!store.all.isEmpty, "the client logged something at trace level")
        let keyObject = try #require(try JSONSerialization.jsonObject(with: Data(keyMaterial.utf8)) as? [String: Any])
        let pem = try #require(keyObject["private_key"] as? String)
        let keyLine = try #require(pem.split(separator: "\n").first { $0.count == 64 })
        for line in store.all + errors {
            #expect(!line.contains(token), "access token leaked: \(line)")
            #expect(!line.contains("PRIVATE KEY") && !line.contains(keyLine), "key material leaked: \(line)")
        }
    }
}

/// An HTTP client for tests that build their own token provider.
final class HTTPClientHolder: Sendable {
    let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
    func shutdown() { try? client.syncShutdown() }
}
