import InstanceAPI

extension PipelineConfiguration {
    /// The client this pipeline's calls go through, made of the process's `client`: a view of
    /// it for the file's `project:` and `sender-id:` when it has either
    /// (`InstanceAPIClient.forProject`), else `client` itself. The one place that decides which
    /// project a pipeline calls, so every worker honours `project:`, whoever builds it
    /// (`PipelineWorker` asks it).
    public func client(from client: InstanceAPIClient) -> InstanceAPIClient {
        guard project != nil || senderID != nil else { return client }
        return client.forProject(project ?? client.projectID, senderID: senderID)
    }
}
