import Emulator
import Foundation
import InstanceAPI
import Testing

@testable import Pipeline

/// A retried `groups.remove` whose key is not found (the earlier attempt's answer was lost) is
/// `ALREADY_ABSENT` only when the group is gone: a key the request gave may have been stale from
/// the start, the group made again under another, and then nothing was removed. Over real HTTP
/// against the emulator.
@Suite("groups.remove retried with the request's key: gone only when the group is")
struct GroupRemoveRetryTests {
    @Test("a stale key of a group made again is NOT_FOUND, its members kept; a key of a group now gone is ALREADY_ABSENT")
    func staleKeyOrGone() async throws {
        try await withPipelineFixture { fixture in
            let tokens = fixture.seedTokens(3, prefix: "stale")
            let executor = CallExecutor(client: fixture.client)
            // The group made, emptied (it ceases to exist) and made again: its first key is stale.
            let stale = try #require(try await fixture.client.createGroup(name: "again", tokens: [tokens[0], tokens[1]]).value)
            _ = try await fixture.client.removeFromGroup(name: "again", key: stale, tokens: [tokens[0], tokens[1]])
            _ = try await fixture.client.createGroup(name: "again", tokens: [tokens[0], tokens[1]]).value
            let staleAnswer = await executor.perform(
                .groupsRemove, calling: .deviceGroup, target: .group(name: "again", key: stale), items: [tokens[0]], isRetry: true)
            guard case .items(let answers) = staleAnswer else {
                Issue.record("\(staleAnswer)")
                return
            }
            #expect(answers.map(\.result.code) == [.notFound], "\(Array(answers))")
            let key = try #require(try await fixture.client.groupKey(name: "again").value)
            #expect(try await fixture.client.groupMembers(key: key).value == [tokens[0], tokens[1]], "nothing was removed")

            // The lost attempt removed the last member: the group is gone, and so is the key.
            let gone = try #require(try await fixture.client.createGroup(name: "gone", tokens: [tokens[2]]).value)
            _ = try await fixture.client.removeFromGroup(name: "gone", key: gone, tokens: [tokens[2]])
            let goneAnswer = await executor.perform(
                .groupsRemove, calling: .deviceGroup, target: .group(name: "gone", key: gone), items: [tokens[2]], isRetry: true)
            guard case .items(let goneAnswers) = goneAnswer else {
                Issue.record("\(goneAnswer)")
                return
            }
            #expect(goneAnswers.map(\.result.code) == [.alreadyAbsent], "\(Array(goneAnswers))")
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
            let refused = await executor.perform(
                .groupsRemove, calling: .deviceGroup, target: .group(name: "kept", key: nil), items: [tokens[0]], isRetry: true)
            guard case .items(let answers) = refused else {
                Issue.record("\(refused)")
                return
            }
            #expect(answers.map(\.result.code) == [.notFound], "the group is there: nothing was removed (\(Array(answers)))")
            try fixture.backend.setFaults(FaultPlan())
            let key = try #require(try await fixture.client.groupKey(name: "kept").value)
            #expect(try await fixture.client.groupMembers(key: key).value == tokens, "nothing was removed")

            // No group of the name at all: the lost attempt emptied it.
            let gone = await executor.perform(.groupsRemove, calling: .deviceGroup, target: .group(name: "never", key: nil), items: [tokens[1]], isRetry: true)
            guard case .items(let goneAnswers) = gone else {
                Issue.record("\(gone)")
                return
            }
            #expect(goneAnswers.map(\.result.code) == [.alreadyAbsent], "\(Array(goneAnswers))")
        }
    }
}
