import Testing

@testable import InstanceAPI
@testable import Pipeline

/// A pipeline's `project:` decides the project its calls go to, whichever command builds its
/// worker (`run`, `demo`, `bench`): `PipelineConfiguration.client(from:)` is the one owner.
@Suite("A pipeline's project: chooses its client")
struct PipelineProjectClientTests {
    @Test("project: makes a view for that project; without it, the process's client")
    func projectClient() async throws {
        let client = InstanceAPIClient(source: .metadataServer(host: "127.0.0.1:1", projectID: "process-project"))
        let named = try PipelineFile.parse("request-topic: r\nproject: pipeline-project\n", file: "p.yaml", name: "p")
        let unnamed = try PipelineFile.parse("request-topic: r\n", file: "q.yaml", name: "q")
        let view = named.client(from: client)
        #expect(view.projectID == "pipeline-project")
        #expect(view.tokens === client.tokens, "a view sharing the process's tokens and connections")
        #expect(unnamed.client(from: client) === client)
        try await client.shutdown()
    }

    @Test("sender-id: the device-group API's project_id header is the project number the file gives, for its project or the process's")
    func senderID() async throws {
        let client = InstanceAPIClient(source: .metadataServer(host: "127.0.0.1:1", projectID: "process-project"))
        let both = try PipelineFile.parse("request-topic: r\nproject: pipeline-project\nsender-id: \"123456789012\"\n", file: "p.yaml", name: "p")
        #expect(both.senderID == "123456789012")
        #expect(both.client(from: client).configuration.senderID == "123456789012")
        #expect(both.client(from: client).projectID == "pipeline-project")
        let alone = try PipelineFile.parse("request-topic: r\nsender-id: 42\n", file: "q.yaml", name: "q")
        #expect(alone.client(from: client).configuration.senderID == "42")
        #expect(alone.client(from: client).projectID == "process-project")
        #expect(try PipelineFile.parse("request-topic: r\n", file: "u.yaml", name: "u").client(from: client).configuration.senderID == nil)
        for bad in ["my-project", "\"\"", "12 34", "-5", "123456789012345678901", "1.5"] {
            let error = #expect(throws: PipelineFileError.self) { try PipelineFile.parse("request-topic: r\nsender-id: \(bad)\n", file: "b.yaml", name: "b") }
            #expect(error?.key == "sender-id", "\(bad): \(String(describing: error))")
        }
        try await client.shutdown()
    }
}
