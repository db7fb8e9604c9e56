import Emulator
import Foundation
import InstanceAPI
import Kafka
import Pipeline
import Testing

/// Moving off the Instance ID API (api-reference §6) on the embedded broker and the emulator:
/// the shipped topic pipeline on a project created after the cut-off, FIDs, repeats, topic
/// lookups through the paged list call, and the device-group export.
@Suite("Migration end to end: the shipped topic pipeline on a new project, and groups.export", .serialized)
struct MigrationTests {
    static func newProjectInPagesOfFive(_ configuration: inout EmulatorConfiguration) {
        configuration.newProject = true
        configuration.topicListPageSize = 5
    }

    @Test("the shipped topic pipeline on a new project: tokens and FIDs succeed, a repeat changes nothing, info lists every page")
    func shippedTopicPipelineOnNewProject() async throws {
        try await withPipelineFixture(emulator: Self.newProjectInPagesOfFive) { fixture in
            let pipeline = try fixture.shippedPipeline("topic-changes")
            #expect(pipeline.topicBackend == .fcmV1)
            #expect(pipeline.turnedDownAPIs.isEmpty, "the shipped topic pipeline calls nothing that is turned down")
            let tokens = fixture.seedTokens(300, prefix: "mig")
            let fids = (0..<40).map { "fid\(NumberText.digits($0, width: 19))" }
            fixture.backend.seed(SeedRequest(installations: fids))
            let busy = tokens[0]
            let manyTopics = (0..<12).map { "many-\($0)" }
            let requests =
                [
                    PipelineRequest(id: "sub-tokens", op: .topicsSubscribe, target: .topic("movies"), items: tokens),
                    PipelineRequest(id: "sub-fids", op: .topicsSubscribe, target: .topic("movies"), items: fids),
                    PipelineRequest(id: "unsub-some", op: .topicsUnsubscribe, target: .topic("movies"), items: Array(tokens[250...]) + Array(fids[30...])),
                ] + manyTopics.map { PipelineRequest(id: "sub-\($0)", op: .topicsSubscribe, target: .topic($0), items: [busy]) }
            let worker = try fixture.startWorker(pipeline)
            try await fixture.submit(requests)
            let first = try await fixture.waitForOutcomes(requests.map(\.id))
            #expect(first.values.allSatisfy { $0.status == .succeeded }, "\(first.values.filter { $0.status != .succeeded })")
            let expected = (Array(tokens[..<250]) + Array(fids[..<30])).sorted()
            #expect(fixture.backend.subscribers(of: "movies") == expected)

            // The same requests again, under new ids: every item OK, nothing changes.
            let repeats = requests.map { PipelineRequest(id: "again-" + $0.id, op: $0.op, target: $0.target, items: $0.items) }
            try await fixture.submit(repeats)
            let second = try await fixture.waitForOutcomes(repeats.map(\.id))
            #expect(second.values.allSatisfy { $0.status == .succeeded && $0.failedItems.isEmpty }, "\(second.values.filter { $0.status != .succeeded })")
            #expect(fixture.backend.subscribers(of: "movies") == expected)

            // Topic lookups through the list call: 13 topics in pages of 5; a FID; an unknown registration.
            let info = PipelineRequest(id: "info", op: .instancesInfo, target: .info(details: true), items: [busy, fids[0], "never-seen"])
            try await fixture.submit([info])
            let answer = try #require(try await fixture.waitForOutcomes(["info"])["info"])
            #expect(answer.topics?[busy] == (manyTopics + ["movies"]).sorted())
            #expect(answer.topics?[fids[0]] == ["movies"])
            #expect(answer.failedItems.map(\.item) == ["never-seen"] && answer.failedItems.map(\.code) == [.notFound])
            await worker.stop()

            let stats = fixture.backend.stats
            #expect(stats["fcm.topics.list"].statuses["200"] == 4, "three pages for the busy token, one for the FID")
            for api in BackendAPI.allCases where api.isTurnedDown { #expect(stats[api.rawValue].calls == 0, "\(api) was called") }
        }
    }

    @Test("groups.export of 50 groups writes 50 export records equal to the emulator's groups; a missing group ends NOT_FOUND")
    func exportGroups() async throws {
        try await withPipelineFixture { fixture in
            let tokens = fixture.seedTokens(200, prefix: "grp")
            var keys: [String: String] = [:]
            for index in 0..<50 {
                let name = "user-\(index)"
                let members = (0..<(1 + index % 20)).map { tokens[(index * 7 + $0) % tokens.count] }
                keys[name] = try await fixture.client.createGroup(name: name, tokens: members).value
            }
            let names = keys.keys.sorted()
            let byName = PipelineRequest(id: "export-names", op: .groupsExport, target: .export(byKey: false), items: Array(names[..<40]) + ["gone-group"])
            let byKey = PipelineRequest(id: "export-keys", op: .groupsExport, target: .export(byKey: true), items: names[40...].map { keys[$0]! })
            let worker = try fixture.startWorker(try fixture.shippedPipeline("device-groups"))
            try await fixture.submit([byName, byKey])
            let outcomes = try await fixture.waitForOutcomes([byName.id, byKey.id])
            await worker.stop()

            let named = try #require(outcomes[byName.id])
            #expect(named.status == .partial && named.counts == ["OK": 40, "NOT_FOUND": 1])
            #expect(named.failedItems.map(\.item) == ["gone-group"])
            #expect(outcomes[byKey.id]?.status == .succeeded && outcomes[byKey.id]?.counts == ["OK": 10])
            for name in names[..<40] { #expect(named.groupMembers?[name] == fixture.backend.groupMembers(name)) }

            let reader = try await KafkaTopicReader(configuration: fixture.kafka.consumerConfiguration(), topics: [fixture.exportTopic])
            var exports: [String: GroupExport] = [:]
            for try await record in reader.records {
                let export = try GroupExport.decode(record.value ?? [])
                #expect(record.key == export.recordKey)
                exports[export.group] = export
            }
            reader.close()
            #expect(exports.count == 50)
            for name in names[..<40] {
                #expect(exports[name]?.members == fixture.backend.groupMembers(name), "\(name)")
                #expect(exports[name]?.requestID == byName.id)
            }
            for name in names[40...] { #expect(exports[keys[name]!]?.members == fixture.backend.groupMembers(name), "\(name) by key") }
        }
    }
}
