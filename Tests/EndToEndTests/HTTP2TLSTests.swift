import AsyncHTTPClient
import Emulator
import Foundation
import InstanceAPI
import NIOSSL
import Pipeline
import Testing
import WireJSON

/// `iidbatch run` calling `iidbatch emulator --tls-cert/--tls-key` over HTTPS and HTTP/2, trusting
/// the emulator's self-signed certificate through `--ca-file` or `$SSL_CERT_FILE`.
@Suite("iidbatch run over HTTPS and HTTP/2: trusted by --ca-file or $SSL_CERT_FILE, calls sharing a few connections", .serialized)
struct HTTP2TLSTests {
    /// The emulator binary serving HTTPS with a fresh self-signed certificate, its key, certificate
    /// and seeded tokens in `folder`.
    private struct TLSEmulator {
        let process: ChildProcess
        let baseURL: String
        let certificate: SelfSignedCertificate
        let certificateFile: String
        let keyFile: String

        init(folder: URL, tokens: [String]) async throws {
            certificate = try SelfSignedCertificate(hosts: ["127.0.0.1", "localhost"])
            certificateFile = folder.appendingPathComponent("emulator-cert.pem").path
            try certificate.write(certificate: certificateFile, key: folder.appendingPathComponent("emulator-key.pem").path)
            keyFile = folder.appendingPathComponent("emulator-account.json").path
            let tokenFile = folder.appendingPathComponent("tokens.txt")
            try tokens.joined(separator: "\n").write(to: tokenFile, atomically: true, encoding: .utf8)
            process = try await ChildProcess(
                try Programs.iidbatch,
                [
                    "emulator", "--port", "0", "--tls-cert", certificateFile, "--tls-key", folder.appendingPathComponent("emulator-key.pem").path,
                    "--write-key", keyFile, "--tokens", tokenFile.path,
                ])
            let banner = try await process.waitFor("Ctrl-C")
            let line = try #require(banner.split(separator: "\n").first { $0.contains("iidbatch emulator: project") })
            baseURL = String(try #require(line.split(separator: " ").last))
        }

        /// The emulator's statistics, read over HTTPS trusting its certificate only.
        func stats() async throws -> EmulatorStats {
            var configuration = HTTPClient.Configuration()
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(certificate.certificatePEM.utf8)))
            configuration.tlsConfiguration = tls
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
            defer { _ = client.shutdown() }
            let response = try await client.execute(HTTPClientRequest(url: baseURL + "/emulator/v1/stats"), timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 1 << 20)
            return try JSONDecoder().decode(EmulatorStats.self, from: Data(body.readableBytesView))
        }
    }

    /// The shipped topic-changes.yaml as it is, but for the fixture's topics and `group`.
    private func shippedTopicPipeline(_ fixture: PipelineFixture, folder: URL, group: String) throws -> String {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL
        let shipped = try String(contentsOf: repository.appendingPathComponent("pipelines/topic-changes.yaml"), encoding: .utf8)
        let replaced = shipped.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            if line.hasPrefix("request-topic:") { return "request-topic: \(fixture.requestTopic)" }
            if line.hasPrefix("group:") { return "group: \(group)" }
            if line.hasPrefix("outcome-topic:") { return "outcome-topic: \(fixture.outcomeTopic)" }
            if line.hasPrefix("dead-letter-topic:") { return "dead-letter-topic: \(fixture.deadLetterTopic)" }
            return String(line)
        }
        let path = folder.appendingPathComponent("\(group).yaml").path
        try replaced.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// 300 subscriptions through the shipped topic pipeline over HTTPS, the run trusting the
    /// emulator through `trust` (arguments) or `environment`.
    private func subscribeOverHTTPS(name: String, trust: (String) -> (arguments: [String], environment: [String: String])) async throws {
        try await withPipelineFixture(partitions: 1) { fixture in
            let folder = try OperatorCommand.temporaryFolder(name)
            defer { try? FileManager.default.removeItem(at: folder) }
            let tokens = (0..<300).map { "\(name)-token-\($0)" }
            let emulator = try await TLSEmulator(folder: folder, tokens: tokens)
            defer { emulator.process.terminate() }
            #expect(emulator.baseURL.hasPrefix("https://127.0.0.1:"), "the start line names the HTTPS URL: \(emulator.process.text)")
            let pipeline = try shippedTopicPipeline(fixture, folder: folder, group: "\(name)-workers")
            let request = PipelineRequest(id: "\(name)-1", op: .topicsSubscribe, target: .topic("news"), items: PackedStrings(tokens))
            try await fixture.submit([request])
            let (arguments, environment) = trust(emulator.certificateFile)
            let worker = try await ChildProcess(
                try Programs.iidbatch,
                [
                    "run", pipeline, "--brokers", fixture.kafka.bootstrapServers, "--credentials", emulator.keyFile, "--backend-url", emulator.baseURL,
                    "--log-level", "warning",
                ] + arguments,
                environment: environment)
            let outcomes = try await fixture.waitForOutcomes([request.id])
            worker.interrupt()
            #expect(try await worker.waitForExit() == 0, "\(worker.text)")
            #expect(outcomes[request.id]?.counts == ["OK": 300], "\(String(describing: outcomes[request.id]))")
            let stats = try await emulator.stats()
            #expect(stats["fcm.subscribe"].statuses["200"] == 300, "\(stats["fcm.subscribe"]) \(worker.text)")
            // The token call, 300 subscriptions at up to 100 in flight and this stats call: a few
            // HTTP/2 connections, not one per call in flight.
            #expect(stats.connections >= 2 && stats.connections <= 8, "connections: \(stats.connections)")
            emulator.process.interrupt()
            #expect(try await emulator.process.waitForExit() == 0)
        }
    }

    @Test("--ca-file: the shipped topic pipeline's calls go over HTTPS and HTTP/2 and share a few connections")
    func caFile() async throws {
        try await subscribeOverHTTPS(name: "ca-file") { (["--ca-file", $0], [:]) }
    }

    @Test("$SSL_CERT_FILE trusts the emulator when --ca-file is absent")
    func sslCertFile() async throws {
        try await subscribeOverHTTPS(name: "ssl-cert-file") { ([], [ExtraTrustRoots.environmentVariable: $0]) }
    }

    @Test("a CA file that is missing or not PEM is a configuration error (78) naming the file")
    func badCAFile() async throws {
        let folder = try OperatorCommand.temporaryFolder("bad-ca")
        defer { try? FileManager.default.removeItem(at: folder) }
        let pipeline = folder.appendingPathComponent("p.yaml").path
        try "request-topic: r\ngroup: g\noutcome-topic: o\ndead-letter-topic: d\n".write(toFile: pipeline, atomically: true, encoding: .utf8)
        let missing = folder.appendingPathComponent("missing-ca.pem").path
        let option = try await ChildProcess(try Programs.iidbatch, ["run", pipeline, "--brokers", "127.0.0.1:1", "--ca-file", missing])
        #expect(try await option.waitForExit() == 78, "\(option.text)")
        #expect(option.text.contains("--ca-file") && option.text.contains(missing), "\(option.text)")
        let notPEM = folder.appendingPathComponent("not-a-ca.pem").path
        try "not a certificate".write(toFile: notPEM, atomically: true, encoding: .utf8)
        let variable = try await ChildProcess(
            try Programs.iidbatch, ["run", pipeline, "--brokers", "127.0.0.1:1"], environment: [ExtraTrustRoots.environmentVariable: notPEM])
        #expect(try await variable.waitForExit() == 78, "\(variable.text)")
        #expect(variable.text.contains("SSL_CERT_FILE") && variable.text.contains(notPEM), "\(variable.text)")
    }
}
