import Kafka
import Testing

/// A cluster that refuses the client while connecting (a TLS handshake that fails, SASL
/// credentials it does not take): librdkafka's metadata request reports only that it timed out,
/// the cause reaching its error callback; the first contact reports the cause, not an outage.
@Suite("KafkaAdmin.metadata: a refusal while connecting is reported as itself")
struct RefusedClientTests {
    @Test("TLS to an endpoint that answers in plain text: the metadata request fails with librdkafka's SSL error, not a timeout")
    func tlsHandshakeFails() async throws {
        let listener = try NotTLSListener()
        var configuration = KafkaConfiguration(bootstrapServers: listener.address)
        configuration["security.protocol"] = "SSL"
        configuration.logHandler = { _, _ in }
        let admin = try KafkaAdmin(configuration: configuration)
        defer { admin.close() }
        let outcome = await Self.metadata(admin, timeout: .seconds(60))  // against a hang only: the refusal ends it
        guard case .failure(.broker(let code, let message)) = outcome else {
            Issue.record("expected a broker error, got \(outcome)")
            return
        }
        #expect(code == .ssl, "\(code): \(message)")
        #expect(message.contains("SSL handshake failed"), "\(message)")
        withExtendedLifetime(listener) {}
    }

    @Test("a timeout or transport failure with no refusal behind it stays a timeout")
    func noRefusal() async throws {
        var configuration = KafkaConfiguration(bootstrapServers: "127.0.0.1:1")
        configuration.logHandler = { _, _ in }
        let admin = try KafkaAdmin(configuration: configuration)
        defer { admin.close() }
        let outcome = await Self.metadata(admin, timeout: .seconds(1))
        guard case .failure(.broker(let code, _)) = outcome else {
            Issue.record("expected a broker error, got \(outcome)")
            return
        }
        #expect(!code.refusesTheClient, "\(code)")
    }

    @Test("the codes that say the cluster refused the client: authentication, SASL, TLS; not timeouts or lost connections")
    func refusalCodes() {
        for code in [KafkaErrorCode.authentication, .saslAuthenticationFailed, .ssl] { #expect(code.refusesTheClient, "\(code)") }
        for code in [KafkaErrorCode.timedOut, .transport, .allBrokersDown, .resolve, .requestTimedOut] { #expect(!code.refusesTheClient, "\(code)") }
    }

    /// The cluster's metadata as `admin` asks for it, or the error.
    private static func metadata(_ admin: KafkaAdmin, timeout: Duration) async -> Result<KafkaClusterMetadata, KafkaError> {
        do throws(KafkaError) { return .success(try await admin.metadata(timeout: timeout)) } catch { return .failure(error) }
    }
}
