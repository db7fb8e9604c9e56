import Emulator
import Foundation
import InstanceAPI
import Kafka
import Pipeline
import Testing

/// `iidbatch run` without `--credentials`: credentials found as Google's libraries find them.
@Suite("iidbatch run: Application Default Credentials", .serialized)
struct RunCredentialsTests {
    @Test("with no key file, the metadata server (the emulator, through GCE_METADATA_HOST) serves the tokens")
    func metadataServer() async throws {
        try await withPipelineFixture(partitions: 1) { fixture in
            let folder = try RunFolder(fixture, name: "adc")
            defer { folder.remove() }
            let pipeline = try folder.pipeline(fixture, group: "adc-workers")
            let tokens = fixture.seedTokens(3, prefix: "adc")
            try await fixture.submit([PipelineRequest(id: "adc-1", op: .topicsSubscribe, target: .topic("adc"), items: tokens)])
            let host = fixture.emulator.baseURL.replacingOccurrences(of: "http://", with: "")
            let worker = try await ChildProcess(
                try Programs.iidbatch,
                ["run", pipeline, "--brokers", fixture.kafka.bootstrapServers, "--backend-url", fixture.emulator.baseURL, "--log-level", "warning"],
                // Each probe may take a minute (google-auth's variable): the emulator in this
                // process, on a CI machine running the suite's benches, once took over 3 s thrice.
                environment: ["GCE_METADATA_HOST": host, "GOOGLE_APPLICATION_CREDENTIALS": "", "GCE_METADATA_TIMEOUT": "60"])
            // Fails at once, with the worker's output, if it exits before it found the credentials
            // (the outcome wait alone would only time out, saying nothing of why).
            try await worker.waitFor("credentials from the metadata server at \(host)", seconds: 200)
            let outcomes = try await fixture.waitForOutcomes(["adc-1"])
            worker.interrupt()
            #expect(try await worker.waitForExit() == 0)
            #expect(outcomes["adc-1"]?.status == .succeeded)
            #expect(worker.text.contains("credentials from the metadata server at \(host)"), "\(worker.text)")
            #expect(!worker.text.contains("ya29."), "no token in the output")
            #expect(
                fixture.emulator.backend.lastMetadataScopes == AccessTokenProvider.defaultScopes,
                "the token asked for iidbatch's scopes, as Google's libraries ask: \(fixture.emulator.backend.lastMetadataScopes ?? [])")
        }
    }

    @Test("with none to be found and no metadata server there (off Google Cloud), run says what it tried and exits 78 without usage help")
    func noneFound() async throws {
        let run = try await ChildProcess(
            try Programs.iidbatch, ["run", "--brokers", "127.0.0.1:1"], environment: ["GCE_METADATA_HOST": "127.0.0.1:1", "GOOGLE_APPLICATION_CREDENTIALS": ""])
        let status = try await run.waitForExit()
        // Nothing listens on port 1: the connection is refused, as off Google Cloud, where
        // nothing is configured; a supervisor's Restart=on-failure must not loop on it.
        #expect(status == 78, "no metadata server is there (EX_CONFIG): \(run.text)")
        #expect(run.text.contains("no credentials found; tried: GOOGLE_APPLICATION_CREDENTIALS is not set; the metadata server at 127.0.0.1:1"), "\(run.text)")
        #expect(!run.text.contains("USAGE:"), "a runtime failure prints no usage help")
    }
}
