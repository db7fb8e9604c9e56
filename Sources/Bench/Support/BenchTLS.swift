import AsyncHTTPClient
import Emulator
import Foundation
import NIOSSL

/// The self-signed certificate for 127.0.0.1 an emulator child serves HTTPS (HTTP/2 by ALPN)
/// with, written to a bench's folder, and how each side is told of it: the emulator's options,
/// the worker's `--ca-file`, and the bench's own reads of the emulator's stats.
struct BenchTLS: Sendable {
    /// The certificate (PEM), the CA the worker and the stats reads trust.
    let certificate: String
    /// Its private key (PEM).
    let key: String

    /// Writes a fresh certificate and key for 127.0.0.1 to `folder`.
    init(in folder: URL) throws {
        certificate = folder.appendingPathComponent("cert.pem").path
        key = folder.appendingPathComponent("key.pem").path
        try SelfSignedCertificate(hosts: ["127.0.0.1"]).write(certificate: certificate, key: key)
    }

    /// The emulator's options that serve HTTPS with the certificate, on two threads: one adds
    /// latency of its own at hundreds of TLS + HTTP/2 streams, which Google's front end does not.
    var emulatorArguments: [String] { ["--tls-cert", certificate, "--tls-key", key, "--threads", "2"] }

    /// The worker's option that trusts it.
    var workerArguments: [String] { ["--ca-file", certificate] }

    /// The emulator's stats, read over HTTPS by a client of their own trusting the certificate
    /// (one new connection, which the emulator counts).
    func stats(baseURL: String) async throws -> EmulatorStats {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file(certificate)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPClient.Configuration(tlsConfiguration: tls))
        do {
            let stats = try await EmulatorCallCount.stats(baseURL: baseURL, client: client)
            try await client.shutdown()
            return stats
        } catch {
            try? await client.shutdown()
            throw error
        }
    }
}
