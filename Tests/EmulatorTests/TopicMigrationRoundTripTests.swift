import AsyncHTTPClient
import Emulator
import Foundation
import InstanceAPI
import NIOCore
import NIOHTTP1
import Testing

/// The APIs that replace the Instance ID API (api-reference §2.6, §6), client to emulator over
/// HTTP, and the emulator's "new project" mode.
@Suite("FCM v1 topics, FIDs, the device-group export and new projects, client to emulator")
struct TopicMigrationRoundTripTests {
    static func pagesOfThree(_ configuration: inout EmulatorConfiguration) { configuration.topicListPageSize = 3 }
    static func newProject(_ configuration: inout EmulatorConfiguration) { configuration.newProject = true }

    @Test("§2.6 PATCH with allowMissing subscribes idempotently; DELETE with allow_missing unsubscribes what is there or not")
    func patchAndDelete() async throws {
        try await withEmulator { (e: EmulatorFixture) async throws in
            let tokens = e.seedTokens(2)
            #expect(try await e.client.fcmSubscribe(token: tokens[0], topic: "weather") == .ok)
            #expect(try await e.client.fcmSubscribe(token: tokens[0], topic: "weather") == .ok, "a repeat is OK and changes nothing")
            #expect(e.backend.subscribers(of: "weather") == [tokens[0]])
            #expect(e.backend.tokenState(tokens[0])?.topics == ["weather"])
            #expect(try await e.client.fcmUnsubscribe(token: tokens[1], topic: "weather") == .ok, "not subscribed: allow_missing")
            #expect(try await e.client.fcmUnsubscribe(token: tokens[0], topic: "weather") == .ok)
            #expect(try await e.client.fcmUnsubscribe(token: tokens[0], topic: "weather") == .ok, "a repeat is OK")
            #expect(e.backend.subscribers(of: "weather").isEmpty)
            #expect(try await e.client.fcmSubscribe(token: "never-seen", topic: "weather").code == .notFound)
            // An FCM token holds ':' (percent-encoded in the URL): the body names it as it is.
            let colon = e.seedTokens(1, prefix: "fGx1:APA91b")[0]
            #expect(try await e.client.fcmSubscribe(token: colon, topic: "weather") == .ok)
            #expect(e.backend.stats["fcm.subscribe"].statuses == ["200": 3, "404": 1])
        }
    }

    @Test("§2.6 FIDs are registrations: subscribed, listed, unsubscribed; deleting the installation forgets its topics")
    func fids() async throws {
        try await withEmulator { (e: EmulatorFixture) async throws in
            let fid = "cR5dLwyqQh2wVz0W3Jc8ak"
            e.backend.seed(SeedRequest(installations: [fid]))
            #expect(try await e.client.fcmSubscribe(token: fid, topic: "news") == .ok)
            #expect(try await e.client.fcmSubscribe(token: fid, topic: "sport") == .ok)
            #expect(e.backend.subscribers(of: "news") == [fid])
            #expect(try await e.client.fcmTopics(registration: fid) == .success(["news", "sport"]))
            #expect(try await e.client.fcmUnsubscribe(token: fid, topic: "sport") == .ok)
            #expect(try await e.client.fcmTopics(registration: fid) == .success(["news"]))
            #expect(try await e.client.deleteInstance(id: fid) == .ok)
            #expect(e.backend.subscribers(of: "news").isEmpty)
            #expect(try await e.client.fcmSubscribe(token: fid, topic: "news").code == .notFound, "a deleted FID is no registration")
            #expect(try await e.client.fcmTopics(registration: fid).result.code == .notFound)
        }
    }

