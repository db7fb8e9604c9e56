import Testing

@testable import Kafka

/// Which `_AUTHENTICATION` reasons are the cluster's refusal, and which the client's own failure
/// to get credentials (a token endpoint or kinit down for a moment: an outage, never a 78).
@Suite("RDKafkaContext: refusals")
struct RDKafkaRefusalTests {
    @Test("a token endpoint or kinit failing is not a refusal; wrong credentials are")
    func localFailures() {
        let context = RDKafkaContext(logHandler: nil)
        context.noteError(.authentication, "Failed to acquire SASL OAUTHBEARER token: HTTP 503")
        context.noteError(.authentication, "Kerberos: kinit failed: Cannot contact any KDC")
        #expect(context.lastRefusal.withLock { $0 } == nil)
        context.noteError(
            .authentication,
            "SASL authentication error: Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256")
        #expect(context.lastRefusal.withLock { $0 } != nil)
    }
}
