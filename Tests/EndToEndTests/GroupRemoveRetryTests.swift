import Emulator
import Foundation
import InstanceAPI
import Testing
import WireJSON

@testable import Pipeline

/// A retried `groups.remove` whose key is not found (the earlier attempt's answer was lost) is
/// `ALREADY_ABSENT` only when the group is gone: a key the request gave may have been stale from
/// the start, the group made again under another, and then nothing was removed. Over real HTTP
/// against the emulator.
@Suite("groups.remove retried with the request's key: gone only when the group is")
struct GroupRemoveRetryTests {
    /// The codes a retried `groups.remove` of `items` from group `name` (with `key`, if any) ends
    /// on; nil, recorded as an issue, when the call failed as a whole.
    private func retriedRemove(_ executor: CallExecutor, name: String, key: String?, _ items: [String]) async -> [ResultCode]? {
        let answer = await executor.perform(
            .groupsRemove, calling: .deviceGroup, target: .group(name: name, key: key), items: PackedStrings(items), isRetry: true)
        guard case .items(let answers) = answer else {
            Issue.record("\(answer)")
            return nil
        }
        return answers.map(\.result.code)
    }
    @Test("a stale key of a group made again is NOT_FOUND, its members kept; a key of a group now gone is ALREADY_ABSENT")
    func staleKeyOrGone() async throws {
        try await withPipelineFixture { fixture in
            let tokens = fixture.seedTokens(3, prefix: "stale")
            let executor = CallExecutor(client: fixture.client)
            // The group made, emptied (it ceases to exist) and made again: its first key is stale.
            let stale = try #require(try await fixture.client.createGroup(name: "again", tokens: [tokens[0], tokens[1]]).value)
            _ = try await fixture.client.removeFromGroup(name: "again", key: stale, tokens: [tokens[0], tokens[1]])
            _ = try await fixture.client.createGroup(name: "again", tokens: [tokens[0], tokens[1]]).value
            #expect(await retriedRemove(executor, name: "again", key: stale, [tokens[0]]) == [.notFound])
            let key = try #require(try await fixture.client.groupKey(name: "again").value)
            #expect(try await fixture.client.groupMembers(key: key).value == [tokens[0], tokens[1]], "nothing was removed")

            // The lost attempt removed the last member: the group is gone, and so is the key.
            let gone = try #require(try await fixture.client.createGroup(name: "gone", tokens: [tokens[2]]).value)
            _ = try await fixture.client.removeFromGroup(name: "gone", key: gone, tokens: [tokens[2]])
            #expect(await retriedRemove(executor, name: "gone", key: gone, [tokens[2]]) == [.alreadyAbsent])
        }
    }

    @Test("without a key: a remove refused NOT_FOUND while the group exists by its name is NOT_FOUND, not ALREADY_ABSENT; a group gone is ALREADY_ABSENT")
    func lookedUpKeyRefused() async throws {
        try await withPipelineFixture { fixture in
            let tokens = fixture.seedTokens(2, prefix: "keyless")
            let executor = CallExecutor(client: fixture.client)
            _ = try #require(try await fixture.client.createGroup(name: "kept", tokens: tokens).value)
            // The remove itself answers `notification_key not found`; the lookups answer as ever.
            try fixture.backend.setFaults(FaultPlan(itemErrors: ["NOT_FOUND": 1]))
            #expect(await retriedRemove(executor, name: "kept", key: nil, [tokens[0]]) == [.notFound], "the group is there: nothing was removed")
            try fixture.backend.setFaults(FaultPlan())
            let key = try #require(try await fixture.client.groupKey(name: "kept").value)
            #expect(try await fixture.client.groupMembers(key: key).value == tokens, "nothing was removed")

            // No group of the name at all: the lost attempt emptied it.
            #expect(await retriedRemove(executor, name: "never", key: nil, [tokens[1]]) == [.alreadyAbsent])
        }
    }
}
