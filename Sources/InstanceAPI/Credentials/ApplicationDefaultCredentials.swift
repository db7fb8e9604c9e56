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
        /// The metadata server's host when it was tried and did not answer at all (as opposed to
        /// answering without credentials, or not being there: a name that does not resolve, a
        /// connection refused, as off Google Cloud): an outage rather than a configuration to fix.
        public var unansweredMetadataServer: String?
        /// Why the key file `GOOGLE_APPLICATION_CREDENTIALS` names cannot be used: the same error
        /// as for that file named by `--credentials`, so both end alike.
        public var keyFileError: CredentialsError?

        /// Credentials found nowhere, after `tried`.
        public init(tried: [String], unansweredMetadataServer: String? = nil, keyFileError: CredentialsError? = nil) {
            self.tried = tried
            self.unansweredMetadataServer = unansweredMetadataServer
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
    ///     to `GCE_METADATA_DETECT_RETRIES` times (default 3).
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
        let host = environment["GCE_METADATA_HOST"].flatMap { $0.isEmpty ? nil : $0 } ?? "metadata.google.internal"
        let probing = try MetadataProbing(environment)
        switch await metadataProject(host: host, probing: probing) {
        case .success(let project): return .metadataServer(host: host, projectID: project)
        case .failure(let reason):
            tried.append("the metadata server at \(host): \(reason)")
            if !reason.answered && !reason.absent { throw NotFound(tried: tried, unansweredMetadataServer: host) }
        }
        throw NotFound(tried: tried)
    }

    /// The pause before probing again a metadata server that was not there.
    static let absentServerPause = Duration.seconds(1)

    /// The project id the metadata server at `host` serves, or why it could not be had.
    private static func metadataProject(host: String, probing: MetadataProbing) async -> Result<String, MetadataFailure> {
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: InstanceAPIClient.tokenHTTPConfiguration)
        var request = HTTPClientRequest(url: "http://\(host)/computeMetadata/v1/project/project-id")
        request.headers.add(name: "Metadata-Flavor", value: "Google")
        var result = Result<String, MetadataFailure>.failure(MetadataFailure("not probed", answered: false))
        for probe in 1...probing.probes {
            do {
                // One timeout for the whole answer: the client's own ends with its head.
                let deadline = ContinuousClock.now + probing.timeout
                let response = try await client.execute(request, timeout: .milliseconds(Int64(probing.timeout / .milliseconds(1))))
                let body = String(buffer: try await response.body.collect(upTo: 4_096, before: deadline)).trimmingCharacters(in: .whitespacesAndNewlines)
                if response.status != .ok {
                    result = .failure(MetadataFailure("answered HTTP \(response.status.code)", answered: true))
                } else if body.isEmpty {
                    result = .failure(MetadataFailure("answered no project id", answered: true))
                } else {
                    result = .success(body)
                }
                break
            } catch  where HTTPFailure.isNoServer(error) {
                // Off Google Cloud, or a resolver or metadata server not ready yet (a VM's first
                // seconds; GKE's metadata server refuses a new pod's first connections): absent
                // only when every probe, a second apart, found nothing.
                result = .failure(MetadataFailure("not there (\(HTTPFailure.describe(error))): not on Google Cloud", answered: false, absent: true))
                if probe < probing.probes { try? await Task.sleep(for: absentServerPause) }
            } catch {
                result = .failure(MetadataFailure("no answer to \(probe) probe(s) (\(HTTPFailure.describe(error)))", answered: false))
            }
        }
        try? await client.shutdown()
        return result
    }

    /// Why the metadata server gave nothing.
    private struct MetadataFailure: Error, CustomStringConvertible {
        var description: String
        /// False when the server gave no answer at all (no connection, or none within the timeout).
        var answered: Bool
        /// True when no server is there (its name does not resolve, the connection is refused).
        var absent: Bool
        init(_ description: String, answered: Bool, absent: Bool = false) {
            self.description = description
            self.answered = answered
            self.absent = absent
        }
    }
}
