/// Why a call got no complete answer from the backend's HTTP server.
enum TransportError: Error, Equatable, CustomStringConvertible {
    /// The URL cannot be called.
    case invalidURL(String, reason: String)
    /// No complete answer before the call's deadline.
    case timedOut
    /// No connection to the server could be made (refused, a name that does not resolve, a TLS
    /// handshake that failed, none within the deadline), no HTTP/2 stream came free before the
    /// deadline, or the request had not all left by then: the call was not sent.
    case notConnected(String)
    /// The server closed the connection before its answer was complete.
    case closedBeforeAnswer
    /// The server refused the call's HTTP/2 stream without processing it (it was above a
    /// GOAWAY's last stream, or reset with REFUSED_STREAM): safe to send again.
    case refusedStream
    /// The connection takes no new streams (a GOAWAY came, or its stream ids ran out): the call
    /// was not sent, and goes on another connection.
    case noNewStreams
    /// The answer's body passed `limit` bytes.
    case answerTooLarge(limit: Int)
    /// The answers being read, of every call together, would pass `limit` bytes
    /// (`AnswerBudget`).
    case answerBudgetExhausted(limit: Int)
    /// The transport was shut down.
    case shutDown
    /// The call's `SendGate` was closed before its request left: it was not sent.
    case withdrawn

    var description: String {
        switch self {
        case .invalidURL(let url, let reason): "cannot call '\(url)': \(reason)"
        case .timedOut: "no answer before the deadline"
        case .notConnected(let reason): "no connection could be made, the call was not sent: \(reason)"
        case .closedBeforeAnswer: "the server closed the connection before its answer was complete"
        case .refusedStream: "the server refused the call's HTTP/2 stream unprocessed"
        case .noNewStreams: "the HTTP/2 connection takes no new streams"
        case .answerTooLarge(let limit): "the answer's body is larger than \(limit) bytes"
        case .answerBudgetExhausted(let limit): "the answers being read hold more than \(limit) bytes together"
        case .shutDown: "the HTTP client is shut down"
        case .withdrawn: "the call was withdrawn before its request left"
        }
    }
}
