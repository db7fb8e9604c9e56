import Foundation
import WireJSON

/// The one place that turns what the backend said into the result taxonomy.
///
/// Per-item error strings (§2.3, §2.4), HTTP statuses of each API (§2.5, §2.6, §3, §4) and FCM v1
/// error bodies all map here, so the client, the pipeline and the tests agree on every code.
package enum ResultClassifier {
    /// What a non-200 answer means: one item's result (single-item calls), or the whole call failed.
    public enum Verdict: Sendable, Equatable {
        /// The answer is this one item's result.
        case item(ItemResult)
        /// The whole call failed.
        case call(InstanceAPIError)

        /// The item's result, when the answer is one.
        public var item: ItemResult? {
            if case .item(let result) = self { return result }
            return nil
        }

        /// The call's failure, when the answer is one.
        public var call: InstanceAPIError? {
            if case .call(let error) = self { return error }
            return nil
        }
    }

    /// The whole call's failure when a 200 of `api` answered every one of `results` with a code
    /// that says the backend failed (`ResultCode.saysBackendFailed`), as a 500 would: a backend
    /// failing for everyone answers so, and DESIGN wants that paused, not dead-lettered item by
    /// item. One item too: a single-token call answered so is read as a 500 on a single-item API
    /// is (an answer of items is the backend answering, which would close the breaker). The code
    /// is the items' when they agree, else `INTERNAL`. Nil when any item was answered otherwise
    /// (those are the items' results) or there are none.
    package static func backendFailure(_ api: BackendAPI, results: some Collection<ItemResult>) -> InstanceAPIError? {
        guard let first = results.first, results.allSatisfy({ $0.code.saysBackendFailed }) else { return nil }
        guard results.allSatisfy({ $0.code == first.code }) else {
            return .failedEveryItem(api: api, code: .internal, message: "items INTERNAL and UNAVAILABLE")
        }
        return .failedEveryItem(api: api, code: first.code, message: first.message ?? first.code.rawValue)
    }

    /// A per-item entry of a batchAdd/batchRemove answer: `{}` is success, `{"error": X}` is X;
    /// an `error` naming a success code (`OK`, `ALREADY_ABSENT`) is an unknown error, kept verbatim.
    public static func batchItem(error: String?) -> ItemResult {
        guard let error else { return .ok }
        return ItemResult(code(named: error), message: error)
    }

    /// A batchImport entry's `status`: `OK` or an error text (one naming another success code,
    /// `ALREADY_ABSENT`, is an unknown error, kept verbatim).
    public static func importStatus(_ status: String) -> ItemResult {
        // By bytes: Swift's `==` calls `O` + KELVIN SIGN (U+212A) `OK`.
        if status.utf8.elementsEqual("OK".utf8) { return .ok }
        // Compared as bytes: Foundation's `contains` (NSString's range search) and the standard
        // library's `firstRange(of:)` each cost more than the rest of an import call's 100 entries.
        let lower = Array(status.lowercased().utf8)
        func says(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard count <= lower.count else { return false }
            return word.withUTF8Buffer { needle in
                (0...(lower.count - count)).contains { start in
                    (0..<count).allSatisfy { lower[start + $0] == needle[$0] }
                }
            }
        }
        let code: ResultCode
        if let named = knownCode(named: status) {
            code = named
        } else if says("internal") {
            code = .internal
        } else if says("unavailable") {
            code = .unavailable
        } else if says("quota") || says("exhausted") || says("too many") {
            code = .resourceExhausted
        } else if says("invalid") {
            code = .invalidArgument
        } else {
            code = .unknown(verbatim: status)
        }
        return ItemResult(code, message: status)
    }

    /// A taxonomy code from an error name; unknown names are kept verbatim, and so are the names
    /// of success codes: an error is never a success.
    public static func code(named name: String) -> ResultCode {
        knownCode(named: name) ?? .unknown(verbatim: name)
    }

    /// A non-200 answer of an Instance ID call (§2.5) about `item` (single-item calls).
    ///
    /// For single-item calls (info, relation), and only with the API's own error body for that
    /// status (`FCMErrorBody.isAnswer(toStatus:)`: not a routing error, no other code): a 404 that
    /// says the item is not found (`FCMErrorBody.isInstanceNotFound`: not a web server's bare `Not
    /// Found`) is the item's `NOT_FOUND`, and a 403 that names the item is the item's
    /// `PERMISSION_DENIED`. Everything else concerns the whole call.
    public static func instanceID(_ api: BackendAPI, item: String? = nil, status: Int, body: Data, retryAfter: Duration?) -> Verdict {
        if api == .instanceInfo || api == .topicRelation, let error = FCMErrorBody(apiAnswer: body), error.isAnswer(toStatus: status) {
            let message = error.message ?? "HTTP \(status)"
            if status == 404, let item, error.isInstanceNotFound(item) { return .item(ItemResult(.notFound, message: message)) }
            if status == 403, let item, error.names(item) { return .item(ItemResult(.permissionDenied, message: message)) }
        }
        return .call(callFailure(api, status: status, body: body, retryAfter: retryAfter))
    }

    /// A non-2xx answer of the FCM v1 per-token topic API (§2.6).
    ///
    /// On subscribe, a 400 or 409 whose error body says `ALREADY_EXISTS`, or a 409 whose body names
    /// no code, is success. The code comes from a string `error`,
    /// then an `FcmError` detail's `errorCode`, then the error's `status`, then the HTTP status.
    /// 401 concerns the whole system and fails the call; 429, 408 and 5xx fail the call as
    /// retryable. A 400, 404 or 409 is this token's result, and a 403 is when its code is one FCM
    /// gives a token (`tokenRefusals`: another sender's token), but only with the API's own error
    /// body for that status (`FCMErrorBody.isAnswer(toStatus:)`: not a front end's routing error,
    /// no other `code`), and a string error only when it names a code: without them the answer
    /// is not the API's and says nothing about the token; nor is a 400, 404 or 409 whose error is about
    /// the project or the caller (`FCMErrorBody.isAboutTheProjectNotTheToken`: `Project 'p' not
    /// found.`, `Invalid project ID`). Any other 403 is the caller's refusal;
    /// any other status is no answer the API gives about one token, and fails the call.
    public static func fcmV1(
        _ api: BackendAPI, status: Int, body: Data, retryAfter: Duration?
    ) -> Verdict {
        let parsed = FCMErrorBody(apiAnswer: body).flatMap { $0.isAnswer(toStatus: status) ? $0 : nil }
        let named = parsed?.code
        let message = parsed?.message ?? excerpt(body)
        if api == .fcmSubscribe, let parsed, Self.isAlreadySubscribed(status: status, parsed) {
            return .item(.ok)
        }
        let code = named.map(fcmCode(named:)) ?? fcmCode(status: status)
        // A string error is the API's about the token only when it is a code's name (`NOT_FOUND`,
        // `UNREGISTERED`, one FCM adds later): a front end's `{"error": "Not Found"}` is none.
        let aboutToken = parsed.map { $0.errorString.map(isCodeName) ?? true } ?? false
        switch status {
        case 401:
            return .call(.unauthenticated(api: api, message: message))
        case 429, 500...599, 408:
            return .call(callFailure(api, status: status, body: body, retryAfter: retryAfter))
        case 403 where aboutToken && named.map(tokenRefusals.contains) == true:
            return .item(ItemResult(code, message: message))
        case 403:
            return .call(.permissionDenied(api: api, message: message))
        case 400, 404, 409:
            guard aboutToken else { return .call(.unexpectedAnswer(api: api, status: status, message: message)) }
            // A 400, 404 or 409 about the project or the caller says nothing of the token (its
            // NOT_FOUND or INVALID_ARGUMENT, final, is purged by consumers).
            if parsed?.isAboutTheProjectNotTheToken == true { return .call(.unexpectedAnswer(api: api, status: status, message: message)) }
            return .item(ItemResult(code, message: message))
        default:
            return .call(.unexpectedAnswer(api: api, status: status, message: message))
        }
    }

    /// Whether `text` has the form of a code's name: capital letters, digits and `_`, a letter
    /// first (`NOT_FOUND`).
    static func isCodeName(_ text: String) -> Bool {
        guard let first = text.utf8.first, (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(first) else { return false }
        return text.utf8.allSatisfy {
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "_")
        }
    }

    /// The FCM error codes of a 403 that are about the token, not the caller: the token belongs to
    /// another sender, or its APNs credentials are another's.
    static let tokenRefusals: Set<String> = ["SENDER_ID_MISMATCH", "THIRD_PARTY_AUTH_ERROR"]

    /// Whether a subscribe's error (with the API's error body) says the subscription exists: a 409
    /// naming no code, or `ALREADY_EXISTS` (as its string, its status or an `FcmError` detail's
    /// code) on a 400 or 409, unless it is about the project or the caller
    /// (`FCMErrorBody.isAboutTheProjectNotTheToken`: `Project p already exists`). On any other
    /// status (401, 429, 5xx, a redirect) the status decides: such an answer is no item's success.
    private static func isAlreadySubscribed(status: Int, _ error: FCMErrorBody) -> Bool {
        guard status == 400 || status == 409, !error.isAboutTheProjectNotTheToken else { return false }
        let says = [error.errorString, error.error?.status, error.code].compactMap { $0 }
        return says.contains("ALREADY_EXISTS") || (status == 409 && says.isEmpty)
    }

    /// An answer of the installation / instance-ID delete of `id` (§3), 200 included.
    ///
    /// An erasure receipt rests on this, so an item's result needs the API's own answer about
    /// this id: 200 with an empty body (or `{}`) is `OK`; 404 with the API's `NOT_FOUND` (a
    /// structured error of that status, or the legacy string error naming the id) and 409 saying
    /// it is gone (`ALREADY_EXISTS`, or the string naming it) mean the data is gone
    /// (`ALREADY_ABSENT`); 400 with the API's refusal of this id (`FCMErrorBody.isInvalidArgument`)
    /// is this id's `INVALID_ARGUMENT`, and any other 400 (a gateway's `Bad Request`, a refusal
    /// about the project) is no answer about any item: retried and counted by the breaker, never
    /// settled as the call's refusal; 403 whose error names the id is this id's
    /// `PERMISSION_DENIED`. An error in which the id follows a
    /// `/` (or another of `FCMErrorBody.pathBytes`) anywhere (a path it quotes: a gateway echoing `DELETE /v1/project/p/instanceId/ID`)
    /// does not name it (`FCMErrorBody.names(_:)`). Anything else (a proxy's page or JSON, a wrong path, a
    /// retired endpoint, a 403 for the caller) fails the call.
    public static func deleteInstance(id: String, status: Int, body: Data, retryAfter: Duration?) -> Verdict {
        if status == 200 {
            guard isEmptyAnswer(body) else {
                return .call(.malformedResponse(api: .deleteInstance, status: 200, message: "not the API's empty answer: \(excerpt(body))"))
            }
            return .item(.ok)
        }
        if let error = FCMErrorBody(apiAnswer: body) {
            switch status {
            // A success keeps the words every such answer shares: its item needs no text of its
            // own (half the answers of a deletion backlog are these).
            case 404 where error.isNotFound(id): return .item(Self.notFound)
            case 409 where error.isAlreadyGone(id): return .item(Self.alreadyDeleted)
            case 400 where error.isInvalidArgument(id): return .item(ItemResult(.invalidArgument, message: error.message ?? "HTTP 400"))
            case 403 where error.names(id): return .item(ItemResult(.permissionDenied, message: error.message ?? "HTTP 403"))
            default: break
            }
        }
        if status == 400 {
            // Not the API's refusal of this id (which would be the id's): read as the call's bad
            // request it would end a whole backlog with a final code, unretried.
            return .call(.unexpectedAnswer(api: .deleteInstance, status: 400, message: FCMErrorBody(apiAnswer: body)?.message ?? excerpt(body)))
        }
        return .call(callFailure(.deleteInstance, status: status, body: body, retryAfter: retryAfter))
    }

    /// A non-200 answer of a device-group call (§4): a 400 with the API's error body names the
    /// group's problem, unless its words are about the caller (its `project_id` or sender: a
    /// wrong `sender-id` fails every group's call, which must wait rather than end every member
    /// final); anything else fails the call.
    public static func deviceGroup(status: Int, body: Data, retryAfter: Duration?) -> Verdict {
        guard status == 400, let error = FCMErrorBody(apiAnswer: body) else {
            return .call(callFailure(.deviceGroup, status: status, body: body, retryAfter: retryAfter))
        }
        let text = error.message ?? "HTTP 400"
        let lower = text.lowercased()
        if ["project_id", "project id", "sender not found", "invalid sender", "sender_id", "sender id"].contains(where: lower.contains) {
            return .call(.unexpectedAnswer(api: .deviceGroup, status: 400, message: text))
        }
        let code: ResultCode
        if lower.contains("already exists") {
            code = .alreadyExists
        } else if lower.contains("maximum") || Self.hasWord("full", in: lower) {
            code = .groupFull
        } else if lower.contains("not found"), lower.contains("notification_key") || lower.contains("notification key") {
            // The group's key or name not found; a sender or project not found is the caller's.
            code = .notFound
        } else {
            code = .invalidArgument
        }
        return .item(ItemResult(code, message: text))
    }

    /// The whole-call failure for a non-200 answer: the statuses the APIs give (§2.5, §3, §4)
    /// by their meaning; any other status, or a 400 or 404 without the API's error body, is an
    /// answer that is not the API's (`unexpectedAnswer`).
    public static func callFailure(_ api: BackendAPI, status: Int, body: Data, retryAfter: Duration?) -> InstanceAPIError {
        let error = FCMErrorBody(apiAnswer: body)
        let message = error?.message ?? excerpt(body)
        switch status {
        case 400 where error != nil: return .badRequest(api: api, message: message)
        case 401: return .unauthenticated(api: api, message: message)
        case 403: return .permissionDenied(api: api, message: message)
        case 429: return .throttled(api: api, retryAfter: retryAfter)
        // A 408: the server did not take the whole request, so nothing of it was carried out
        // (a retried group removal must not read a later NOT_FOUND as its own doing); a 504:
        // the upstream's timeout, after which it may have been.
        case 408: return .unexpectedAnswer(api: api, status: 408, message: "request timeout (HTTP 408): the server did not take the whole request")
        case 504: return .timedOut(api: api, timeout: .zero)
        case 500, 502, 503: return .serverError(api: api, status: status, message: message, retryAfter: retryAfter)
        default: return .unexpectedAnswer(api: api, status: status, message: message)
        }
    }

    /// The longest excerpt of a body that messages quote, in bytes.
    public static let excerptBytes = 200

    /// At most `excerptBytes` of `body` as text, cut at a character boundary and within the
    /// stream-safe limit (`StreamSafeText.clipped`: outcomes quote it, and their readers refuse
    /// text past it), for messages.
    public static func excerpt(_ body: Data) -> String {
        guard body.count > excerptBytes else { return StreamSafeText.clipped(String(decoding: body, as: UTF8.self)) }
        var end = body.startIndex + excerptBytes
        // Back off continuation bytes (10xxxxxx) so that no character is cut in two.
        while end > body.startIndex, body[end] & 0xC0 == 0x80 { end -= 1 }
        return StreamSafeText.clipped(String(decoding: body[body.startIndex..<end], as: UTF8.self)) + "…"
    }

    /// A deletion's `ALREADY_ABSENT` on the API's 404.
    static let notFound = ItemResult(.alreadyAbsent, message: "not found (HTTP 404)")
    /// A deletion's `ALREADY_ABSENT` on the API's 409.
    static let alreadyDeleted = ItemResult(.alreadyAbsent, message: "already deleted (HTTP 409)")

    /// True for an empty body or an empty JSON object (`{}`), blanks aside: a delete's success.
    public static func isEmptyAnswer(_ body: Data) -> Bool {
        JSONParser.isBlankOrEmptyObject(body)
    }

    /// True for a JSON object without an `error` member, blanks aside: what a success that
    /// returns a resource is (a body holding the APIs' error form is an error, whatever the status).
    public static func isObjectAnswer(_ body: Data) -> Bool {
        guard let value = try? JSONValue.parse(bytes: [UInt8](body)), case .object = value else { return false }
        return value[FCMErrorBody.CodingKeys.error] == nil
    }

    /// True when `word` stands in `text` as a word of its own (not inside another: `full` is not in
    /// `successfully`).
    private static func hasWord(_ word: String, in text: String) -> Bool {
        text.split(whereSeparator: { !$0.isLetter }).contains { $0 == word }
    }

    /// True when an FCM v1 topic call's answer (`status`, `body`) is its success: a 200 whose
    /// body is, for a subscribe, the subscription it asked for (a JSON object without an `error`
    /// member whose `name` is `projects/{any one segment}/` followed by `resource` (the raw
    /// registration and topic), byte for byte as it is or once its `%XX` escapes are decoded,
    /// whichever way Google writes a token's `:` or a topic's `%`; other members may stand beside
    /// it), and for an unsubscribe (`resource` nil), nothing or
    /// `{}` (`google.protobuf.Empty`). Another 2xx (Google's APIs answer 200), a page, an error
    /// body, or JSON about anything else (`{"success": false}`, another subscription) is no
    /// receipt, whatever its status says.
    public static func isSubscriptionAnswer(status: Int, body: Data, naming resource: String?) -> Bool {
        guard status == 200 else { return false }
        guard let resource else { return isEmptyAnswer(body) }
        guard let value = try? JSONValue.parse(bytes: [UInt8](body)), case .object = value, value[FCMErrorBody.CodingKeys.error] == nil,
            let name = value[TopicSubscriptionList.Subscription.CodingKeys.name]?.stringValue
        else { return false }
        let projects = "projects/".utf8
        guard name.utf8.starts(with: projects) else { return false }
        let afterProjects = name.utf8.dropFirst(projects.count)
        guard let slash = afterProjects.firstIndex(of: UInt8(ascii: "/")), slash != afterProjects.startIndex else { return false }
        let named = Substring(afterProjects[afterProjects.index(after: slash)...])
        // `resource` is raw (a topic may hold a bare `%`): only the answer's escapes are decoded.
        return named.utf8.elementsEqual(resource.utf8) || named.percentDecoded?.utf8.elementsEqual(resource.utf8) == true
    }

    /// The failure code `name` spells; nil for an unknown name and for a success code's name
    /// (`OK`, `ALREADY_ABSENT`): error texts are read here, and an error is never a success.
    private static func knownCode(named name: String) -> ResultCode? {
        let code = ResultCode(rawValue: name)
        if case .unknown = code { return nil }
        return code.isSuccess || code == .cancelled ? nil : code
    }

    /// FCM's own names, then the taxonomy's failure codes (`code(named:)`: a success code's name
    /// is an unknown error).
    private static func fcmCode(named name: String) -> ResultCode {
        switch name {
        case "UNREGISTERED": .notFound
        case "SENDER_ID_MISMATCH", "THIRD_PARTY_AUTH_ERROR": .invalidArgument
        case "QUOTA_EXCEEDED": .resourceExhausted
        case "DEADLINE_EXCEEDED": .unavailable
        case "UNSPECIFIED_ERROR": .unknown(name)
        default: code(named: name)
        }
    }

    private static func fcmCode(status: Int) -> ResultCode {
        switch status {
        case 400: .invalidArgument
        case 401: .unauthenticated
        case 403: .permissionDenied
        case 404: .notFound
        case 408, 504: .unavailable
        case 409: .alreadyExists
        case 429: .resourceExhausted
        case 500: .internal
        case 503: .unavailable
        default: .unknown("HTTP \(status)")
        }
    }
}
