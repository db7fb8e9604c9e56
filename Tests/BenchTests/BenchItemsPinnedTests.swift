import Testing

@testable import Bench

/// The items are the same on every run and in every build: a few pinned (computed apart from the
/// Swift code), so that a change that would alter what the benchmarks send, and so their figures,
/// fails here.
@Suite("Bench: items pinned")
struct BenchItemsPinnedTests {
    @Test("installation ids 0 and 12,345")
    func installationIDs() {
        #expect(BenchItems.installationID(0) == "dOIgqDl7Hc2vbnieaqG5Zf")
        #expect(BenchItems.installationID(12_345) == "fSIRglip0RGgNG7c5fcT-O")
    }

    @Test("registration token 7")
    func registrationToken() {
        #expect(
            BenchItems.registrationToken(7)
                == "fGPL4eRZMg3XBEw81_Q8Zh:APA91blTrrcGc-Kctz0ztmah4h2j_avobLvqoRd8vEoTPC0PZT_NZRPQK-_iJewHqZUGdhacOidoh5U2kaguebBbX66_W6Trco3WMs6wNU30pFs07fD5kkowFkMN0vmy0LXxXmjFyQax"
        )
    }

    @Test("APNs device token 2")
    func apnsToken() {
        #expect(BenchItems.apnsToken(2) == "975835de1c9756cebfc846100bfc1e42987bbcbfdd7e532fc3f2827affe7f664")
    }
}
