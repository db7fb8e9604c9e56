import Emulator
import InstanceAPI
import Testing

/// One credential, several Firebase projects: `InstanceAPIClient.forProject` puts the project in
/// each call, and the emulator acts on the project a call names when the caller was granted it.
@Suite("One credential calling several projects")
struct GrantedProjectsTests {
    /// The emulator's service accounts may also call `firebase-app-two`.
    static func grantAppTwo(_ configuration: inout EmulatorConfiguration) { configuration.grantedProjects = ["firebase-app-two"] }

    @Test("a deletion goes to the project of the client it is made through; an ungranted project is refused")
    func deletions() async throws {
        try await withEmulator(configure: Self.grantAppTwo) { (e: EmulatorFixture) async throws in
            e.backend.seed(SeedRequest(installations: ["fid-in-app-two"], project: "firebase-app-two"))
            #expect(try await e.client.deleteInstance(id: "fid-in-app-two").code == .permissionDenied, "through the key's own project: another project's FID")
            #expect(e.backend.installationDeleted("fid-in-app-two") == false)
            let two = e.client.forProject("firebase-app-two")
            #expect(two.projectID == "firebase-app-two" && e.client.projectID == "demo")
            #expect(try await two.deleteInstance(id: "fid-in-app-two") == .ok)
            #expect(e.backend.installationDeleted("fid-in-app-two") == true)
            let error = await #expect(throws: InstanceAPIError.self) { try await e.client.forProject("not-granted-app").deleteInstance(id: "fid-in-app-two") }
            #expect(error?.resultCode == .permissionDenied)
        }
    }

    @Test("FCM v1 topic calls name the project in the path; made-for-project clients share tokens and leave the connections open")
    func topics() async throws {
        try await withEmulator(configure: Self.grantAppTwo) { (e: EmulatorFixture) async throws in
            e.backend.seed(SeedRequest(tokens: ["token-in-app-two"], project: "firebase-app-two"))
            let two = e.client.forProject("firebase-app-two")
            #expect(try await two.fcmSubscribe(token: "token-in-app-two", topic: "news") == .ok)
            #expect(try await two.fcmTopics(registration: "token-in-app-two").value == ["news"])
            #expect(e.backend.tokenState("token-in-app-two")?.topics == ["news"])
            #expect(try await e.client.fcmTopics(registration: "token-in-app-two").result.code != .ok, "the key's own project does not hold it")
            #expect(two.tokens === e.client.tokens, "one token source")
            try await two.shutdown()
            #expect(try await two.fcmTopics(registration: "token-in-app-two").value == ["news"], "shutdown of a derived client closes nothing")
        }
    }
}
