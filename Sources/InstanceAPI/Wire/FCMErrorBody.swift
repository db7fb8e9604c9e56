/// A Google API error answer as the FCM v1 API sends it (§2.6).
///
/// `{"error": {"code": 404, "message": "...", "status": "NOT_FOUND", "details": [{"@type":
/// "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "UNREGISTERED"}]}}`; some
/// answers carry a plain string `error` instead.
public struct FCMErrorBody: Codable, Sendable, Hashable {
    /// The structured error.
    public struct Status: Codable, Sendable, Hashable {
        /// The HTTP status.
        public var code: Int?
        /// Words.
        public var message: String?
        /// The canonical status name, e.g. `NOT_FOUND`.
        public var status: String?
        /// Typed details.
        public var details: [Detail]?

        /// A structured error.
        public init(code: Int?, message: String?, status: String?, details: [Detail]?) {
            self.code = code
            self.message = message
            self.status = status
            self.details = details
        }
    }

    /// One typed detail.
    public struct Detail: Codable, Sendable, Hashable {
        /// The detail's type URL.
        public var type: String?
        /// FCM's error code, in `FcmError` details.
        public var errorCode: String?

        /// A detail.
        public init(type: String?, errorCode: String?) {
            self.type = type
            self.errorCode = errorCode
        }

        enum CodingKeys: String, CodingKey {
            case type = "@type"
            case errorCode
        }
    }

    /// The `@type` of FCM's own error detail.
    public static let fcmErrorType = "type.googleapis.com/google.firebase.fcm.v1.FcmError"

    /// The structured error, when `error` is an object.
    public var error: Status?
    /// The error, when `error` is a plain string.
    public var errorString: String?

    /// A structured error body.
    public init(error: Status) {
        self.error = error
        self.errorString = nil
    }

    /// The code, in the order the Admin SDK looks: a string `error`, an `FcmError` detail's
    /// `errorCode`, then the error's `status`.
    public var code: String? {
        if let errorString { return errorString }
        if let detail = error?.details?.first(where: { $0.type == Self.fcmErrorType })?.errorCode { return detail }
        return error?.status
    }

    enum CodingKeys: String, CodingKey {
        case error
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let text = try? container.decode(String.self, forKey: .error) {
            errorString = text
            error = nil
        } else {
            errorString = nil
            error = try container.decodeIfPresent(Status.self, forKey: .error)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if let errorString {
            try container.encode(errorString, forKey: .error)
        } else {
            try container.encodeIfPresent(error, forKey: .error)
        }
    }
}
