import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import Synchronization
import TestSupport
import Testing

@testable import InstanceAPI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Off Google Cloud there is no metadata server: its name does not resolve, or nothing listens.
/// That is "nothing configured" (EX_CONFIG, which a supervisor does not restart into a loop), not
/// an outage; a metadata server that is there and does not answer is one.
@Suite("Application Default Credentials: no metadata server is not an outage")
struct MetadataServerAbsenceTests {
    @Test("a refused connection says no server is there; a timeout does not")
    func noServer() {
        #expect(HTTPFailure.isNoServer(IOError(errnoCode: ECONNREFUSED, reason: "connect")))
        #expect(!HTTPFailure.isNoServer(IOError(errnoCode: ETIMEDOUT, reason: "connect")))
        #expect(!HTTPFailure.isNoServer(HTTPClientError.deadlineExceeded))
        #expect(!HTTPFailure.isNoServer(HTTPClientError.connectTimeout))
    }

    @Test(
        "a name that does not resolve or a port that refuses: not found, with no unanswered server (not an outage)", arguments: ["metadata.invalid", "REFUSED"])
    func absent(_ given: String) async throws {
        let refusing = try LoopbackSocket.open(listening: false)
        defer { close(refusing.fd) }
        let host = given == "REFUSED" ? "127.0.0.1:\(refusing.port)" : given
        let error = await #expect(throws: ApplicationDefaultCredentials.NotFound.self) {
            try await ApplicationDefaultCredentials.find(
                explicitPath: nil, environment: ["GCE_METADATA_HOST": host, "GOOGLE_APPLICATION_CREDENTIALS": "", "GCE_METADATA_TIMEOUT": "2"])
        }
        #expect(error?.failingMetadataServer == nil, "\(String(describing: error))")
        #expect(error?.description.contains("the metadata server at \(host): not there") == true, "\(String(describing: error))")
    }

    @Test("a server that accepts and never answers: not found, naming it as unanswered (an outage)")
    func silent() async throws {
        let silent = try LoopbackSocket.open(listening: true)
        defer { close(silent.fd) }
        let host = "127.0.0.1:\(silent.port)"
        let error = await #expect(throws: ApplicationDefaultCredentials.NotFound.self) {
            try await ApplicationDefaultCredentials.find(
                explicitPath: nil, environment: ["GCE_METADATA_HOST": host, "GOOGLE_APPLICATION_CREDENTIALS": "", "GCE_METADATA_TIMEOUT": "0.3"])
        }
        #expect(error?.failingMetadataServer == host, "\(String(describing: error))")
    }

    @Test("a metadata server that sends its answer's head and stalls in its body: not found within the probe's timeout, naming it as unanswered")
    func stallsInBody() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server = try await TestHTTPServer(group: group)
        // The probe's path under /stall: the server stalls after the head.
        let host = "127.0.0.1:\(server.port)/stall"
        let found = try await withThrowingTaskGroup(of: String?.self) { probes in
            probes.addTask {
                do {
                    _ = try await ApplicationDefaultCredentials.find(
                        explicitPath: nil,
                        environment: [
                            "GCE_METADATA_HOST": host, "GOOGLE_APPLICATION_CREDENTIALS": "", "GCE_METADATA_TIMEOUT": "0.3", "GCE_METADATA_DETECT_RETRIES": "1",
                        ])
                    return "found"
                } catch let error as ApplicationDefaultCredentials.NotFound {
                    return error.failingMetadataServer == host ? "unanswered" : "\(error)"
                }
            }
            // A hang guard: before the fix the probe waited for the body forever.
            probes.addTask {
                try await Task.sleep(for: .seconds(60))
                return nil
            }
            defer { probes.cancelAll() }
            return try await probes.next() ?? nil
        }
        #expect(found == "unanswered", "\(found ?? "still probing after 60 s")")
        try await server.stop()
        try await group.shutdownGracefully()
    }

    @Test("GCE_METADATA_DETECT_RETRIES sets how many times a server that does not answer is probed, as google-auth reads it")
    func probes() async throws {
        let silent = try LoopbackSocket.open(listening: true)
        defer { close(silent.fd) }
        let host = "127.0.0.1:\(silent.port)"
        let error = await #expect(throws: ApplicationDefaultCredentials.NotFound.self) {
            try await ApplicationDefaultCredentials.find(
                explicitPath: nil,
                environment: [
                    "GCE_METADATA_HOST": host, "GOOGLE_APPLICATION_CREDENTIALS": "", "GCE_METADATA_TIMEOUT": "0.2", "GCE_METADATA_DETECT_RETRIES": "1",
                ])
        }
        #expect(error?.description.contains("no answer to probe 1 (") == true, "\(String(describing: error))")
    }

    @Test(
        "a probing variable set to what it cannot be is refused before any probe, naming it and its value",
        arguments: [
            ("GCE_METADATA_TIMEOUT", "3s"), ("GCE_METADATA_TIMEOUT", "0"), ("GCE_METADATA_TIMEOUT", "-1"), ("GCE_METADATA_TIMEOUT", "nan"),
            ("GCE_METADATA_TIMEOUT", "601"), ("GCE_METADATA_DETECT_RETRIES", "0"), ("GCE_METADATA_DETECT_RETRIES", "2.5"),
        ])
    func badProbing(_ variable: String, _ value: String) async throws {
        let error = await #expect(throws: CredentialsError.self) {
            // Nothing listens on port 1: a probe would be refused, not refused for the setting.
            try await ApplicationDefaultCredentials.find(
                explicitPath: nil, environment: ["GCE_METADATA_HOST": "127.0.0.1:1", "GOOGLE_APPLICATION_CREDENTIALS": "", variable: value])
        }
        guard case .invalidSetting(variable, value, _)? = error else {
            Issue.record("\(variable)=\(value): \(String(describing: error))")
            return
        }
        #expect(error?.description.contains("$\(variable) '\(value)'") == true)
    }

    @Test("GOOGLE_APPLICATION_CREDENTIALS naming a missing file carries the key file's error, as --credentials throws it")
    func missingKeyFile() async throws {
        let error = await #expect(throws: ApplicationDefaultCredentials.NotFound.self) {
            try await ApplicationDefaultCredentials.find(explicitPath: nil, environment: ["GOOGLE_APPLICATION_CREDENTIALS": "/missing.json"])
        }
        #expect(error?.keyFileError == .fileNotFound(path: "/missing.json"), "\(String(describing: error))")
        #expect(error?.description.contains("GOOGLE_APPLICATION_CREDENTIALS=/missing.json") == true, "\(String(describing: error))")
    }

    @Test("a metadata server that refuses the scopes query is asked again without it, each time")
    func scopesRefused() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server = try await TestHTTPServer(group: group)
        let http = HTTPClient(eventLoopGroupProvider: .shared(group))
        let provider = AccessTokenProvider(source: .metadataServer(host: "127.0.0.1:\(server.port)", projectID: "p"), httpClient: http)
        #expect(await provider.check() == .ok, "the token without scopes, not a refusal")
        let first = try await provider.token()
        let asked = await provider.fetchCount
        #expect(first.value == "t-1" && asked == 2, "asked with the scopes, then without")
        await provider.invalidate(first)
        _ = try await provider.token()
        #expect(await provider.fetchCount == 4, "the next token asks for the scopes again")
        try await http.shutdown()
        try await server.stop()
        try await group.shutdownGracefully()
    }

    @Test(
        "a token in hand is handed out while its refresh runs or fails, up to a minute before it expires: no call waits for the endpoint or fails with it; a failed refresh is tried again 5 s later"
    )
    func refreshBehindCachedToken() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server = try await TestHTTPServer(group: group)
        let http = HTTPClient(eventLoopGroupProvider: .shared(group))
        let start = Date()
        let clock = Mutex(start)
        let (json, _, _) = try ServiceAccountCredentials.generateKeyFile(projectID: "p", clientEmail: "a@p", tokenURI: server.url("/token-once"))
        let provider = AccessTokenProvider(credentials: try ServiceAccountCredentials(json: json), httpClient: http, now: { clock.withLock { $0 } })
        let first = try await provider.token()
        #expect(first.value == "t-1")
        // The endpoint answers 503 from now on; the token (3,599 s) is inside its refresh margin.
        let fetched = await provider.fetchCount
        clock.withLock { $0 = start.addingTimeInterval(3_500) }
        #expect(try await provider.token().value == "t-1", "handed out while the refresh runs")
        await provider.refreshEnded()
        #expect(try await provider.token().value == "t-1", "and after it failed")
        let afterFailure = await provider.fetchCount
        #expect(afterFailure > fetched, "a refresh was tried")
        clock.withLock { $0 = start.addingTimeInterval(3_504) }
        _ = try await provider.token()
        #expect(await provider.fetchCount == afterFailure, "not again within 5 s")
        clock.withLock { $0 = start.addingTimeInterval(3_506) }
        _ = try await provider.token()
        await provider.refreshEnded()
        #expect(await provider.fetchCount > afterFailure, "again after 5 s")
        // Within a minute of its expiry it is no longer handed out: the caller waits, and fails.
        clock.withLock { $0 = start.addingTimeInterval(3_560) }
        await #expect(throws: InstanceAPIError.self) { try await provider.token() }
        try await http.shutdown()
        try await server.stop()
        try await group.shutdownGracefully()
    }

    /// Runs `body` with a provider whose token endpoint sends a head and stalls in its body.
    private func withStallingTokenEndpoint(answerTimeout: Duration, _ body: (AccessTokenProvider) async throws -> Void) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server = try await TestHTTPServer(group: group)
        let http = HTTPClient(eventLoopGroupProvider: .shared(group))
        let (json, _, _) = try ServiceAccountCredentials.generateKeyFile(projectID: "p", clientEmail: "a@p", tokenURI: server.url("/stall"))
        try await body(AccessTokenProvider(credentials: try ServiceAccountCredentials(json: json), httpClient: http, answerTimeout: answerTimeout))
        try await http.shutdown()
        try await server.stop()
        try await group.shutdownGracefully()
    }

    @Test(
        "a caller cancelled while the token is fetched stops waiting at once (a stop is not held by a stalled token endpoint); the fetch goes on for the next",
        .timeLimit(.minutes(1)))
    func cancelledTokenWait() async throws {
        // An answer that takes 10 minutes: only a waiter that stops waiting ends within the limit.
        try await withStallingTokenEndpoint(answerTimeout: .seconds(600)) { provider in
            for _ in 0..<2 {
                let waiter = Task { try await provider.token() }
                waiter.cancel()
                let result = await waiter.result
                #expect(throws: (any Error).self) { try result.get() }
            }
            #expect(await provider.fetchCount == 1, "the second caller waited for the fetch the first began")
        }
    }

    @Test("a token endpoint's redirect is not followed: the signed assertion is never sent on to where it points, and the token fails")
    func tokenRedirectNotFollowed() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server = try await TestHTTPServer(group: group)
        let (json, _, _) = try ServiceAccountCredentials.generateKeyFile(projectID: "p", clientEmail: "a@p", tokenURI: server.url("/redirect"))
        let client = InstanceAPIClient(credentials: try ServiceAccountCredentials(json: json))
        let token = try? await client.tokens.token()
        #expect(token == nil, "followed the redirect to a token: \(String(describing: token?.value))")
        try await client.shutdown()
        try await server.stop()
        try await group.shutdownGracefully()
    }

    @Test("a token endpoint that sends a head and stalls in its body fails the token within the answer's time, not never", .timeLimit(.minutes(1)))
    func stalledTokenAnswer() async throws {
        try await withStallingTokenEndpoint(answerTimeout: .seconds(1)) { provider in
            let error = await #expect(throws: InstanceAPIError.self) { try await provider.token() }
            #expect(error?.description.contains("did not answer") == true, "\(String(describing: error))")
        }
    }
}
