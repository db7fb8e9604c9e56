import Foundation

/// The one place that turns what the backend said into the result taxonomy.
///
/// Per-item error strings (§2.3, §2.4), HTTP statuses of each API (§2.5, §2.6, §3, §4) and FCM v1
/// error bodies all map here, so the client, the pipeline and the tests agree on every code.
public enum ResultClassifier {
    /// What a non-200 answer means: one item's result (single-item calls), or the whole call failed.
    public enum Verdict: Sendable, Equatable {
        case item(ItemResult)
        case call(InstanceAPIError)
    }

    /// A per-item entry of a batchAdd/batchRemove answer: `{}` is success, `{"error": X}` is X.
    public static func batchItem(error: String?) -> ItemResult {
        guard let error else { return .ok }
        return ItemResult(code(named: error), message: error)
    }

    /// A batchImport entry's `status`: `OK` or an error text.
    public static func importStatus(_ status: String) -> ItemResult {
        if status == "OK" { return .ok }
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

    /// A taxonomy code from an error name; unknown names are kept verbatim.
    public static func code(named name: String) -> ResultCode {
        knownCode(named: name) ?? .unknown(verbatim: name)
    }

    /// A non-200 answer of an Instance ID call (§2.5). For single-item calls (info, relation) a
    /// 404 is the item's `NOT_FOUND`; everything else concerns the whole call.
    public static func instanceID(
        _ api: BackendAPI, status: Int, body: String, retryAfter: Duration?
    ) -> Verdict {
        if status == 404 && (api == .instanceInfo || api == .topicRelation) {
            return .item(ItemResult(.notFound, message: body.isEmpty ? "HTTP 404" : body))
        }
        return .call(callFailure(api, status: status, message: body, retryAfter: retryAfter))
    }

    /// A non-2xx answer of the FCM v1 per-token topic API (§2.6).
    ///
    /// On subscribe, 409 or `ALREADY_EXISTS` is success. The code comes from a string `error`,
    /// then an `FcmError` detail's `errorCode`, then the error's `status`, then the HTTP status.
    /// 401 and a bare 403 concern the whole system and fail the call; 429 and 5xx fail the call
    /// as retryable; everything else is this token's result.
    public static func fcmV1(
        _ api: BackendAPI, status: Int, body: Data, retryAfter: Duration?
    ) -> Verdict {
        let parsed = try? JSONDecoder().decode(FCMErrorBody.self, from: body)
        let named = parsed?.code
        let message = parsed?.error?.message ?? String(decoding: body, as: UTF8.self)
        if api == .fcmSubscribe && (status == 409 || named == "ALREADY_EXISTS") {
            return .item(.ok)
        }
        let code = named.map(fcmCode(named:)) ?? fcmCode(status: status)
        switch (status, code) {
        case (401, _):
            return .call(.unauthenticated(api: api, message: message))
        case (403, .permissionDenied):
            return .call(.permissionDenied(api: api, message: message))
        case (429, _), (500...599, _), (408, _):
            return .call(callFailure(api, status: status, message: message, retryAfter: retryAfter))
        default:
            return .item(ItemResult(code, message: message))
        }
    }

    /// A non-200 answer of the installation / instance-ID delete (§3): 404 and 409 mean the data
    /// is gone (`ALREADY_ABSENT`), 400 is this id's `INVALID_ARGUMENT`; others fail the call.
    public static func deleteInstance(status: Int, body: String, retryAfter: Duration?) -> Verdict {
        switch status {
        case 404, 409: .item(ItemResult(.alreadyAbsent, message: status == 404 ? "not found" : "already deleted"))
        case 400: .item(ItemResult(.invalidArgument, message: body))
        default: .call(callFailure(.deleteInstance, status: status, message: body, retryAfter: retryAfter))
        }
    }

    /// A non-200 answer of a device-group call (§4): a 400 names the group's problem in its body.
    public static func deviceGroup(status: Int, body: String, retryAfter: Duration?) -> Verdict {
        guard status == 400 else {
            return .call(callFailure(.deviceGroup, status: status, message: body, retryAfter: retryAfter))
        }
        let text = (try? JSONDecoder().decode(DeviceGroupErrorBody.self, from: Data(body.utf8)).error) ?? body
        let lower = text.lowercased()
        let code: ResultCode
        if lower.contains("already exists") {
            code = .alreadyExists
        } else if lower.contains("maximum") || lower.contains("full") {
            code = .groupFull
        } else if lower.contains("not found") {
            code = .notFound
        } else {
            code = .invalidArgument
        }
        return .item(ItemResult(code, message: text))
    }

    /// The whole-call failure for an HTTP status.
    public static func callFailure(_ api: BackendAPI, status: Int, message: String, retryAfter: Duration?) -> InstanceAPIError {
        switch status {
        case 400: .badRequest(api: api, message: message)
        case 401: .unauthenticated(api: api, message: message)
        case 403: .permissionDenied(api: api, message: message)
        case 429: .throttled(api: api, retryAfter: retryAfter)
        case 408, 504: .timedOut(api: api, timeout: .zero)
        default: .serverError(api: api, status: status, message: message, retryAfter: retryAfter)
        }
    }

    private static func knownCode(named name: String) -> ResultCode? {
        let code = ResultCode(rawValue: name)
        if case .unknown = code { return nil }
        return code
    }

    /// FCM's own names, then the taxonomy's.
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
