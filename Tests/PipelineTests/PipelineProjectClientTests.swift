import InstanceAPI
import Pipeline
import Testing

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
}
