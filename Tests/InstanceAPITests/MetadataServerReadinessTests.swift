import NIOPosix
import Testing

@testable import InstanceAPI

/// GKE's metadata server "takes a few seconds to start accepting requests on a new Pod" (Google's
/// Workload Identity documentation): it refuses connections, or answers 404 or a 5xx, and
/// "retrying the call will resolve the problem". A worker that took that for "no credentials
/// configured" exited 78 at once: a pod restarted into a crash loop on every new node, a systemd
/// unit left failed for good (it is not restarted after 78).
@Suite("Application Default Credentials: a metadata server in its first seconds is waited for")
struct MetadataServerReadinessTests {
    /// The project `find` gets from a test server's `path` (its `host` then is the server and the
    /// path, which the probe's own path follows), with `environment` besides; nil when it finds
    /// no metadata server.
    private func project(at path: String, _ environment: [String: String] = [:]) async throws -> String? {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server = try await TestHTTPServer(group: group)
        let found: Result<CredentialSource, any Error>
        do {
            found = .success(
                try await ApplicationDefaultCredentials.find(
                    explicitPath: nil,
                    environment: environment.merging(["GCE_METADATA_HOST": "127.0.0.1:\(server.port)\(path)", "GOOGLE_APPLICATION_CREDENTIALS": ""]) { $1 }))
        } catch {
            found = .failure(error)
        }
        try await server.stop()
        try await group.shutdownGracefully()
        guard case .metadataServer(_, let project) = try found.get() else { return nil }
        return project
    }

    @Test(
        "a server answering 503, 429 or 404 at first is probed again each second until it answers its project id",
        arguments: [503, 429, 404])
    func answersAfterWarmingUp(_ status: Int) async throws {
        #expect(try await project(at: "/not-ready-\(status)") == "p-ready")
    }

    @Test("a server that closes connections unanswered is probed again after a pause, not `probes` times within milliseconds")
    func resetsArePaused() async throws {
        // It resets every connection for its first 1.5 s; three probes a second apart reach it.
        #expect(try await project(at: "/reset-ms-1500", ["GCE_METADATA_DETECT_RETRIES": "3"]) == "p-ready")
    }

    @Test("one still failing when its ready window has passed: a 5xx or 429 is an outage (restarted), a 404 a configuration (not)")
    func failingAfterTheWindow() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server = try await TestHTTPServer(group: group)
        var probing = try MetadataProbing([:])
        probing.readyWindow = .milliseconds(500)
        for (path, outage) in [("/unavailable", true), ("/computeMetadata/v1/instance/service-accounts/default/token?scopes=x", false)] {
            // `/unavailable` answers 503 whatever follows; the token path 404s a scopes query.
            let host = "127.0.0.1:\(server.port)\(path)#"
            let result = await ApplicationDefaultCredentials.metadataProject(host: host, probing: probing)
            guard case .failure(let failure) = result else {
                Issue.record("\(path): \(result)")
                continue
            }
            #expect(failure.isOutage == outage, "\(path): \(failure)")
        }
        try await server.stop()
        try await group.shutdownGracefully()
    }

    @Test("a server not ready is probed again for the ready window, one absent or silent only `probes` times, another answer never")
    func probesAgain() throws {
        let probing = try MetadataProbing([:])
        #expect(probing.readyWindow == .seconds(30))
        #expect(probing.probesAgain(after: .notReady(outage: true), probe: 20, elapsed: .seconds(28)))
        #expect(!probing.probesAgain(after: .notReady(outage: false), probe: 2, elapsed: .seconds(29.5)))
        #expect(probing.probesAgain(after: .absent, probe: 2, elapsed: .seconds(2)))
        #expect(!probing.probesAgain(after: .absent, probe: 3, elapsed: .seconds(2)))
        #expect(!probing.probesAgain(after: .unanswered, probe: 3, elapsed: .seconds(9)))
        #expect(!probing.probesAgain(after: .answered, probe: 1, elapsed: .zero))
    }

    @Test("a refused connection means not ready only where the metadata server must be: Google Cloud's name or address")
    func refusalOnGoogleCloud() {
        #expect(ApplicationDefaultCredentials.refusalMeansNotReady("metadata.google.internal"))
        #expect(ApplicationDefaultCredentials.refusalMeansNotReady("169.254.169.254"))
        #expect(ApplicationDefaultCredentials.refusalMeansNotReady("169.254.169.254:80"))
        #expect(!ApplicationDefaultCredentials.refusalMeansNotReady("127.0.0.1:1"))
        #expect(!ApplicationDefaultCredentials.refusalMeansNotReady("metadata.invalid"))
    }

    @Test("answers sort into not ready (404, 429, 5xx) and final (any other status)")
    func answeredKinds() {
        #expect(MetadataFailure.answered(status: 404, "").kind == .notReady(outage: false))
        #expect(MetadataFailure.answered(status: 429, "").kind == .notReady(outage: true))
        #expect(MetadataFailure.answered(status: 503, "").kind == .notReady(outage: true))
        #expect(MetadataFailure.answered(status: 403, "").kind == .answered)
        #expect(MetadataFailure.answered(status: 301, "").kind == .answered)
    }
}
