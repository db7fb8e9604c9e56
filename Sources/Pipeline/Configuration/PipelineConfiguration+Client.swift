import InstanceAPI

extension PipelineConfiguration {
    /// The client this pipeline's calls go through, made of the process's `client`: a view of
    /// it for the file's `project:` when there is one (`InstanceAPIClient.forProject`), else
    /// `client` itself. The one place that decides which project a pipeline calls, so every
    /// worker honours `project:`, whoever builds it (`PipelineWorker` asks it).
    public func client(from client: InstanceAPIClient) -> InstanceAPIClient {
        project.map(client.forProject) ?? client
    }
}