    @Test("§2.6 the list call pages: every topic comes back across pages, in order, and an unknown registration is NOT_FOUND")
    func listPages() async throws {
        try await withEmulator(configure: Self.pagesOfThree) { (e: EmulatorFixture) async throws in
            let token = e.seedTokens(1)[0]
            let topics = (0..<8).map { "topic-\($0)" }
            for topic in topics { #expect(try await e.client.fcmSubscribe(token: token, topic: topic) == .ok) }
            #expect(try await e.client.fcmTopics(registration: token) == .success(topics))
            #expect(e.backend.stats["fcm.topics.list"].statuses == ["200": 3], "8 topics in pages of 3")
            #expect(try await e.client.fcmTopics(registration: e.seedTokens(1, prefix: "bare")[0]) == .success([]))
            #expect(try await e.client.fcmTopics(registration: "never-seen").result.code == .notFound)
        }
    }

    @Test("§2.6 as the Admin SDK calls it: POST ?topic_name= with {} (409 on a repeat counts as success), DELETE ?allow_missing=true")
    func adminSDKCalls() async throws {
        try await withEmulator { (e: EmulatorFixture) async throws in
            let token = e.seedTokens(1)[0]
            let access = try await e.client.tokens.token()
            let http = HTTPClientHolder()
            defer { http.shutdown() }
            func call(_ method: HTTPMethod, _ path: String, body: String?) async throws -> Int {
                var request = HTTPClientRequest(url: e.server.baseURL + path)
                request.method = method
                request.headers.add(name: "Authorization", value: "Bearer \(access.value)")
                request.headers.add(name: "X-GOOG-API-FORMAT-VERSION", value: "2")
                if let body { request.body = .bytes(ByteBuffer(string: body)) }
                let response = try await http.client.execute(request, timeout: .seconds(30))
                return Int(response.status.code)
            }
            let base = "/v1/projects/demo/registrations/\(token)/topicSubscriptions"
            #expect(try await call(.POST, base + "?topic_name=movies", body: "{}") == 200)
            #expect(try await call(.POST, base + "?topic_name=movies", body: "{}") == 409, "the SDK treats 409 as success")
            #expect(e.backend.subscribers(of: "movies") == [token])
            #expect(try await call(.DELETE, base + "/movies?allow_missing=true", body: nil) == 200)
            #expect(try await call(.DELETE, base + "/movies?allow_missing=true", body: nil) == 200)
            #expect(e.backend.subscribers(of: "movies").isEmpty)
        }
    }

    @Test("§4, §6 the device-group export GET lists a group's members; a key of no group is NOT_FOUND")
    func groupExport() async throws {
        try await withEmulator { (e: EmulatorFixture) async throws in
            let tokens = e.seedTokens(3)
            let key = try #require(try await e.client.createGroup(name: "appUser-Chris", tokens: tokens).value)
            #expect(try await e.client.groupMembers(key: key) == .success(tokens))
            let other = try #require(try await e.client.groupKey(name: "appUser-Chris").value)
            #expect(try await e.client.groupMembers(key: other) == .success(tokens), "every retrieved key names the group")
            _ = try await e.client.removeFromGroup(name: "appUser-Chris", key: key, tokens: tokens)
            #expect(try await e.client.groupMembers(key: key).result.code == .notFound, "a group without members ceases to exist")
        }
    }

    @Test("a new project: Instance ID and device-group calls are refused 403 as Google refuses them; FCM v1 and deletion work")
    func newProject() async throws {
        try await withEmulator(configure: Self.newProject) { (e: EmulatorFixture) async throws in
            let tokens = e.seedTokens(1)
            let batch = await #expect(throws: InstanceAPIError.self) { try await e.client.batchAdd(topic: "movies", tokens: tokens) }
            #expect(batch?.resultCode == .permissionDenied)
            let refusal = "\(try #require(batch))"
            #expect(refusal.contains("SERVICE_DISABLED") && refusal.contains("iid.googleapis.com"), "the body names why: \(refusal)")
            let group = await #expect(throws: InstanceAPIError.self) { try await e.client.createGroup(name: "g", tokens: tokens) }
            #expect(group?.resultCode == .permissionDenied)
            let info = await #expect(throws: InstanceAPIError.self) { try await e.client.instanceInfo(token: tokens[0]) }
            #expect(info?.resultCode == .permissionDenied)
            #expect(try await e.client.fcmSubscribe(token: tokens[0], topic: "movies") == .ok)
            #expect(try await e.client.fcmTopics(registration: tokens[0]) == .success(["movies"]))
            #expect(e.backend.stats["iid.batchAdd"].statuses == ["403": 1])
        }
    }
}
