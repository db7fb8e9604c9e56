import Emulator
import InstanceAPI
import Testing

@Suite("Device groups")
struct DeviceGroupLifecycleTests {
    @Test("create, add to 20, the 21st is GROUP_FULL, remove all and the group is gone; an existing name is ALREADY_EXISTS")
    func lifecycle() async throws {
        try await withEmulator { (e: EmulatorFixture) async throws in
            let tokens = e.seedTokens(21)
            let key = try #require(try await e.client.createGroup(name: "user-1", tokens: [tokens[0]]).value)
            #expect(try await e.client.addToGroup(name: "user-1", key: key, tokens: Array(tokens[1..<20])).value == key)
            #expect(e.backend.groupMembers("user-1")?.count == 20)
            let full = try await e.client.addToGroup(name: "user-1", key: key, tokens: [tokens[20]])
            #expect(full.result.code == .groupFull)
            #expect(e.backend.groupMembers("user-1")?.count == 20, "a refused add changes nothing")
            let exists = try await e.client.createGroup(name: "user-1", tokens: [tokens[20]])
            #expect(exists.result.code == .alreadyExists)
            _ = try await e.client.removeFromGroup(name: "user-1", key: key, tokens: Array(tokens[0..<10]))
            _ = try await e.client.removeFromGroup(name: "user-1", key: key, tokens: Array(tokens[10..<20]))
            #expect(e.backend.groupMembers("user-1") == nil)
            #expect(try await e.client.groupKey(name: "user-1").result.code == .notFound)
            #expect(try await e.client.addToGroup(name: "user-1", key: key, tokens: [tokens[0]]).result.code == .notFound, "its keys died with it")
            // The name is free again.
            #expect(try await e.client.createGroup(name: "user-1", tokens: [tokens[0]]).value != nil)
        }
    }
}
