import WireJSON

/// The final result of one item: exactly one of these per token, installation or APNs token.
///
/// The raw value is the wire spelling used in outcomes (`UNKNOWN(<verbatim>)` keeps a code the
/// backend invented verbatim). Each code knows whether retrying can change it.
public enum ResultCode: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Done.
    case ok
    /// A deletion of something already gone: a success, reported distinctly for audits.
    case alreadyAbsent
    /// The token or instance does not exist (deleted, app uninstalled).
    case notFound
    /// The item is not valid (for this sender).
    case invalidArgument
    /// The instance has too many topic subscriptions.
    case tooManyTopics
    /// Quota: too many requests in a short time. Retry with exponential backoff.
    case resourceExhausted
    /// The backend failed for an unknown reason. Retry with backoff.
    case `internal`
    /// The backend is unavailable, or the call timed out. Retry with backoff.
    case unavailable
    /// The device group already holds 20 members.
    case groupFull
    /// The device group (name) already exists.
    case alreadyExists
    /// The caller may not act on this item or project.
    case permissionDenied
    /// The credentials were refused.
    case unauthenticated
    /// The whole request was malformed (HTTP 400 for the call): no item of it can succeed.
    case invalidRequest
    /// Cancelled by an operator before any call was made for it: left as it was. Never a
    /// backend's word (`ResultClassifier` does not read it from an answer).
    case cancelled
    /// A code this taxonomy does not know, kept verbatim.
    case unknown(String)

    /// Every known code (without `unknown`), for tables and tests.
    public static let known: [ResultCode] = [
        .ok, .alreadyAbsent, .notFound, .invalidArgument, .tooManyTopics, .resourceExhausted, .internal,
        .unavailable, .groupFull, .alreadyExists, .permissionDenied, .unauthenticated, .invalidRequest, .cancelled,
    ]

    /// The wire spelling: `OK`, `NOT_FOUND`, … or `UNKNOWN(<verbatim>)`.
    public var rawValue: String {
        switch self {
        case .ok: "OK"
        case .alreadyAbsent: "ALREADY_ABSENT"
        case .notFound: "NOT_FOUND"
        case .invalidArgument: "INVALID_ARGUMENT"
        case .tooManyTopics: "TOO_MANY_TOPICS"
        case .resourceExhausted: "RESOURCE_EXHAUSTED"
        case .internal: "INTERNAL"
        case .unavailable: "UNAVAILABLE"
        case .groupFull: "GROUP_FULL"
        case .alreadyExists: "ALREADY_EXISTS"
        case .permissionDenied: "PERMISSION_DENIED"
        case .unauthenticated: "UNAUTHENTICATED"
        case .invalidRequest: "INVALID_REQUEST"
        case .cancelled: "CANCELLED"
        case .unknown(let verbatim): "UNKNOWN(\(verbatim))"
        }
    }

    /// The most bytes of UTF-8 an `unknown` code keeps (a backend's longer words are cut, so an
    /// outcome listing many such codes stays within its size bound; one character may take
    /// hundreds of kilobytes, so the bound is in bytes).
    public static let maxVerbatimLength = 64

    /// An `unknown` code keeping at most `maxVerbatimLength` bytes of `text`, within the
    /// stream-safe limit, its control characters written as spaces: JSON writes a control character in six bytes (`\u0001`), and
    /// an outcome's size bound counts at most two per byte of a code (`OutcomeSizeBound`).
    public static func unknown(verbatim text: String) -> ResultCode {
        // Within the stream-safe limit too (`StreamSafeText.clipped`): 64 bytes hold 32 marks.
        let kept = StreamSafeText.clipped(text.utf8Prefix(maxBytes: maxVerbatimLength))
        guard kept.utf8.contains(where: { $0 < 0x20 }) else { return .unknown(kept) }
        return .unknown(String(decoding: kept.utf8.map { $0 < 0x20 ? UInt8(ascii: " ") : $0 }, as: UTF8.self))
    }

    /// The name a code of wire spelling `rawValue` is counted under (statistics, metric labels):
    /// itself, but `UNKNOWN` for every `UNKNOWN(…)`, whose words a backend chooses without bound
    /// (one distinct text per token would grow the counts for the process's life).
    public static func tallyName(of rawValue: String) -> String {
        rawValue.hasPrefix("UNKNOWN(") ? "UNKNOWN" : rawValue
    }

    /// Parses the wire spelling; anything else becomes `unknown` with the text kept verbatim
    /// (up to `maxVerbatimLength` characters).
    public init(rawValue: String) {
        // By bytes: Swift's `==` calls `O` + KELVIN SIGN (U+212A) `OK`.
        if let known = Self.known.first(where: { $0.rawValue.utf8.elementsEqual(rawValue.utf8) }) {
            self = known
        } else if rawValue.hasPrefix("UNKNOWN("), rawValue.hasSuffix(")") {
            self = .unknown(verbatim: String(rawValue.dropFirst("UNKNOWN(".count).dropLast()))
        } else {
            self = .unknown(verbatim: rawValue)
        }
    }

    /// True for results that count as done: `OK` and `ALREADY_ABSENT`.
    public var isSuccess: Bool {
        switch self {
        case .ok, .alreadyAbsent: true
        default: false
        }
    }

    /// True when a later attempt may succeed: `RESOURCE_EXHAUSTED`, `INTERNAL`, `UNAVAILABLE`.
    /// Unknown codes are not retried: repeating what nobody understands only burns quota.
    public var isRetryable: Bool {
        switch self {
        case .resourceExhausted, .internal, .unavailable: true
        default: false
        }
    }

    /// True for the codes that say the backend failed rather than the item (`INTERNAL`,
    /// `UNAVAILABLE`): a batch answer whose every item ends so is the backend failing for the
    /// whole call (`InstanceAPIError.failedEveryItem`), not that many item failures.
    public var saysBackendFailed: Bool { self == .internal || self == .unavailable }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
