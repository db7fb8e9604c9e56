import Testing

@testable import Bench

/// Benchmarks send items of the sizes and alphabets Google's have, the same on every run.
@Suite("Bench: real-size items")
struct BenchItemsTests {
    static let base64url = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

    @Test("FIDs: 22 base64url characters, the first c, d, e or f; distinct and deterministic")
    func installationIDs() {
        let ids = BenchItems.pool(20_000, BenchItems.installationID)
        #expect(ids.allSatisfy { $0.count == 22 && $0.allSatisfy(Self.base64url.contains) && "cdef".contains($0.first!) })
        #expect(Set(ids).count == ids.count)
        #expect(Set(ids.map { $0.first! }).count == 4, "every allowed first character occurs")
        #expect(BenchItems.installationID(12_345) == ids[12_345])
    }

    @Test("registration tokens: 163 characters, a FID, ':APA91b', then base64url; distinct and deterministic")
    func registrationTokens() {
        let tokens = BenchItems.pool(20_000, BenchItems.registrationToken)
        for (index, token) in tokens.enumerated().prefix(500) {
            #expect(token.count == 163)
            #expect(token.hasPrefix(BenchItems.installationID(index) + ":APA91b"))
            #expect(token.dropFirst(29).allSatisfy(Self.base64url.contains))
        }
        #expect(tokens.allSatisfy { $0.count == 163 })
        #expect(Set(tokens).count == tokens.count)
        #expect(BenchItems.registrationToken(7) == tokens[7])
    }

    @Test("APNs device tokens: 64 lowercase hex digits; distinct")
    func apnsTokens() {
        let tokens = BenchItems.pool(20_000, BenchItems.apnsToken)
        #expect(tokens.allSatisfy { $0.count == 64 && $0.allSatisfy { "0123456789abcdef".contains($0) } })
        #expect(Set(tokens).count == tokens.count)
    }
}
