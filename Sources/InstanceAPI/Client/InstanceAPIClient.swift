import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import WireJSON

/// Typed calls to the backend APIs (§2, §3, §4), the same code against Google and the emulator.
///
/// Every call is checked against the API's limits and shape rules before it is sent, and answers
/// come back classified: per-item results as `ItemResult`s (in request order), failures of the
/// whole call as a thrown `InstanceAPIError`. A 401 gets one token refresh and one retry. The
/// client does not otherwise retry: retry policy belongs to the caller. Safe to share.
public final class InstanceAPIClient: Sendable {
    /// Where the APIs are.
    public let configuration: InstanceAPIConfiguration
    /// The project calls are made for.
    public let projectID: String
    /// The token source; exposed for metrics and tests.
    public let tokens: AccessTokenProvider
    /// The backend calls' connections.
    let transport: BackendTransport
    /// The token endpoint's and the metadata server's client: rare calls, over HTTP/2 where offered.
    let http: HTTPClient
    let logger: Logger
    /// False for a client made by `forProject`: the connections are its origin's to close.
    let ownsConnections: Bool

    /// A client that authenticates with `credentials`.
    public convenience init(
        credentials: ServiceAccountCredentials, configuration: InstanceAPIConfiguration = InstanceAPIConfiguration(),
        logger: Logger = Logger(label: "iidbatch.instance-api")
    ) {
        self.init(source: .serviceAccount(credentials), configuration: configuration, logger: logger)
    }

