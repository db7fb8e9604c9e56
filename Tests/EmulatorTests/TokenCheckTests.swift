import Emulator
import Foundation
import InstanceAPI
import NIOPosix
import Testing

@Suite("A first token judges the credentials: refused, unavailable or fine")
struct TokenCheckTests {
    @Test("a key the emulator made is fine; one it never made is refused; a token endpoint that is not there is unavailable")
    func check() async throws {
        let server = try await EmulatorServer.start(EmulatorConfiguration())
        let known = InstanceAPIClient(
            credentials: try ServiceAccountCredentials(json: try server.backend.makeServiceAccountKey(tokenURI: server.baseURL + "/token")),
            configuration: .singleHost(server.baseURL))
        // Asked again while no answer comes (the endpoint is this process's own emulator: a
        // loaded CI run once left a loopback connect past its 10 s); the answer is the subject.
        var fine = await known.tokens.check()
        for _ in 0..<5 { if case .unavailable = fine { fine = await known.tokens.check() } }
        #expect(fine == .ok)

        let (unknownKey, _, _) = try ServiceAccountCredentials.generateKeyFile(projectID: "demo", clientEmail: "x@demo", tokenURI: server.baseURL + "/token")
        let unknown = InstanceAPIClient(credentials: try ServiceAccountCredentials(json: unknownKey), configuration: .singleHost(server.baseURL))
        var refused = await unknown.tokens.check()
        for _ in 0..<5 { if case .unavailable = refused { refused = await unknown.tokens.check() } }
        if case .refused(let reason) = refused {
            #expect(reason.contains("HTTP 400") && reason.contains("invalid_grant"), "\(reason)")
        } else {
            Issue.record("an unknown key is refused: \(refused)")
        }

        let (absentKey, _, _) = try ServiceAccountCredentials.generateKeyFile(projectID: "demo", clientEmail: "x@demo", tokenURI: "http://127.0.0.1:1/token")
        // A single host serves the token endpoint too: this one is not there.
        let absent = InstanceAPIClient(credentials: try ServiceAccountCredentials(json: absentKey), configuration: .singleHost("http://127.0.0.1:1"))
        let unavailable = await absent.tokens.check()
        if case .unavailable(let why) = unavailable {
            #expect(why.contains("did not answer"), "\(why)")
        } else {
            Issue.record("a token endpoint that is not there is not a refusal: \(unavailable)")
        }
        for client in [known, unknown, absent] { try await client.shutdown() }
        await server.shutdown()
    }
}
