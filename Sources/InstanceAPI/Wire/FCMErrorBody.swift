import Foundation
import WireJSON

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

        /// The wire names, read by `FCMErrorBody.init?(apiAnswer:)` too (a test holds the two together).
        enum CodingKeys: String, CodingKey, CaseIterable {
            case code, message, status, details
        }
    }

    /// One typed detail.
    public struct Detail: Codable, Sendable, Hashable {
        /// The detail's type URL.
        public var type: String?
        /// FCM's error code, in `FcmError` details.
        public var errorCode: String?
        /// Why, in `google.rpc.ErrorInfo` details (`SERVICE_DISABLED`).
        public var reason: String?
        /// Whose reason, in `google.rpc.ErrorInfo` details (`googleapis.com`).
        public var domain: String?
        /// More about it, in `google.rpc.ErrorInfo` details (`service`: `iid.googleapis.com`).
        public var metadata: [String: String]?
        /// The resource it is about, in `google.rpc.ResourceInfo` details
        /// (`projects/p/installations/fid`).
        public var resourceName: String?

        /// A detail.
        public init(
            type: String?, errorCode: String?, reason: String? = nil, domain: String? = nil, metadata: [String: String]? = nil, resourceName: String? = nil
        ) {
            self.type = type
            self.errorCode = errorCode
            self.reason = reason
            self.domain = domain
            self.metadata = metadata
            self.resourceName = resourceName
        }

        /// The wire names, read by `FCMErrorBody.init?(apiAnswer:)` too (a test holds the two together).
        enum CodingKeys: String, CodingKey, CaseIterable {
            case type = "@type"
            case errorCode, reason, domain, metadata, resourceName
        }

        /// Whether this detail can be about nothing but `item`: a `ResourceInfo` of it, a
        /// `RequestInfo` (a request id), an `ErrorInfo` about no other thing; nil for a kind not
        /// read here.
        func isOnlyAbout(_ item: String) -> Bool? {
            switch type {
            case FCMErrorBody.resourceInfoType: isResourceInfo(of: item)
            case FCMErrorBody.requestInfoType: true
            case FCMErrorBody.errorInfoType: !errorInfoNamesAnotherThing(than: item)
            default: nil
            }
        }

        /// The domain of Google's infrastructure reasons (`google.api.ErrorReason`): every one is
        /// about the caller, its credentials or the service (`SERVICE_DISABLED`,
        /// `BILLING_DISABLED`, `SECURITY_POLICY_VIOLATED`), none about an item.
        static let infrastructureDomain = "googleapis.com"

        /// Whether this `ErrorInfo` is about something other than `item`: of Google's
        /// infrastructure domain, or its reason (its `_` as blanks: `INSTANCE_NOT_FOUND` is three
        /// words, not one id-like run) or a metadata value naming another thing (`consumer`:
        /// `projects/123`). The `service` and `method` values are not read: they name the API
        /// (`firebaseinstallations.googleapis.com`, one long run of letters) on its answers about
        /// an item too.
        func errorInfoNamesAnotherThing(than item: String) -> Bool {
            domain == Self.infrastructureDomain || ErrorWords(errorInfoWords, item: item).namesAnotherThing
        }

        /// An `ErrorInfo`'s words as read: its reason with its `_` as blanks, then its metadata
        /// values but the `service` and `method` (which name the API on its answers about an item).
        var errorInfoWords: String {
            let values = (metadata ?? [:]).filter { $0.key != "service" && $0.key != "method" }.sorted { $0.key < $1.key }.map(\.value)
            return ([reason?.replacingOccurrences(of: "_", with: " ")] + values).compactMap { $0 }.joined(separator: " ")
        }

        /// True when it is a `google.rpc.ResourceInfo` whose `resourceName` is `item` or ends in
        /// `/` and `item`, byte for byte: a detail about that item alone.
        func isResourceInfo(of item: String) -> Bool {
            guard type == FCMErrorBody.resourceInfoType, let name = resourceName?.utf8 else { return false }
            let needle = item.utf8
            guard name.count >= needle.count, !needle.isEmpty, name.suffix(needle.count).elementsEqual(needle) else { return false }
            return name.count == needle.count || name.dropLast(needle.count).last == UInt8(ascii: "/")
        }
    }

    /// The `@type` of FCM's own error detail.
    public static let fcmErrorType = "type.googleapis.com/google.firebase.fcm.v1.FcmError"

    /// The `@type` of the detail that names the resource an error is about.
    public static let resourceInfoType = "type.googleapis.com/google.rpc.ResourceInfo"

    /// The `@type` of the detail that says why, in words of a reason (`SERVICE_DISABLED`).
    public static let errorInfoType = "type.googleapis.com/google.rpc.ErrorInfo"

    /// The `@type` of the detail that names the request (its id): nothing of what is missing.
    public static let requestInfoType = "type.googleapis.com/google.rpc.RequestInfo"

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

    /// The API's words, at most `ResultClassifier.excerptBytes` of them: the error's status, any
    /// `ErrorInfo` reason and service, then its message (`PERMISSION_DENIED (SERVICE_DISABLED,
    /// iid.googleapis.com): Instance ID API has not been used…`), or the plain string `error`.
    public var message: String? {
        guard let error else { return errorString.map { ResultClassifier.excerpt(Data($0.utf8)) } }
        let why = (error.details ?? []).flatMap { [$0.reason, $0.metadata?["service"] ?? $0.domain] }.compactMap { $0 }.filter { !$0.isEmpty }
        let head = [error.status, why.isEmpty ? nil : "(" + why.joined(separator: ", ") + ")"].compactMap { $0 }.joined(separator: " ")
        let text = [head.isEmpty ? nil : head, error.message].compactMap { $0 }.joined(separator: ": ")
        return text.isEmpty ? nil : ResultClassifier.excerpt(Data(text.utf8))
    }

    /// True when the error is the API's `NOT_FOUND` about `item` (a 404), by its words
    /// (`ErrorWords`, the item's own bytes set aside): a structured error whose `status` is
    /// `NOT_FOUND`, whose `code` (when it has one) is 404, which is not a front end's answer to a
    /// path it has no method for (`isRoutingError`: a wrong base URL), and whose message names no
    /// other thing (`Project p not found.`) and is empty, holds the item or names the kind of
    /// thing asked for (`Requested entity was not found.`); or a plain string error (the legacy
    /// endpoints' form) naming it (`names(_:)`: not only inside a quoted path), saying it is not
    /// found (`ErrorWords.notFound`) and naming no other thing. A structured error with details
    /// is one only when none can be about another thing (`detailsAreOnlyAbout`): a detail naming
    /// another resource (a mistyped project) says what is missing is something else, and one of a
    /// kind not read here may.
    public func isNotFound(_ item: String) -> Bool {
        guard let error else { return isLegacyWord(ErrorWords.notFound, about: item) }
        guard error.status == "NOT_FOUND", isAnswer(toStatus: 404), detailsAreOnlyAbout(item) else { return false }
        guard let message = error.message, !message.allSatisfy(\.isWhitespace) else { return true }
        let words = ErrorWords(message, item: item)
        return !words.namesAnotherThing && (words.holdsItem || words.namesTheThing)
    }

    /// True when the error can be the API's refusal of `item` as an argument (a 400), where a call
    /// carries only the item and the project: a structured error that is the API's answer to a
    /// 400 (`isAnswer(toStatus:)`) whose `status` is `INVALID_ARGUMENT`, none of whose details is a
    /// `ResourceInfo` of another resource or an `ErrorInfo` about another thing
    /// (`RESOURCE_PROJECT_INVALID`; other details, `BadRequest`, FCM's own, say more of the
    /// refusal) and whose message names no other thing (`Invalid project ID` is about
    /// the call, not the item); or a plain string error that names the item (`names(_:)`) or is
    /// the code's name (`INVALID_ARGUMENT`). A gateway's `{"error": "Bad Request"}`, or its
    /// `{"error": {"message": "Bad Request"}}` without the status, is none: read as the item's, it
    /// would end every item of a backlog `INVALID_ARGUMENT`, final and unretried.
    public func isInvalidArgument(_ item: String) -> Bool {
        if let error {
            return isAnswer(toStatus: 400) && error.status == ResultCode.invalidArgument.rawValue && detailsAreOnlyAbout(item, unreadKinds: true)
                && !ErrorWords(error.message ?? "", item: item).namesAnotherThing
        }
        return errorString == ResultCode.invalidArgument.rawValue || names(item)
    }

    /// True when a structured error says it is about the project or the caller, not the token
    /// of the FCM v1 call it answers: an `ErrorInfo` of Google's infrastructure domain, or whose
    /// reason or metadata (but the service and method) name a project or a consumer; or, unless
    /// FCM's own detail (`FcmError` with a code's name) says what became of the token, a message
    /// naming a project or a consumer outside a registration's resource name
    /// (`projects/<p>/registrations/<token>[/topicSubscriptions/<topic>]`, the call's own); words
    /// are read within the first `searchedBytes`. Only those strong words are read: FCM's own text for an unregistered token is
    /// `App instance was unregistered from FCM`, and a message may quote the token or the
    /// call's resource. A `NOT_FOUND` about the project is not the token's: read as it, every
    /// token of a misconfigured project would be reported gone, and purged.
    public var isAboutTheProjectNotTheToken: Bool {
        guard let error else { return false }
        let details = error.details ?? []
        let errorInfo = details.contains { detail in
            guard detail.type == Self.errorInfoType else { return false }
            return detail.domain == Detail.infrastructureDomain || ErrorWords.namesProjectOrConsumer(ErrorWords.withoutRegistrationNames(detail.errorInfoWords))
        }
        if errorInfo { return true }
        // FCM's own word on the token: a detail naming its code (`UNREGISTERED`).
        guard !details.contains(where: { $0.type == Self.fcmErrorType && $0.errorCode.map(ResultClassifier.isCodeName) == true }) else { return false }
        return ErrorWords.namesProjectOrConsumer(ErrorWords.withoutRegistrationNames(error.message ?? ""))
    }

    /// True when the error is the Instance ID API's `NOT_FOUND` about `item` on a single-item call
    /// (§2.5 info, §2.2 relation): `isNotFound(item)`; or a plain string error that is the code's
    /// name (`NOT_FOUND`), or that names the item or an instance (`No information found about
    /// this instance id.`), says it is not found and names no other thing. A web server's bare
    /// `{"error": "Not Found"}`, or its `Resource not found` (or an auth gateway's `Token not
    /// found`, about the bearer token), is none: it would make every token `NOT_FOUND`.
    public func isInstanceNotFound(_ item: String) -> Bool {
        if isNotFound(item) { return true }
        guard let errorString else { return false }
        if errorString == ResultCode.notFound.rawValue { return true }
        let words = ErrorWords(errorString, item: item)
        return (words.holdsItem || words.words.contains { $0.hasPrefix("instance") }) && words.says(ErrorWords.notFound) && !words.namesAnotherThing
    }

    /// True when the error says `item` is already gone (a 409): a structured error whose `status`
    /// is `ALREADY_EXISTS`, whose `code` (when it has one) is 409, whose details (if any) are each a
    /// detail about the item alone (`detailsAreOnlyAbout`) and whose message names no other thing
    /// and is empty, holds the item or names the kind of thing asked for (as `isNotFound`: `abcDEFghiJK
    /// already deleted` is about another id), or a plain string error naming it (`names(_:)`), saying it is already deleted
    /// (`ErrorWords.alreadyGone`) and naming no other thing. A conflict of another kind
    /// (`ABORTED`, a deletion `already in progress`) is not.
    public func isAlreadyGone(_ item: String) -> Bool {
        guard let error else { return isLegacyWord(ErrorWords.alreadyGone, about: item) }
        guard error.status == "ALREADY_EXISTS", isAnswer(toStatus: 409), detailsAreOnlyAbout(item) else { return false }
        guard let message = error.message, !message.allSatisfy(\.isWhitespace) else { return true }
        let words = ErrorWords(message, item: item)
        return !words.namesAnotherThing && (words.holdsItem || words.namesTheThing)
    }

    /// True when no detail of the structured error can say it is about something other than
    /// `item`: each is a `ResourceInfo` of `item` (`Detail.isResourceInfo(of:)`), a `RequestInfo`
    /// (a request id), or an `ErrorInfo` about no other thing (`Detail.errorInfoNamesAnotherThing`:
    /// `INSTANCE_NOT_FOUND`, not `PROJECT_NOT_FOUND`, `CONSUMER_INVALID` or any reason of
    /// Google's infrastructure domain). A detail of any other
    /// kind (a `LocalizedMessage` whose words are not read here) is not known to be about the item.
    /// Kinds this code does not read count as `unreadKinds` says: a receipt needs them to be
    /// none, a refusal of the item may carry them (`BadRequest`, FCM's own).
    func detailsAreOnlyAbout(_ item: String, unreadKinds: Bool = false) -> Bool {
        (error?.details ?? []).allSatisfy { $0.isOnlyAbout(item) ?? unreadKinds }
    }

    /// Whether the plain string error names `item` and, the item's own bytes set aside,
    /// says one of `phrases` and names no other thing.
    private func isLegacyWord(_ phrases: [String], about item: String) -> Bool {
        guard let errorString, names(item) else { return false }
        let words = ErrorWords(errorString, item: item)
        return words.says(phrases) && !words.namesAnotherThing
    }

    /// True when the error can be the API's answer on HTTP `status`: not a front end's routing
    /// error, and a structured error's `code`, when it has one, is `status`.
    public func isAnswer(toStatus status: Int) -> Bool {
        !isRoutingError && (error?.code ?? status) == status
    }

    /// The message a Google front end gives, in the APIs' error form, for a path no method of
    /// the API serves (`{"error": {"code": 404, "message": "Method not found.", "status":
    /// "NOT_FOUND"}}`): it says nothing of any item.
    static let routingMessage = "method not found"

    /// True when the error is a front end's answer to a path without a method (`routingMessage`,
    /// any case, with or without its full stop).
    var isRoutingError: Bool {
        guard let message = error?.message?.lowercased() else { return false }
        let words = message.hasSuffix(".") ? String(message.dropLast()) : message
        return words.trimmingCharacters(in: .whitespaces) == Self.routingMessage
    }

    /// The bytes that, just before an item, show it quoted inside a path, URL or query: a slash,
    /// a backslash, `=`, and `;` (the end of an HTML-escaped slash, `&#x2F;` or `&#47;`).
    static let pathBytes: Set<UInt8> = [UInt8(ascii: "/"), UInt8(ascii: "\\"), UInt8(ascii: "="), UInt8(ascii: ";")]

    /// The longest part of the API's words searched for an item's name.
    static let searchedBytes = 1_024

    /// True when the API's words name `item` as a word of its own (not inside another: the bytes
    /// around it are not ASCII letters, digits, `-` or `_`, nor part of a non-ASCII character),
    /// within their first `searchedBytes`: an error about that one id or token. A refusal of the
    /// caller (IAM, credentials, a project mismatch of the request) names none.
    ///
    /// Words that hold `item` after a `/` (or another of `pathBytes`: an escaped slash, a query's
    /// `=`) quote a path or URL that holds it, the request's own (a gateway's or web framework's
    /// `Cannot DELETE /v1/project/p/instanceId/ID`): they do not name it, wherever else it
    /// appears. This is the one rule that tells the legacy string
    /// errors of the API (`Instance ID "ID": already deleted`) from such echoes.
    public func names(_ item: String) -> Bool {
        guard let full = error?.message ?? errorString, !item.isEmpty else { return false }
        let words = Array(full.utf8.prefix(Self.searchedBytes))
        let needle = Array(item.utf8)
        guard needle.count <= words.count else { return false }
        func isWordByte(_ index: Int) -> Bool { words.indices.contains(index) && ErrorWords.isIDByte(words[index]) }
        var named = false
        for start in 0...(words.count - needle.count) where words[start] == needle[0] {
            guard words[start..<start + needle.count].elementsEqual(needle) else { continue }
            if start > 0, Self.pathBytes.contains(words[start - 1]) { return false }
            if !isWordByte(start - 1), !isWordByte(start + needle.count) { named = true }
        }
        return named
    }

    /// The wire name, read by `init?(apiAnswer:)` too.
    enum CodingKeys: String, CodingKey, CaseIterable {
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