    /// How the token endpoint and the metadata server are asked: their answers are used as they
    /// come, never followed elsewhere (a redirect followed would send the signed assertion, or
    /// take the project id, from wherever it points).
    static var tokenHTTPConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        return configuration
    }

    /// A client that authenticates with tokens from `source`.
    public init(
        source: CredentialSource, configuration: InstanceAPIConfiguration = InstanceAPIConfiguration(),
        logger: Logger = Logger(label: "iidbatch.instance-api")
    ) {
        var httpConfiguration = Self.tokenHTTPConfiguration
        httpConfiguration.timeout = .init(connect: .seconds(10))
        // iidbatch bootstraps no tracer, so every span would go to the no-op one: without a
        // tracer the client skips building the span and its attributes for every call.
        httpConfiguration.tracing.tracer = nil
        var tls = TLSConfiguration.makeClientConfiguration()
        if let roots = configuration.extraTrustRoots { tls = roots.applied(to: tls) }
        httpConfiguration.tlsConfiguration = tls
        let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: httpConfiguration)
        self.http = http
        self.transport = BackendTransport(
            group: HTTPClient.defaultEventLoopGroup, maxIdlePerOrigin: configuration.maxConnectionsPerHost,
            maxHTTP2ConnectionsPerOrigin: configuration.maxHTTP2ConnectionsPerHost, tls: tls)
        self.configuration = configuration
        self.projectID = configuration.projectID ?? source.projectID
        self.tokens = AccessTokenProvider(source: source, httpClient: http, tokenURI: configuration.tokenURI)
        self.logger = logger
        self.ownsConnections = true
    }

    private init(sharing origin: InstanceAPIClient, projectID: String, senderID: String?) {
        var configuration = origin.configuration
        configuration.projectID = projectID
        // A sender id names one project: another project's calls send that project's id instead.
        if projectID != origin.projectID { configuration.senderID = nil }
        if let senderID { configuration.senderID = senderID }
        self.configuration = configuration
        self.projectID = projectID
        self.tokens = origin.tokens
        self.transport = origin.transport
        self.http = origin.http
        self.logger = origin.logger
        self.ownsConnections = false
    }

    /// A client whose calls go to project `projectID` (the project in deletion and FCM v1 topic
    /// URLs, and the device-group `project_id` header), sharing this client's connections and
    /// access tokens: one credential, one connection pool, several projects. Instance ID API
    /// calls (`iid/…`) name no project; Google takes it from the credential. Always a view that
    /// owns nothing, for this client's own project too: its `shutdown()` does nothing; shut down
    /// the client it was made from, after every client made from it is done.
    ///
    /// - Parameter senderID: the project's number, sent as the device-group `project_id` (nil:
    ///   this client's, for its own project; else the project id).
    public func forProject(_ projectID: String, senderID: String? = nil) -> InstanceAPIClient {
        InstanceAPIClient(sharing: self, projectID: projectID, senderID: senderID)
    }

    /// Closes the connections (of a client made by `forProject`: nothing). Call once, when done.
    public func shutdown() async throws {
        guard ownsConnections else { return }
        transport.shutdown()
        try await http.shutdown()
    }

    /// A raw answer: status, body and `Retry-After`.
    struct Answer {
        var status: Int
        var body: Data
        var retryAfter: Duration?

        /// The body's first bytes as text, for messages (`ResultClassifier.excerpt`).
        var text: String { ResultClassifier.excerpt(body) }
    }

    /// Sends one authenticated call; a 401 gets one fresh token and one more try.
    func send(
        _ api: BackendAPI, _ method: HTTPMethod, _ url: String, json body: ByteBuffer? = nil,
        headers extra: [(String, String)] = []
    ) async throws(InstanceAPIError) -> Answer {
        let token = try await tokens.token()
        let first = try await sendOnce(api, method, url, body: body, headers: extra, token: token)
        guard first.status == 401 else { return first }
        logger.debug("401 from \(api.rawValue); refreshing the access token once")
        await tokens.invalidate(token)
        return try await sendOnce(api, method, url, body: body, headers: extra, token: try await tokens.token())
    }

    private func sendOnce(
        _ api: BackendAPI, _ method: HTTPMethod, _ url: String, body: ByteBuffer?, headers extra: [(String, String)], token: AccessToken
    ) async throws(InstanceAPIError) -> Answer {
        var headers = HTTPHeaders()
        headers.add(name: "Authorization", value: "Bearer " + token.value)
        for (name, value) in extra { headers.add(name: name, value: value) }
        if body != nil { headers.add(name: "Content-Type", value: "application/json") }
        let timeout = configuration.timeout
        // Withdrawn while it waited for its access token (or before its retry after a 401).
        guard !SendGate.currentIsClosed else { throw .withdrawn(api: api) }
        do {
            let reply = try await transport.send(method, url, headers: headers, body: body, answerLimit: APILimits.answerBytes(api), timeout: timeout)
            let retryAfter = reply.headers.first(name: "Retry-After").flatMap { RetryAfter.parse($0) }
            let answer = Answer(status: reply.status, body: Data(reply.body.readableBytesView), retryAfter: retryAfter)
            logger.trace("\(api.rawValue) \(method) answered \(answer.status)")
            return answer
        } catch {
            throw HTTPFailure.map(error, api: api, timeout: timeout)
        }
    }

    /// Decodes a 200 answer, or throws `.malformedResponse` naming the API. The answer must first
    /// be JSON as the project's strict parser reads it (`JSONValue`): its strings are then
    /// stream-safe text (`StreamSafeText`), which the calls' checks compare in linear time.
    static func decode<T: Decodable>(_ type: T.Type, _ answer: Answer, api: BackendAPI) throws(InstanceAPIError) -> T {
        do { _ = try JSONValue.parse(bytes: [UInt8](answer.body)) } catch {
            throw .malformedResponse(api: api, status: answer.status, message: "not the API's JSON (\(error)): \(answer.text)")
        }
        do { return try JSONDecoder().decode(T.self, from: answer.body) } catch {
            throw .malformedResponse(api: api, status: answer.status, message: "cannot decode \(T.self): \(answer.text)")
        }
    }

    /// Encodes a request body.
    func encode<T: Encodable>(_ value: T) -> ByteBuffer {
        // Encoding our own wire types cannot fail.
        ByteBuffer(bytes: (try? JSONEncoder().encode(value)) ?? Data())
    }

    private static let upperHexDigits = Array("0123456789ABCDEF".utf8)

    /// Percent-encodes one path segment or query value (tokens hold `:`; topics may hold `%`):
    /// every byte of its UTF-8 but RFC 3986's unreserved ASCII (`A-Z a-z 0-9 - . _ ~`) becomes
    /// `%XX`, non-ASCII letters included. A text that needs no encoding is returned as it is, but
    /// `.` and `..`, which a front end that normalizes paths would take as the current or parent
    /// segment (another resource), have their dots encoded as `%2E`.
    static func segment(_ text: String) -> String {
        func unreserved(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                true
            default: false
            }
        }
        if text == "." || text == ".." { return String(repeating: "%2E", count: text.utf8.count) }
        guard !text.utf8.allSatisfy(unreserved) else { return text }
        var encoded: [UInt8] = []
        encoded.reserveCapacity(text.utf8.count * 3)
        for byte in text.utf8 {
            if unreserved(byte) {
                encoded.append(byte)
            } else {
                encoded.append(UInt8(ascii: "%"))
                encoded.append(Self.upperHexDigits[Int(byte >> 4)])
                encoded.append(Self.upperHexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }
}
