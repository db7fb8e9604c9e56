import AsyncHTTPClient
import Emulator
import Foundation
import InstanceAPI
import NIOCore
import Testing

@Suite("Every api-reference example, client to emulator over HTTP")
struct RoundTripTests {
    @Test("§2.1 instance info, with and without details")
    func instanceInfo() async throws {
        try await withEmulator { (e: EmulatorFixture) async throws in
            let tokens = e.seedTokens(1)
            #expect(try await e.client.batchAdd(topic: "movies", tokens: tokens) == [.ok])
            let plain = try #require(try await e.client.instanceInfo(token: tokens[0]).value)
            #expect(plain.application == "com.iid.example" && plain.authorizedEntity == "123456789012" && plain.platform == "ANDROID")
            #expect(plain.rel == nil)
            let detailed = try #require(try await e.client.instanceInfo(token: tokens[0], details: true).value)
            #expect(detailed.rel?.topics?["movies"]?.addDate.count == 10)
            #expect(try await e.client.instanceInfo(token: "never-seen").result.code == .notFound)
        }
    }

    @Test("§2.2 and §2.3: single relation, batchAdd and batchRemove keep request order per token")
    func topics() async throws {
        try await withEmulator { (e: EmulatorFixture) async throws in
            let tokens = e.seedTokens(3)
            #expect(try await e.client.subscribeOne(token: tokens[0], topic: "news") == .ok)
            let mixed = [tokens[1], "unknown-token", tokens[2], "bad token!"]
            let results = try await e.client.batchAdd(topic: "/topics/movies", tokens: mixed)
            #expect(results.map(\.code) == [.ok, .notFound, .ok, .invalidArgument])
            #expect(e.backend.subscribers(of: "movies") == [tokens[1], tokens[2]].sorted())
            #expect(try await e.client.batchAdd(topic: "movies", tokens: [tokens[1]]) == [.ok], "batchAdd is idempotent")
            #expect(try await e.client.batchRemove(topic: "movies", tokens: [tokens[1], tokens[0]]).map(\.code) == [.ok, .ok])
            #expect(e.backend.subscribers(of: "movies") == [tokens[2]])
            #expect(e.backend.tokenState(tokens[0])?.topics == ["news"])
        }
    }

    @Test("§2.4 batchImport maps APNs tokens; a re-import gives the same registration token")
    func imports() async throws {
        try await withEmulator { (e: EmulatorFixture) async throws in
            let apns = ["368dde283db539abc4a6419b1795b6131194703b816e4f624ffa12", "76b39c2b2ceaadee8400b8868c2f45325ab9831c1998ed70859d86"]
            let first = try await e.client.batchImport(application: "com.google.FCMTestApp", sandbox: false, apnsTokens: apns + ["not-hex"])
            #expect(first.map(\.result.code) == [.ok, .ok, .invalidArgument])
            #expect(first[0].registrationToken != nil && first[0].registrationToken != first[1].registrationToken)
            #expect(first[2].registrationToken == nil)
            let again = try await e.client.batchImport(application: "com.google.FCMTestApp", sandbox: false, apnsTokens: apns)
            #expect(again.map(\.registrationToken) == first.prefix(2).map(\.registrationToken))
            let sandbox = try await e.client.batchImport(application: "com.google.FCMTestApp", sandbox: true, apnsTokens: [apns[0]])
            #expect(sandbox[0].registrationToken != first[0].registrationToken, "another environment is another token")
            // An imported token is a real registration token: it can be subscribed.
            #expect(try await e.client.batchAdd(topic: "ios", tokens: [first[0].registrationToken!]) == [.ok])
            #expect(e.backend.tokenState(first[0].registrationToken!)?.platform == "IOS")
        }
    }

    @Test("§2.6 FCM v1 per-token subscribe and unsubscribe; subscribing twice is OK")
    func fcmV1() async throws {
        try await withEmulator { (e: EmulatorFixture) async throws in
            let tokens = e.seedTokens(1)
            #expect(try await e.client.fcmSubscribe(token: tokens[0], topic: "weather") == .ok)
            #expect(try await e.client.fcmSubscribe(token: tokens[0], topic: "weather") == .ok)
            #expect(e.backend.subscribers(of: "weather") == tokens)
            #expect(try await e.client.fcmSubscribe(token: "gone-token", topic: "weather").code == .notFound)
            #expect(try await e.client.fcmUnsubscribe(token: tokens[0], topic: "weather") == .ok)
            #expect(try await e.client.fcmUnsubscribe(token: "gone-token", topic: "weather") == .ok, "allow_missing")
            #expect(e.backend.subscribers(of: "weather").isEmpty)
        }
    }

