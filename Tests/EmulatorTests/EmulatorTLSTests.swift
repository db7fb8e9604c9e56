import AsyncHTTPClient
import Emulator
import Foundation
import InstanceAPI
import NIOCore
import NIOHTTP1
import NIOSSL
import Testing

@Suite("The emulator over TLS: self-signed certificates, HTTP/2 and HTTP/1.1 by ALPN, calls sharing connections")
struct EmulatorTLSTests {
    /// An emulator serving HTTPS with a fresh self-signed certificate for 127.0.0.1 and localhost,
    /// and a file holding that certificate (the client's CA file); both gone after `body`.
    private func withTLSEmulator<T>(_ body: (EmulatorServer, SelfSignedCertificate, String) async throws -> T) async throws -> T {
        let certificate = try SelfSignedCertificate(hosts: ["127.0.0.1", "localhost"])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("emulator-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let caFile = folder.appendingPathComponent("ca.pem").path
        try certificate.write(certificate: caFile, key: folder.appendingPathComponent("key.pem").path)
        let server = try await EmulatorServer.start(EmulatorConfiguration(tls: EmulatorTLS(certificate)))
        do {
            let result = try await body(server, certificate, caFile)
            await server.shutdown()
            return result
        } catch {
            await server.shutdown()
            throw error
        }
    }

    /// An AsyncHTTPClient trusting `certificate` only, offering HTTP/2 or only HTTP/1.1.
    private func client(trusting certificate: SelfSignedCertificate, http1Only: Bool) throws -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(certificate.certificatePEM.utf8)))
        configuration.tlsConfiguration = tls
        configuration.httpVersion = http1Only ? .http1Only : .automatic
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    @Test("a self-signed certificate round-trips: its files read back as the same PEM, a certificate and a matching key naming each host")
    func selfSignedRoundTrip() throws {
        let certificate = try SelfSignedCertificate(hosts: ["127.0.0.1", "::1", "localhost"])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("self-signed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let certificateFile = folder.appendingPathComponent("cert.pem").path
        let keyFile = folder.appendingPathComponent("key.pem").path
        try certificate.write(certificate: certificateFile, key: keyFile)
        #expect(try String(contentsOfFile: certificateFile, encoding: .utf8) == certificate.certificatePEM)
        #expect(try String(contentsOfFile: keyFile, encoding: .utf8) == certificate.privateKeyPEM)
        let permissions = try FileManager.default.attributesOfItem(atPath: keyFile)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        let parsed = try NIOSSLCertificate.fromPEMBytes(Array(certificate.certificatePEM.utf8))
        #expect(parsed.count == 1)
        let names = try #require(parsed.first?._subjectAlternativeNames())
        #expect(names.filter { $0.nameType == .ipAddress }.count == 2 && names.filter { $0.nameType == .dnsName }.count == 1)
        // The key is the certificate's: the files make a usable server configuration.
        #expect(throws: Never.self) { try EmulatorTLS(certificateFile: certificateFile, keyFile: keyFile) }
        #expect(throws: EmulatorError.self) { try SelfSignedCertificate(hosts: []) }
    }

    @Test("a client offering h2 gets HTTP/2; one offering only http/1.1 gets HTTP/1.1, on the same port; each connection counts")
    func alpn() async throws {
        try await withTLSEmulator { server, certificate, _ in
            #expect(server.baseURL.hasPrefix("https://"))
            for (http1Only, expected) in [(false, HTTPVersion.http2), (true, HTTPVersion.http1_1)] {
                let client = try client(trusting: certificate, http1Only: http1Only)
                let response = try await client.execute(HTTPClientRequest(url: server.baseURL + "/emulator/v1/stats"), timeout: .seconds(30))
                let body = try await response.body.collect(upTo: 1 << 20)
                try await client.shutdown()
                #expect(response.status == .ok && response.version == expected)
                #expect(try JSONDecoder().decode(EmulatorStats.self, from: Data(body.readableBytesView)).connections >= 1)
            }
            #expect(server.backend.stats.connections == 2)
        }
    }

    @Test("a plain-HTTP emulator counts its connections too")
    func plainConnections() async throws {
        try await withEmulator { e in
            #expect(e.server.baseURL.hasPrefix("http://"))
            _ = try await e.client.fcmSubscribe(token: e.seedTokens(1)[0], topic: "news")
            #expect(e.backend.stats.connections >= 1)
        }
    }

    @Test("300 calls at once over HTTPS trusting --ca-file's certificate share a few HTTP/2 connections")
    func callsShareConnections() async throws {
        try await withTLSEmulator { server, _, caFile in
            let credentials = try ServiceAccountCredentials(json: server.backend.makeServiceAccountKey(tokenURI: server.baseURL + "/token"))
            let roots = try ExtraTrustRoots(path: caFile)
            var configuration = InstanceAPIConfiguration.singleHost(server.baseURL, extraTrustRoots: roots)
            // A hang guard only: 300 calls at once in this process, while a CI run's benches load
            // both cores, may take longer than the 30 s default.
            configuration.timeout = .seconds(120)
            let client = InstanceAPIClient(credentials: credentials, configuration: configuration)
            let tokens = (0..<300).map { "tls-\($0)" }
            server.backend.seed(SeedRequest(tokens: tokens))
            let results: [ItemResult]
            do {
                results = try await withThrowingTaskGroup(of: ItemResult.self) { group in
                    for token in tokens { group.addTask { try await client.fcmSubscribe(token: token, topic: "news") } }
                    return try await group.reduce(into: [ItemResult]()) { $0.append($1) }
                }
            } catch {
                // Shut down on the way out too: a client dropped running traps the whole test process.
                try await client.shutdown()
                throw error
            }
            try await client.shutdown()
            #expect(results.count == 300 && results.allSatisfy { $0 == .ok })
            #expect(server.backend.stats["fcm.subscribe"].calls == 300)
            // 100 streams per connection (the server's limit): 3 carry 300, the token call shares one.
            #expect((1...8).contains(server.backend.stats.connections))
        }
    }

    @Test("a client that does not trust the certificate is refused; a CA file that is no certificate is refused naming it")
    func untrusted() async throws {
        try await withTLSEmulator { server, _, caFile in
            let credentials = try ServiceAccountCredentials(json: server.backend.makeServiceAccountKey(tokenURI: server.baseURL + "/token"))
            let client = InstanceAPIClient(credentials: credentials, configuration: .singleHost(server.baseURL))
            await #expect(throws: InstanceAPIError.self) { _ = try await client.fcmSubscribe(token: "t", topic: "news") }
            try await client.shutdown()
            let notPEM = caFile + ".txt"
            try Data("not a certificate".utf8).write(to: URL(fileURLWithPath: notPEM))
            #expect(throws: ExtraTrustRoots.Failure.self) { try ExtraTrustRoots(path: notPEM) }
            do { _ = try ExtraTrustRoots(path: caFile + ".missing") } catch { #expect("\(error)".contains(caFile + ".missing")) }
        }
    }
}
