import AsyncHTTPClient
import Emulator
import Foundation
import InstanceAPI
import NIOCore
import NIOHTTP1
import Testing

@Suite("The emulator's admin API over HTTP")
struct AdminAPITests {
    @Test("seed, read state back, change faults at runtime, revoke tokens, read stats")
    func adminOverHTTP() async throws {
        try await withEmulator { (e: EmulatorFixture) async throws in
            let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
            defer { _ = http.shutdown() }
            func call(_ method: HTTPMethod, _ path: String, _ body: String? = nil) async throws -> (Int, Data) {
                var request = HTTPClientRequest(url: e.server.baseURL + "/emulator/v1/" + path)
                request.method = method
                if let body { request.body = .bytes(ByteBuffer(string: body)) }
                let response = try await http.execute(request, timeout: .seconds(30))
                return (Int(response.status.code), Data(try await response.body.collect(upTo: 1 << 20).readableBytesView))
            }
            #expect(
                try await call(
                    .POST, "seed", #"{"tokens": ["a-1", "a-2"], "installations": ["cR5dLwyqQh2wVz0W3Jc8ak"], "application": "com.x", "platform": "IOS"}"#
                ).0 == 200)
            #expect(try await e.client.batchAdd(topic: "news", tokens: ["a-1", "a-2"]) == [.ok, .ok])
            let (_, tokenBody) = try await call(.GET, "tokens/a-1")
            let token = try JSONDecoder().decode(TokenState.self, from: tokenBody)
            #expect(token.topics == ["news"] && token.platform == "IOS" && token.application == "com.x")
            let (_, topicBody) = try await call(.GET, "topics/news")
            #expect(try JSONDecoder().decode(TopicState.self, from: topicBody).tokens == ["a-1", "a-2"])
            #expect(try await call(.GET, "tokens/nobody").0 == 404)

            let plan = FaultPlan(itemErrors: ["NOT_FOUND": 1])
            #expect(try await call(.PUT, "faults", String(decoding: try JSONEncoder().encode(plan), as: UTF8.self)).0 == 200)
            #expect(try JSONDecoder().decode(FaultPlan.self, from: try await call(.GET, "faults").1) == plan)
            #expect(try await e.client.batchAdd(topic: "news", tokens: ["a-1"]).map(\.code) == [.notFound])
            let (badStatus, badBody) = try await call(.PUT, "faults", #"{"itemErrors": {"INTERNAL": 2}}"#)
            #expect(badStatus == 400 && String(decoding: badBody, as: UTF8.self).contains("INTERNAL=2"))

            // docs/local.md's minimal forms: absent fields take their defaults.
            #expect(try await call(.POST, "seed", #"{"tokens": ["b-1"]}"#).0 == 200)
            #expect(e.backend.tokenState("b-1")?.platform == "ANDROID")
            #expect(try await call(.PUT, "faults", #"{"itemErrors": {"UNAVAILABLE": 1}}"#).0 == 200)
            // Every item UNAVAILABLE: the backend failing, the whole call's failure.
            let unavailable = await #expect(throws: InstanceAPIError.self) { try await e.client.batchAdd(topic: "news", tokens: ["b-1"]) }
            #expect(unavailable?.resultCode == .unavailable, "\(String(describing: unavailable))")
            #expect(try await call(.PUT, "faults", "{}").0 == 200)

            #expect(try await call(.POST, "revoke-tokens").0 == 200)
            _ = try await e.client.batchRemove(topic: "news", tokens: ["a-2"])
            #expect(await e.client.tokens.fetchCount == 2, "the revoked token was replaced")

            let stats = try JSONDecoder().decode(EmulatorStats.self, from: try await call(.GET, "stats").1)
            #expect(stats["iid.batchAdd"].calls == 3 && stats["iid.batchAdd"].items == 4)
            #expect(stats["iid.batchRemove"].statuses["401"] == 1 && stats["iid.batchRemove"].statuses["200"] == 1)
        }
    }
}