    @Test("§3 deletion: deleted, then ALREADY_ABSENT (409), unknown ALREADY_ABSENT (404), malformed INVALID_ARGUMENT")
    func deletion() async throws {
        try await withEmulator { (e: EmulatorFixture) async throws in
            let fid = "cR5dLwyqQh2wVz0W3Jc8ak"
            e.backend.seed(SeedRequest(installations: [fid]))
            #expect(try await e.client.deleteInstance(id: fid) == .ok)
            #expect(e.backend.installationDeleted(fid) == true)
            #expect(try await e.client.deleteInstance(id: fid) == ItemResult(.alreadyAbsent, message: "already deleted (HTTP 409)"))
            #expect(try await e.client.deleteInstance(id: "dNeverExisted000000000") == ItemResult(.alreadyAbsent, message: "not found (HTTP 404)"))
            #expect(try await e.client.deleteInstance(id: "short").code == .invalidArgument)
            #expect(e.backend.stats["installations.delete"].statuses == ["200": 1, "409": 1, "404": 1, "400": 1])
        }
    }

    @Test("§4 device groups: create, add, remove, retrieve")
    func deviceGroups() async throws {
        try await withEmulator { (e: EmulatorFixture) async throws in
            let tokens = e.seedTokens(4)
            let key = try #require(try await e.client.createGroup(name: "appUser-Chris", tokens: [tokens[0], tokens[1]]).value)
            #expect(key.hasPrefix("APA91b"))
            let other = try #require(try await e.client.groupKey(name: "appUser-Chris").value)
            #expect(other != key, "each retrieve may look different")
            #expect(try await e.client.addToGroup(name: "appUser-Chris", key: other, tokens: [tokens[2], "stale-token"]).value == key)
            #expect(e.backend.groupMembers("appUser-Chris") == [tokens[0], tokens[1], tokens[2], "stale-token"])
            _ = try await e.client.removeFromGroup(name: "appUser-Chris", key: key, tokens: ["stale-token"])
            #expect(e.backend.groupMembers("appUser-Chris")?.count == 3)
        }
    }

    @Test("the emulator refuses what the client never sends: 1,001 tokens, a bad topic, an empty list")
    func emulatorLimits() async throws {
        try await withEmulator { (e: EmulatorFixture) async throws in
            let token = try await e.client.tokens.token()
            let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
            defer { _ = http.shutdown() }
            func post(_ body: String) async throws -> (Int, String) {
                var request = HTTPClientRequest(url: e.server.baseURL + "/iid/v1:batchAdd")
                request.method = .POST
                request.headers.add(name: "Authorization", value: "Bearer " + token.value)
                request.headers.add(name: "access_token_auth", value: "true")
                request.body = .bytes(ByteBuffer(string: body))
                let response = try await http.execute(request, timeout: .seconds(30))
                return (Int(response.status.code), String(buffer: try await response.body.collect(upTo: 1 << 20)))
            }
            let tooMany = "[" + (0...1_000).map { "\"t\($0)\"" }.joined(separator: ",") + "]"
            let (status, text) = try await post(#"{"to": "/topics/movies", "registration_tokens": \#(tooMany)}"#)
            #expect(status == 400 && text.contains("1001"))
            #expect(try await post(#"{"to": "/topics/bad name", "registration_tokens": ["a"]}"#).0 == 400)
            #expect(try await post(#"{"to": "/topics/movies", "registration_tokens": []}"#).0 == 400)
            #expect(try await post("not json").0 == 400)
            // And the client refuses before calling.
            await #expect(throws: InstanceAPIError.self) { try await e.client.batchAdd(topic: "m", tokens: Array(repeating: "t", count: 1_001)) }
            #expect(e.backend.stats["iid.batchAdd"].maxItemsPerCall == 1_001, "only the raw call reached the emulator")
        }
    }
}
