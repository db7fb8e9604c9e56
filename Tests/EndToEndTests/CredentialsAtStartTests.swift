import Foundation
import InstanceAPI
import Testing

/// `iidbatch run` buys a token before its workers start: refused credentials end the start, by
/// name; a token endpoint that does not answer is only a warning.
@Suite("iidbatch run: the credentials judged at start", .serialized)
struct CredentialsAtStartTests {
    @Test("a key the token endpoint refuses ends the start with 78, naming the refusal; one whose endpoint is not there starts with a warning")
    func refusedAndUnavailable() async throws {
        try await withPipelineFixture(partitions: 1) { fixture in
            let folder = try RunFolder(fixture, name: "credentials-start")
            defer { folder.remove() }
            let pipeline = try folder.pipeline(fixture, group: "credentials-start")
            let refusedKey = folder.url.appendingPathComponent("unknown.json").path
            let (unknown, _, _) = try ServiceAccountCredentials.generateKeyFile(
                projectID: "demo", clientEmail: "x@demo.iam.gserviceaccount.com", tokenURI: fixture.emulator.baseURL + "/token")
            try unknown.write(to: URL(fileURLWithPath: refusedKey))
            let arguments = ["run", pipeline, "--brokers", fixture.kafka.bootstrapServers, "--backend-url", fixture.emulator.baseURL, "--credentials"]
            let refused = try await ChildProcess(try Programs.iidbatch, arguments + [refusedKey])
            let status = try await refused.waitForExit()
            #expect(status == 78, "refused credentials are a configuration error:\n\(refused.text)")
            #expect(refused.text.contains("the credentials were refused") && refused.text.contains("invalid_grant"), "\(refused.text)")
            #expect(!refused.text.contains("→"), "no worker started:\n\(refused.text)")

            let absentKey = folder.url.appendingPathComponent("absent.json").path
            let (absent, _, _) = try ServiceAccountCredentials.generateKeyFile(
                projectID: "demo", clientEmail: "x@demo.iam.gserviceaccount.com", tokenURI: "http://127.0.0.1:1/token")
            try absent.write(to: URL(fileURLWithPath: absentKey))
            // --backend-url serves the token endpoint too: one that is not there.
            let deadBackend = ["run", pipeline, "--brokers", fixture.kafka.bootstrapServers, "--backend-url", "http://127.0.0.1:1"]
            let started = try await ChildProcess(try Programs.iidbatch, deadBackend + ["--credentials", absentKey])
            _ = try await started.waitFor("no access token yet")
            _ = try await started.waitFor("→ \(fixture.outcomeTopic)")
            started.interrupt()
            #expect(try await started.waitForExit() == 0, "\(started.text)")
        }
    }
}
