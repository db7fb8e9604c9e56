import NIOCore

extension InstanceAPIClient {
    /// §2.4: imports up to 100 APNs tokens of one iOS app; one result per token, in order.
    /// Importing a token again yields the same registration token. Each result is checked
    /// against the token it echoes (`ImportResponse.importResults(for:)`): no APNs token is ever
    /// given another's registration token. An answer whose every token failed `INTERNAL`
    /// (`Internal Server Error`) or `UNAVAILABLE` throws `.failedEveryItem`.
    public func batchImport(application: String, sandbox: Bool, apnsTokens: [String]) async throws(InstanceAPIError) -> [ImportResult] {
        try APILimits.identifier(application, field: "application")
        try APILimits.items(apnsTokens, field: "apns_tokens", limit: APILimits.importBatch)
        let body = ByteBuffer(bytes: ImportRequest(application: application, sandbox: sandbox, apnsTokens: apnsTokens).jsonBytes())
        let answer = try await send(.batchImport, .POST, configuration.iidBaseURL + "/iid/v1:batchImport", json: body, headers: [("access_token_auth", "true")])
        guard answer.status == 200 else {
            throw ResultClassifier.callFailure(.batchImport, status: answer.status, body: answer.body, retryAfter: answer.retryAfter)
        }
        let response: ImportResponse
        do { response = try ImportResponse(jsonBody: [UInt8](answer.body)) } catch {
            throw .malformedResponse(api: .batchImport, status: answer.status, message: "cannot decode ImportResponse (\(error)): \(answer.text)")
        }
        let results = try response.importResults(for: apnsTokens)
        if let failure = ResultClassifier.backendFailure(.batchImport, results: results.lazy.map(\.result)) { throw failure }
        return results
    }
}
