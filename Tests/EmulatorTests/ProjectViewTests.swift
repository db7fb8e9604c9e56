import Emulator
import InstanceAPI
import Testing

/// `InstanceAPIClient.forProject` always makes a view that owns nothing, for the client's own
/// project too: a view's `shutdown()` never closes the connections others call through.
@Suite("A client's view for a project owns nothing")
struct ProjectViewTests {
    @Test("a view for the client's own project is a view: its shutdown leaves the client working")
    func ownProjectView() async throws {
        try await withEmulator { (e: EmulatorFixture) async throws in
            e.backend.seed(SeedRequest(tokens: ["token-own"]))
            let view = e.client.forProject(e.client.projectID)
            #expect(view !== e.client, "a view, not the client itself")
            #expect(view.projectID == e.client.projectID)
            try await view.shutdown()
            #expect(try await e.client.fcmSubscribe(token: "token-own", topic: "news") == .ok, "the client still calls after its view's shutdown")
            #expect(try await view.fcmTopics(registration: "token-own").value == ["news"], "and so does the view")
        }
    }
}
