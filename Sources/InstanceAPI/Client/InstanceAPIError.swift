/// A failure of a whole call, as opposed to the per-item results inside a successful one.
///
/// A 401, 403, 5xx, timeout or refused connection on a batch call is one of these, never 1,000
/// item failures: the caller decides whether to retry the call, pause, or finalize its items with
/// `resultCode`.
public enum InstanceAPIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Refused before calling: the call would break an API limit or shape rule.
    case invalidArgument(field: String, value: String, reason: String)
    /// HTTP 400 for the whole call: no item in it can succeed as sent.
    case badRequest(api: BackendAPI, message: String)
    /// HTTP 401 even after a fresh access token: a credentials problem.
    case unauthenticated(api: BackendAPI, message: String)
    /// HTTP 403: the credentials do not match the project.
    case permissionDenied(api: BackendAPI, message: String)
    /// HTTP 429: over quota; `retryAfter` is the server's `Retry-After`.
    case throttled(api: BackendAPI, retryAfter: Duration?)
    /// HTTP 5xx (or another unexpected status).
    case serverError(api: BackendAPI, status: Int, message: String, retryAfter: Duration?)
    /// No answer on a connection that was made: it was reset or closed, or the answer could
    /// not be read. The call may have been carried out.
    case transport(api: BackendAPI, message: String)
    /// No connection could be made (refused, a name that does not resolve, a TLS handshake that
    /// failed, none within the deadline), no HTTP/2 stream came free in time, the server refused
    /// its stream unprocessed each time, or its request never left the HTTP/2 frame handler (held
    /// for the server's stream limit or window): the server cannot have had the whole call.
    case unreachable(api: BackendAPI, message: String)
    /// No answer within the timeout.
    case timedOut(api: BackendAPI, timeout: Duration)
    /// An answer that does not fit the API's contract (bad JSON, wrong number of results).
    case malformedResponse(api: BackendAPI, status: Int, message: String)
    /// No access token could be had: the key or the token endpoint failed.
    case credentials(String)
    /// An answer that is not the API's own: a status the API does not give (405, 410, 413, 501…),
    /// an error status without the API's error body (a proxy's page, a wrong base URL or path,
    /// a retired endpoint), or a deletion's 400 that is not the API's refusal of its id
    /// (`FCMErrorBody.isInvalidArgument`: a gateway's `Bad Request`, a refusal about the project).
    /// It says nothing about any item: the call is retried, the breaker
    /// counts it (on every call it is a failure of the whole system), and items that run out of
    /// retries end `UNAVAILABLE`, dead-lettered for replay, never a receipt.
    case unexpectedAnswer(api: BackendAPI, status: Int, message: String)
    /// HTTP 200 in the API's shape whose every item failed with a code that says the backend
    /// failed (`ResultCode.saysBackendFailed`: `INTERNAL`, `UNAVAILABLE`): the backend failing
    /// inside its answer, as a 500 would say. An outage, not item failures: on every call it opens
    /// the breaker and pauses rather than dead-lettering every item. `code` is what the items end
    /// with if the failure is final: theirs, or `INTERNAL` when they differ.
    case failedEveryItem(api: BackendAPI, code: ResultCode, message: String)
    /// Not sent: the call's `SendGate` was closed (its records were handed to another worker)
    /// before its request left. It says nothing of the backend or of any item.
    case withdrawn(api: BackendAPI)

    /// The code each item of the call gets if this failure is final.
    public var resultCode: ResultCode {
        switch self {
        case .invalidArgument, .badRequest: .invalidRequest
        case .unauthenticated, .credentials: .unauthenticated
        case .permissionDenied: .permissionDenied
        case .throttled: .resourceExhausted
        case .serverError(_, let status, _, _):
            switch status {
            case 500: .internal
            case 502, 503, 504: .unavailable
            default: .unknown("HTTP \(status)")  // a wrong path or method: retrying cannot help
            }
        case .transport, .unreachable, .timedOut, .unexpectedAnswer, .withdrawn: .unavailable
        case .malformedResponse: .internal
        case .failedEveryItem(_, let code, _): code
        }
    }

    /// True when the same call may succeed later.
    public var isRetryable: Bool { resultCode.isRetryable }

    /// True for failures of the whole system rather than of this call: credentials refused,
    /// project mismatch. Every other call would fail the same way, so callers should pause.
    public var isSystemic: Bool {
        switch self {
        case .unauthenticated, .permissionDenied, .credentials: true
        default: false
        }
    }

    /// True for failures that say the backend cannot be reached, is failing, or is not the API
    /// (5xx, no answer, a timeout, an answer that is not the API's or of the wrong shape, a 200
    /// whose every item says the backend failed), and for
    /// systemic ones: what a circuit breaker counts. A call refused for its own content (a 400
    /// with the API's error body, an id the client rejects before calling) or throttled by quota
    /// says nothing about an outage, so it is not counted; a deletion's 400 that is not about its
    /// id is `unexpectedAnswer`, and is.
    public var isOutage: Bool {
        switch self {
        case .transport, .unreachable, .timedOut, .unexpectedAnswer, .malformedResponse, .failedEveryItem: true
        case .serverError(_, let status, _, _): status >= 500
        case .unauthenticated, .permissionDenied, .credentials: true
        case .invalidArgument, .badRequest, .throttled, .withdrawn: false
        }
    }

    /// False when the call was surely never sent (no access token could be had, the client
    /// refused it, no connection could be made): such a failure says nothing of the call or its
    /// items, whatever other calls did meanwhile. True for the rest.
    public var wasSent: Bool {
        switch self {
        case .credentials, .invalidArgument, .unreachable, .withdrawn: false
        case .badRequest, .unauthenticated, .permissionDenied, .throttled, .serverError, .transport, .timedOut, .malformedResponse, .unexpectedAnswer,
            .failedEveryItem:
            true
        }
    }

    /// True when the call may have been carried out though its answer says nothing of it: no
    /// answer in time, a connection lost, a 5xx, a 200 that could not be read or whose every item
    /// says the backend failed. A refusal (401,
    /// 403, 400), a throttle, a page that is not the API's, a call never sent: false.
    public var mayHaveBeenCarriedOut: Bool {
        switch self {
        case .timedOut, .transport, .malformedResponse, .failedEveryItem: true
        case .serverError(_, let status, _, _): status >= 500
        case .invalidArgument, .badRequest, .unauthenticated, .permissionDenied, .throttled, .unreachable, .credentials, .unexpectedAnswer, .withdrawn:
            false
        }
    }

    /// The HTTP status of the answer the failure came with; nil when no answer came (no
    /// connection, a lost one, a timeout, no access token, a call the client refused).
    public var answerStatus: Int? {
        switch self {
        case .badRequest: 400
        case .unauthenticated: 401
        case .permissionDenied: 403
        case .throttled: 429
        case .serverError(_, let status, _, _), .malformedResponse(_, let status, _), .unexpectedAnswer(_, let status, _): status
        case .failedEveryItem: 200
        case .transport, .unreachable, .timedOut, .credentials, .invalidArgument, .withdrawn: nil
        }
    }

    /// The server's `Retry-After`, when it sent one.
    public var retryAfter: Duration? {
        switch self {
        case .throttled(_, let retryAfter), .serverError(_, _, _, let retryAfter): retryAfter
        default: nil
        }
    }

    public var description: String {
        switch self {
        case .invalidArgument(let field, let value, let reason): "invalid \(field) '\(value)': \(reason)"
        case .badRequest(let api, let message): "\(api): HTTP 400: \(message)"
        case .unauthenticated(let api, let message): "\(api): HTTP 401 (credentials refused): \(message)"
        case .permissionDenied(let api, let message): "\(api): HTTP 403 (permission denied): \(message)"
        case .throttled(let api, let retryAfter): "\(api): HTTP 429 (quota exceeded)\(retryAfter.map { ", retry after \($0)" } ?? "")"
        case .serverError(let api, let status, let message, let retryAfter):
            "\(api): HTTP \(status): \(message)\(retryAfter.map { ", retry after \($0)" } ?? "")"
        case .transport(let api, let message): "\(api): no answer: \(message)"
        case .unreachable(let api, let message): "\(api): not sent, no connection: \(message)"
        case .timedOut(let api, let timeout): "\(api): no answer within \(timeout)"
        case .malformedResponse(let api, let status, let message): "\(api): unexpected answer (HTTP \(status)): \(message)"
        case .credentials(let message): "no access token: \(message)"
        case .unexpectedAnswer(let api, let status, let message):
            "\(api): HTTP \(status) that is not the API's answer (a wrong base URL or path, a proxy, a retired endpoint?): \(message)"
        case .failedEveryItem(let api, _, let message): "\(api): HTTP 200 whose every item failed (\(message)): the backend failing"
        case .withdrawn(let api): "\(api): not sent, withdrawn: its records were handed to another worker"
        }
    }
}
