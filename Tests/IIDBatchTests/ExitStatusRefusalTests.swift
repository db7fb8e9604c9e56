import Kafka
import Testing

@testable import CommandSupport
@testable import iidbatch

/// A cluster that refuses the client while it connects (TLS, SASL) is a configuration to fix
/// (78), never "did not answer within --timeout" (69).
@Suite("ExitStatus: a refusal while connecting is configuration")
struct ExitStatusRefusalTests {
    @Test("a TLS handshake that failed, a refused authentication: 78, reported as a failure at the brokers, not a silence")
    func refusals() throws {
        let timeout = try KafkaTimeout.parse(["--timeout", "2s"])
        let configuration = KafkaConfiguration(bootstrapServers: "broker-1:9093")
        for error in [
            KafkaError.broker(code: .ssl, message: "SSL handshake failed: certificate verify failed"),
            .broker(code: .authentication, message: "SASL authentication error: Authentication failed"),
            .broker(code: .saslAuthenticationFailed, message: "Invalid username or password"),
        ] {
            #expect(CommandSupport.ExitStatus(error) == .config, "\(error)")
            let failure = timeout.failure("reading o", configuration, error)
            #expect(failure.status == .config && failure.description.hasPrefix("reading o failed at broker-1:9093: "), "\(failure)")
            #expect(!failure.description.contains("did not answer"), "\(failure)")
        }
    }
}
