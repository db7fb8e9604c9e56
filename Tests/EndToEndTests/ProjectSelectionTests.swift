import Emulator
import Foundation
import InstanceAPI
import Kafka
import Pipeline
import Testing
import WireJSON

/// `iidbatch run` calls the Firebase project chosen per pipeline (its file's `project:` >
/// `--project` > `$GOOGLE_CLOUD_PROJECT` > the credentials' own) and says which and why. The
/// emulator grants the key (project `demo`) the other projects, and refuses a deletion of a FID
/// through any project but the FID's own: a deletion that succeeds proves its URL named the FID's
/// project.
@Suite("iidbatch run: Firebase project selection", .serialized)
struct ProjectSelectionTests {
    /// The emulator's service accounts may also call these projects.
    static func grant(_ configuration: inout EmulatorConfiguration) {
        configuration.grantedProjects = ["firebase-app-one", "firebase-app-two", "firebase-app-env"]
    }

    @Test("two pipelines, one credential, one process: each deletes in its own project (project: over --project over the environment)")
    func perPipelineProjects() async throws {
        try await withPipelineFixture(partitions: 1, emulator: Self.grant) { fixture in
            let folder = try RunFolder(fixture, name: "projects")
            defer { folder.remove() }
            try fixture.kafka.createTopic("requests-two", partitions: 1)
            _ = try folder.pipeline(fixture, group: "app-one-workers")
            try """
            request-topic: requests-two
            group: app-two-workers
            outcome-topic: \(fixture.outcomeTopic)
            dead-letter-topic: \(fixture.deadLetterTopic)
            project: firebase-app-two
            """.write(to: folder.url.appendingPathComponent("app-two.yaml"), atomically: true, encoding: .utf8)
            let one = (0..<3).map { "fid-of-app-one-\($0)" }
            let two = (0..<3).map { "fid-of-app-two-\($0)" }
            fixture.backend.seed(SeedRequest(installations: one, project: "firebase-app-one"))
            fixture.backend.seed(SeedRequest(installations: two, project: "firebase-app-two"))
            try await fixture.submit([PipelineRequest(id: "erase-one", op: .installationsDelete, target: .subject("s-1"), items: PackedStrings(one))])
            let request = PipelineRequest(id: "erase-two", op: .installationsDelete, target: .subject("s-2"), items: PackedStrings(two))
            try await fixture.produce([("s-2", Array(request.jsonBody()))], topic: "requests-two")
            let worker = try await ChildProcess(
                try Programs.iidbatch, folder.runArguments(fixture, pipeline: folder.url.path, ["--project", "firebase-app-one", "--log-level", "warning"]),
                environment: ["GOOGLE_CLOUD_PROJECT": "firebase-app-env"])
            let outcomes = try await fixture.waitForOutcomes(["erase-one", "erase-two"])
            worker.interrupt()
            #expect(try await worker.waitForExit() == 0)
            #expect(outcomes["erase-one"]?.counts == ["OK": 3], "\(outcomes["erase-one"].map { "\($0)" } ?? "none")")
            #expect(outcomes["erase-two"]?.counts == ["OK": 3], "\(outcomes["erase-two"].map { "\($0)" } ?? "none")")
            #expect((one + two).allSatisfy { fixture.backend.installationDeleted($0) == true })
            #expect(worker.text.contains("group app-one-workers, project firebase-app-one (from --project)"), "\(worker.text)")
            #expect(worker.text.contains("group app-two-workers, project firebase-app-two (from the pipeline file)"), "\(worker.text)")
            // Both pipelines take every op, the Instance ID API's among them, whose calls name no
            // project: the log says that those act on the credentials' project.
            #expect(
                worker.text.contains("whose calls name no project: Google acts on the credentials' project demo, not firebase-app-one (from --project)"),
                "\(worker.text)")
        }
    }

    @Test("GOOGLE_CLOUD_PROJECT chooses the project when neither the file nor --project does; without it, the credentials' project")
    func environmentThenCredentials() async throws {
        try await withPipelineFixture(partitions: 1, emulator: Self.grant) { fixture in
            let folder = try RunFolder(fixture, name: "project-env")
            defer { folder.remove() }
            let pipeline = try folder.pipeline(fixture, group: "env-workers")
            let ids = (0..<2).map { "fid-of-app-env-\($0)" }
            fixture.backend.seed(SeedRequest(installations: ids, project: "firebase-app-env"))
            try await fixture.submit([PipelineRequest(id: "erase-env", op: .installationsDelete, target: .subject("s-1"), items: PackedStrings(ids))])
            let worker = try await ChildProcess(
                try Programs.iidbatch, folder.runArguments(fixture, pipeline: pipeline, ["--log-level", "warning"]),
                environment: ["GOOGLE_CLOUD_PROJECT": "firebase-app-env"])
            let outcomes = try await fixture.waitForOutcomes(["erase-env"])
            worker.interrupt()
            #expect(try await worker.waitForExit() == 0)
            #expect(outcomes["erase-env"]?.counts == ["OK": 2], "\(outcomes["erase-env"].map { "\($0)" } ?? "none")")
            #expect(worker.text.contains("project firebase-app-env (from $GOOGLE_CLOUD_PROJECT)"), "\(worker.text)")

            let plain = try await ChildProcess(
                try Programs.iidbatch, folder.runArguments(fixture, pipeline: pipeline, ["--log-level", "warning"]), environment: ["GOOGLE_CLOUD_PROJECT": ""])
            try await plain.waitFor("project demo (from the credentials)")
            plain.interrupt()
            #expect(try await plain.waitForExit() == 0)
        }
    }

    @Test("a project id that is not one stops run before it starts, naming it and where it was given")
    func invalidProject() async throws {
        let option = try await ChildProcess(
            try Programs.iidbatch, ["run", "--brokers", "127.0.0.1:1", "--project", "my-app/../other"], environment: ["GOOGLE_CLOUD_PROJECT": ""])
        // A bad option value is a usage mistake (64); a bad pipeline file is configuration (78).
        let optionStatus = try await option.waitForExit()
        #expect(optionStatus == 64, "\(option.text)")
        #expect(option.text.contains("--project: 'my-app/../other' is not a Google Cloud project id"), "\(option.text)")

        let folder = try OperatorCommand.temporaryFolder("bad-project")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("p.yaml").path
        try "request-topic: r\nproject: My_App\n".write(toFile: file, atomically: true, encoding: .utf8)
        let pipeline = try await ChildProcess(try Programs.iidbatch, ["run", file, "--brokers", "127.0.0.1:1"])
        let pipelineStatus = try await pipeline.waitForExit()
        #expect(pipelineStatus == 78, "\(pipeline.text)")
        #expect(pipeline.text.contains("p.yaml: project: 'My_App' is not a Google Cloud project id"), "\(pipeline.text)")
    }
}
