import AsyncHTTPClient
import Foundation
import NIOCore

/// Finds credentials the way Google's client libraries do (Application Default Credentials):
/// an explicit key file; else the key file `GOOGLE_APPLICATION_CREDENTIALS` names; else the
/// metadata server (`GCE_METADATA_HOST`, or `metadata.google.internal`), which serves the
/// workload's service account on GKE, Cloud Run and GCE. No secret is ever part of a message.
public enum ApplicationDefaultCredentials {
    /// Why no credentials were found: every source tried, and why each failed.
    public struct NotFound: Error, Sendable, CustomStringConvertible {
        /// Each source tried, with why it gave nothing.
        public var tried: [String]
        /// The metadata server's host when it was tried and is failing: it gave no answer, or
        /// still refused connections, answered 429 or a 5xx after its ready window
        /// (`MetadataProbing.readyWindow`). An outage rather than a configuration to fix, as
        /// opposed to a server that answered without credentials, or none there (a name that
        /// does not resolve, a connection refused off Google Cloud).
        public var failingMetadataServer: String?
        /// Why the key file `GOOGLE_APPLICATION_CREDENTIALS` names cannot be used: the same error
        /// as for that file named by `--credentials`, so both end alike.
        public var keyFileError: CredentialsError?

        /// Credentials found nowhere, after `tried`.
        public init(tried: [String], failingMetadataServer: String? = nil, keyFileError: CredentialsError? = nil) {
            self.tried = tried
            self.failingMetadataServer = failingMetadataServer
            self.keyFileError = keyFileError
        }

        public var description: String {
            "no credentials found; tried: " + tried.joined(separator: "; ")
                + ". Pass --credentials key.json, set GOOGLE_APPLICATION_CREDENTIALS, or run where a metadata server serves a service account"
        }
    }

    /// The first source that gives credentials.
    ///
    /// - Parameters:
    ///   - explicitPath: a key file named by the user (`--credentials`); when given, the only source.
    ///   - environment: the process environment (injected in tests). The metadata server is
    ///     probed as Google's libraries probe it (google-auth): each probe may take
    ///     `GCE_METADATA_TIMEOUT` seconds (default 3), and one that does not answer is probed up
    ///     to `GCE_METADATA_DETECT_RETRIES` times (default 3). One that may not be ready yet (GKE's
    ///     first seconds in a new pod: refused connections on Google Cloud, 404, 429, 5xx) is
    ///     probed again each second for 30 s (`MetadataProbing.readyWindow`).
    /// - Throws: `NotFound`; a key file's `CredentialsError`; `.invalidSetting` for either
    ///   variable set to what it cannot be, naming it.
    public static func find(
        explicitPath: String?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws -> CredentialSource {
        if let explicitPath {
            return .serviceAccount(try ServiceAccountCredentials.load(from: explicitPath))
        }
        var tried: [String] = []
        if let path = environment["GOOGLE_APPLICATION_CREDENTIALS"], !path.isEmpty {
            do { return .serviceAccount(try ServiceAccountCredentials.load(from: path)) } catch {
                throw NotFound(tried: ["GOOGLE_APPLICATION_CREDENTIALS=\(path): \(error)"], keyFileError: error)
            }
        }
        tried.append("GOOGLE_APPLICATION_CREDENTIALS is not set")
        let host = environment["GCE_METADATA_HOST"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultMetadataHost
        let probing = try MetadataProbing(environment)
        switch await metadataProject(host: host, probing: probing) {
        case .success(let project): return .metadataServer(host: host, projectID: project)
        case .failure(let failure):
            tried.append("the metadata server at \(host): \(failure)")
            if failure.isOutage { throw NotFound(tried: tried, failingMetadataServer: host) }
        }
        throw NotFound(tried: tried)
    }

    /// The metadata server's name on Google Cloud.
    static let defaultMetadataHost = "metadata.google.internal"

    /// Whether a server at `host` that refuses connections is a metadata server not ready yet:
    /// true for Google Cloud's own name and address, which resolve only there. Elsewhere (a
    /// `GCE_METADATA_HOST` of the operator's) nothing listening means nothing is there.
    static func refusalMeansNotReady(_ host: String) -> Bool {
        [defaultMetadataHost, "169.254.169.254"].contains(host.split(separator: ":", maxSplits: 1).first.map(String.init) ?? host)
    }

    /// The project id the metadata server at `host` serves, or why it could not be had, probing
    /// as `probing` says.
    static func metadataProject(host: String, probing: MetadataProbing) async -> Result<String, MetadataFailure> {
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: InstanceAPIClient.tokenHTTPConfiguration)
        var request = HTTPClientRequest(url: "http://\(host)/computeMetadata/v1/project/project-id")
        request.headers.add(name: "Metadata-Flavor", value: "Google")
        let started = ContinuousClock.now
        // Probes that found no server or no answer, which `probes` bounds (not those of a server
        // not ready yet, which the ready window bounds), and every probe made.
        var probe = 0
        var made = 0
        var result: Result<String, MetadataFailure>
        while true {
            made += 1
            let probeStarted = ContinuousClock.now
            let failure: MetadataFailure
            do {
                // One timeout for the whole answer: the client's own ends with its head.
                let deadline = ContinuousClock.now + probing.timeout
                let response = try await client.execute(request, timeout: .milliseconds(Int64(probing.timeout / .milliseconds(1))))
                let body = String(buffer: try await response.body.collect(upTo: 4_096, before: deadline)).trimmingCharacters(in: .whitespacesAndNewlines)
                if response.status != .ok {
                    failure = .answered(status: Int(response.status.code), "answered HTTP \(response.status.code)")
                } else if body.isEmpty {
                    failure = MetadataFailure("answered no project id", .answered)
                } else {
                    result = .success(body)
                    break
                }
            } catch  where HTTPFailure.isNoServer(error) {
                // Off Google Cloud, or a resolver or metadata server not ready yet (a VM's first
                // seconds; GKE's metadata server refuses a new pod's first connections).
                failure =
                    !HTTPFailure.isUnresolved(error) && refusalMeansNotReady(host)
                    ? MetadataFailure("refused the connection (\(HTTPFailure.describe(error))): not ready", .notReady(outage: true))
                    : MetadataFailure("not there (\(HTTPFailure.describe(error))): not on Google Cloud", .absent)
            } catch {
                failure = MetadataFailure("no answer to probe \(made) (\(HTTPFailure.describe(error)))", .unanswered)
            }
            result = .failure(failure)
            if failure.kind == .absent || failure.kind == .unanswered { probe += 1 }
            guard probing.probesAgain(after: failure.kind, probe: probe, elapsed: .now - started) else { break }
            // A server that did not answer within the probe's timeout waited that long already;
            // one that failed at once (a connection reset) is given the pause.
            if failure.kind != .unanswered || ContinuousClock.now - probeStarted < probing.timeout { try? await Task.sleep(for: MetadataProbing.pause) }
        }
        try? await client.shutdown()
        return result
    }
}
