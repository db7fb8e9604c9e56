/// What happened to one item of a call: its code and, for failures, the backend's words.
public struct ItemResult: Hashable, Sendable {
    /// The result code.
    public var code: ResultCode
    /// The backend's message or error string, when it gave one.
    public var message: String?

    /// A result with an optional message.
    public init(_ code: ResultCode, message: String? = nil) {
        self.code = code
        self.message = message
    }

    /// Success.
    public static let ok = ItemResult(.ok)
}
