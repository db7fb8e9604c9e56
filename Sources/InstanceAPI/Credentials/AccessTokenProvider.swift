import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Buys access tokens (§1) with a service-account key, or from the metadata server, and caches
/// them.
///
/// However many callers ask at once, at most one request goes to the token endpoint. A cached
/// token is refreshed `refreshMargin` before it expires, or halfway through its life when that is
/// sooner (a metadata server hands out tokens with minutes left: each is still used for half of
/// them, not fetched again on every call); `invalidate` drops one the backend refused (a 401), so
/// the next caller gets a fresh one.
public actor AccessTokenProvider {
    /// The scopes iidbatch asks for.
    public static let defaultScopes = [
        "https://www.googleapis.com/auth/firebase.messaging",
        "https://www.googleapis.com/auth/cloud-platform",
    ]

    private let source: CredentialSource
    private let httpClient: HTTPClient
    private let tokenURI: String
    /// The metadata server's `scopes` query (iidbatch's scopes).
    private var metadataScopes: String?
    private let scopes: [String]
    private let refreshMargin: TimeInterval
    private let now: @Sendable () -> Date
    private var cached: AccessToken?
    /// When the cached token is to be replaced.
    private var refreshAt = Date.distantPast
    private var refreshing: Task<AccessToken, any Error>?
    /// No refresh behind a cached token starts before it (`refreshRetry` after one failed).
    private var nextRefreshTry = Date.distantPast
    /// Whether the last token request that failed was refused by the endpoint (`TokenCheck`).
    private var lastFailureRefused = false
    /// The most a token answer may take, its body included.
    private let answerTimeout: Duration
    /// How many times the token endpoint was called.
    public private(set) var fetchCount = 0

    /// A provider for `credentials`.
    ///
    /// - Parameter tokenURI: overrides the key file's `token_uri` (for a proxy or the emulator).
    /// - Parameter answerTimeout: the most a token answer may take, its body included.
    /// - Parameter now: the clock, replaceable in tests.
    public init(
        credentials: ServiceAccountCredentials, httpClient: HTTPClient, tokenURI: String? = nil,
        scopes: [String] = AccessTokenProvider.defaultScopes, refreshMargin: TimeInterval = AccessTokenProvider.defaultRefreshMargin,
        answerTimeout: Duration = AccessTokenProvider.defaultAnswerTimeout, now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.init(
            source: .serviceAccount(credentials), httpClient: httpClient, tokenURI: tokenURI, scopes: scopes, refreshMargin: refreshMargin,
            answerTimeout: answerTimeout, now: now)
    }

    /// A provider for `source`.
    ///
    /// - Parameter tokenURI: overrides a key file's `token_uri` (for a proxy or the emulator).
    /// - Parameter answerTimeout: the most a token answer may take, its body included.
    /// - Parameter now: the clock, replaceable in tests.
    public init(
        source: CredentialSource, httpClient: HTTPClient, tokenURI: String? = nil,
        scopes: [String] = AccessTokenProvider.defaultScopes, refreshMargin: TimeInterval = AccessTokenProvider.defaultRefreshMargin,
        answerTimeout: Duration = AccessTokenProvider.defaultAnswerTimeout, now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.answerTimeout = answerTimeout
        self.source = source
        self.httpClient = httpClient
        switch source {
        case .serviceAccount(let key): self.tokenURI = tokenURI ?? key.tokenURI
        case .metadataServer(let host, _):
            self.tokenURI = "http://\(host)/computeMetadata/v1/instance/service-accounts/default/token"
            // Asked for, as Google's own libraries ask: GKE's workload identity server gives a
            // token of the scopes asked (else cloud-platform alone); a Compute Engine VM's ignores
            // them (its tokens have the VM's access scopes). A server that refuses the query is
            // asked without it (`fetch`).
            self.metadataScopes = scopes.map(Self.formEncode).joined(separator: ",")
        }
        self.scopes = scopes
        self.refreshMargin = refreshMargin
        self.now = now
    }

    /// How long before its expiry a token is replaced by default: 3 min 45 s, as Google's own
    /// client libraries do.
    public static let defaultRefreshMargin: TimeInterval = 225

    /// The most a token answer may take by default, head and body: 30 s.
    public static let defaultAnswerTimeout: Duration = .seconds(30)

    /// How long before its expiry the cached token stops being handed out while a refresh runs
    /// or fails: longer than a call takes.
    static let usableMargin: TimeInterval = 60

    /// After a refresh failed while the cached token still serves, how long until the next try.
    static let refreshRetry: TimeInterval = 5

    /// The cached token until `refreshMargin` before its expiry (or half its life), else a new one.
    /// From then on, until `usableMargin` before its expiry, the cached token is still handed out
    /// at once while a new one is fetched behind it: no call waits for the token endpoint, and
    /// its failure (a 5xx, a timeout) fails no call while a token in hand is good; after one,
    /// the fetch is tried again `refreshRetry` later. Past that, callers wait for the fetch.
    /// A caller cancelled while the token is fetched stops waiting at once; the fetch goes on and
    /// keeps what it gets for the next caller.
    public func token() async throws(InstanceAPIError) -> AccessToken {
        if let cached, now() < refreshAt { return cached }
        if let cached, now() < cached.expiresAt.addingTimeInterval(-Self.usableMargin) {
            if refreshing == nil, now() >= nextRefreshTry { _ = startRefresh() }
            return cached
        }
        let task = refreshing ?? startRefresh()
        do {
            return try await SharedTaskWait.value(of: task)
        } catch {
            if error is CancellationError, Task.isCancelled { throw .credentials("cancelled while waiting for an access token") }
            if let refusal = error as? TokenRefusal { throw .credentials(refusal.description) }
            throw (error as? InstanceAPIError) ?? .credentials("token request failed: \(type(of: error))")
        }
    }

    /// Returns once the fetch under way, if any, has ended (for tests).
    package func refreshEnded() async { _ = try? await refreshing?.value }

    /// Starts the one fetch every caller waits for.
    private func startRefresh() -> Task<AccessToken, any Error> {
        fetchCount += 1
        // Set before the task can run: it runs on this actor, which is busy until this returns.
        let task = Task { try await self.refresh() }
        refreshing = task
        return task
    }

    /// Fetches a token and keeps it (or whether it was refused), whoever still waits for it: a
    /// fetch whose callers were all cancelled leaves its token cached, not a stale task.
    private func refresh() async throws -> AccessToken {
        do {
            let token = try await fetch()
            let left = token.expiresAt.timeIntervalSince(now())
            cached = token
            refreshAt = token.expiresAt.addingTimeInterval(-min(refreshMargin, max(0, left) / 2))
            refreshing = nil
            return token
        } catch {
            refreshing = nil
            nextRefreshTry = now().addingTimeInterval(Self.refreshRetry)
            lastFailureRefused = error is TokenRefusal
            throw error
        }
    }

    /// A token now, to judge the credentials before any call: `.ok`; `.refused` when the token
    /// endpoint answered that it will not give one (a 4xx other than 408 and 429: a key that is
    /// revoked or unknown, a workload identity without its binding, a service account missing);
    /// `.unavailable` when it did not answer, or failed in a way that may pass (5xx, 408, 429).
    public func check() async -> TokenCheck {
        do {
            _ = try await token()
            return .ok
        } catch {
            return lastFailureRefused ? .refused(error.description) : .unavailable(error.description)
        }
    }

    /// Forgets `token` if it is the cached one: the backend refused it.
    public func invalidate(_ token: AccessToken) {
        if cached == token { cached = nil }
    }

    private func fetch(askingScopes: Bool = true) async throws -> AccessToken {
        let tokenURI = metadataScopes.flatMap { askingScopes ? self.tokenURI + "?scopes=" + $0 : nil } ?? self.tokenURI
        var request = HTTPClientRequest(url: tokenURI)
        switch source {
        case .serviceAccount(let credentials):
            let assertion: String
            do { assertion = try credentials.assertion(scopes: scopes, now: now(), audience: credentials.tokenURI) } catch {
                // A key that cannot sign never will: the credentials are refused.
                throw TokenRefusal(description: "could not sign an assertion with the key of \(credentials)")
            }
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            let form = "grant_type=" + Self.formEncode("urn:ietf:params:oauth:grant-type:jwt-bearer") + "&assertion=" + assertion
            request.body = .bytes(ByteBuffer(string: form))
        case .metadataServer:
            request.method = .GET
            request.headers.add(name: "Metadata-Flavor", value: "Google")
        }
        let response: HTTPClientResponse
        let body: ByteBuffer
        do {
            // AsyncHTTPClient's deadline ends with the head: the body gets what is left of the
            // answer's time, else a server that stalls mid-body holds every call's token forever.
            let deadline = ContinuousClock.now + answerTimeout
            response = try await httpClient.execute(request, timeout: TimeAmount(answerTimeout))
            body = try await response.body.collect(upTo: 1 << 20, before: deadline)
        } catch {
            throw InstanceAPIError.credentials("token endpoint \(tokenURI) did not answer: \(HTTPFailure.describe(error))")
        }
        guard response.status == .ok else {
            // The body names the problem (bad assertion, unknown key); it holds no secret of ours.
            let text = String(buffer: body).utf8Prefix(maxBytes: 300)
            let message = "token endpoint \(tokenURI) answered HTTP \(response.status.code): \(text)"
            let status = Int(response.status.code)
            if (400..<500).contains(status), status != 408, status != 429 {
                // A metadata server that does not know the scopes query: asked again without it
                // (this time; the next token asks for them again).
                if metadataScopes != nil, askingScopes {
                    fetchCount += 1
                    return try await fetch(askingScopes: false)
                }
                throw TokenRefusal(description: message)
            }
            throw InstanceAPIError.credentials(message)
        }
        switch TokenResponse.read(Data(body.readableBytesView)) {
        case .success(let answer):
            return AccessToken(value: answer.accessToken, expiresAt: now().addingTimeInterval(TimeInterval(answer.expiresIn)))
        case .failure(let problem):
            throw InstanceAPIError.credentials("token endpoint \(tokenURI) answered \(problem)")
        }
    }

    private static func formEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
