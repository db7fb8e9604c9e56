import Foundation
import InstanceAPI
import WireJSON

@testable import Pipeline

/// The backend of the worker simulation: for each call it draws an answer from the whole space of
/// what the APIs (or something in front of them) may say — per-item codes of every kind mixed in
/// one answer, whole-call statuses of every class with the API's own error body or a proxy's page,
/// `Retry-After` from 0 to Int.max, no answer, a timeout, no access token — and turns it into a `CallAnswer` through
/// the client's own classifier (`ResultClassifier`, `RetryAfter`), as the client does.
///
/// Items whose text starts with `foreign` belong to another project: a deletion or a lookup of
/// one is always answered 403 naming it, as the API answers such an id, healthy or not. Items
/// starting `stuck` fail the same way on every call, healthy or not, with an answer that says
/// nothing about them: a 403 naming nobody (as IAM refuses), a proxy's 404 page, or a 200 that
/// is not the API's.
struct SimulatedBackend {
    /// The prefix of items of another project.
    static let foreignPrefix = "foreign"
    /// The prefix of items every call fails for, whatever the backend's health.
    static let stuckPrefix = "stuck"

    /// Whole-call statuses drawn, each API's documented ones and what a proxy or a wrong path gives.
    static let statuses = [400, 401, 403, 404, 405, 408, 409, 410, 413, 429, 500, 501, 502, 503, 504]
    /// `Retry-After` headers drawn: none, small, a day, Int.max, nonsense, an HTTP date.
    static let retryAfters: [String?] = [
        nil, nil, "0", "1", "30", "86400", "9223372036854775807", "99999999999999999999", "-5", "soon",
        RetryAfter.httpDate(Date().addingTimeInterval(10)), "Fri, 31 Dec 9999 23:59:59 GMT",
    ]
    /// Per-item codes of a batchAdd/batchRemove answer (nil is `{}`, success).
    static let batchErrors: [String?] = [
        nil, nil, nil, "NOT_FOUND", "INVALID_ARGUMENT", "INTERNAL", "TOO_MANY_TOPICS", "RESOURCE_EXHAUSTED", "UNAVAILABLE", "PERMISSION_DENIED",
        "SOMETHING_NEW", "OK", "ALREADY_ABSENT",
    ]
    /// Per-entry statuses of a batchImport answer.
    static let importStatuses = [
        "OK", "OK", "OK", "Internal Server Error", "Invalid APNs token", "Quota exceeded", "RESOURCE_EXHAUSTED", "Unavailable", "Odd", "ok", "ALREADY_ABSENT",
    ]

    /// What one drawn answer looks like, before classification.
    enum Kind {
        case perItem
        case status
        case transport
        /// No connection could be made: the call is never sent.
        case unreachable
        case timeout
        /// No access token could be had: the call is never sent.
        case credentials
    }

    /// An answer drawn, and what it means, known to the draw and not read from the answer: for
    /// each item of the call, whether the backend said the item's change is done (or, for a
    /// deletion, the data gone). A success code the client reads from an answer that did not say
    /// so is a false receipt.
    struct Drawn {
        var answer: CallAnswer
        var saidDone: [Bool]
        /// The call reached the server, which may have carried it out though its answer did not
        /// say so (a connection reset after the request, no answer in time, a 500, 502, 503 or 504,
        /// a 200 that is not the API's), as the draw knows it, not as the client reads the error.
        var mayHaveBeenCarriedOut = false
    }

    var random: SplitMix64

    /// A chaotic answer to a call of `job` on `api`.
    mutating func answer(_ job: CallJob, api: BackendAPI) -> Drawn {
        if let foreign = foreignAnswer(job, api: api) { return Drawn(answer: foreign, saidDone: none(job)) }
        if let stuck = stuckAnswer(job, api: api) { return Drawn(answer: stuck, saidDone: none(job), mayHaveBeenCarriedOut: Self.stuckAnswerWas200(job)) }
        // A device group's 400 names the group's problem: its key not found (gone, or never there),
        // which a retried removal reads as done only after an attempt that may have removed it.
        if api == .deviceGroup, random.next() % 6 == 0 {
            return Drawn(
                answer: whole(job, api: api, status: 400, body: Data(#"{"error": "notification_key not found"}"#.utf8), retryAfter: nil), saidDone: none(job))
        }
        switch pick([Kind.perItem, .perItem, .perItem, .status, .status, .transport, .unreachable, .timeout, .credentials]) {
        case .perItem: return perItem(job, api: api)
        case .credentials: return Drawn(answer: .failed(.credentials("token endpoint https://oauth2.googleapis.com/token did not answer")), saidDone: none(job))
        case .transport:
            return Drawn(answer: .failed(.transport(api: api, message: "connection reset by peer")), saidDone: none(job), mayHaveBeenCarriedOut: true)
        case .unreachable: return Drawn(answer: .failed(.unreachable(api: api, message: "connection refused")), saidDone: none(job))
        case .timeout: return Drawn(answer: .failed(.timedOut(api: api, timeout: .seconds(30))), saidDone: none(job), mayHaveBeenCarriedOut: true)
        case .status:
            let status = pick(Self.statuses)
            let retryAfter = pick(Self.retryAfters).flatMap { RetryAfter.parse($0) }
            let (body, saysDone) = body(status: status, api: api)
            // The server (or the gateway's upstream) may have acted on these; on a 408, 501 or any
            // 4xx it did not.
            return Drawn(
                answer: whole(job, api: api, status: status, body: body, retryAfter: retryAfter),
                saidDone: Array(repeating: saysDone, count: job.items.count), mayHaveBeenCarriedOut: [500, 502, 503, 504].contains(status))
        }
    }

    /// An answer to `job` while the backend is down for everyone (an outage window): no
    /// connection, no answer in time, a reset, no access token, a 5xx in any body, a 401 or a 403
    /// for the project, a proxy's page, or a 200 that is not the API's. Whatever the client reads
    /// from it must fail the whole call as an outage (`InstanceAPIError.isOutage`), never an item.
    mutating func outage(_ job: CallJob, api: BackendAPI) -> Drawn {
        let nothing = none(job)
        // A 200 whose every item says the backend failed.
        if [.batchAdd, .batchRemove, .batchImport].contains(api), random.next() % 10 == 0,
            let failure = ResultClassifier.backendFailure(api, results: job.items.map { _ in ItemResult(pick([.internal, .unavailable]), message: "down") })
        {
            return Drawn(answer: .failed(failure), saidDone: nothing, mayHaveBeenCarriedOut: true)
        }
        switch random.next() % 9 {
        case 0: return Drawn(answer: .failed(.unreachable(api: api, message: "connection refused")), saidDone: nothing)
        case 1: return Drawn(answer: .failed(.timedOut(api: api, timeout: .seconds(30))), saidDone: nothing, mayHaveBeenCarriedOut: true)
        case 2: return Drawn(answer: .failed(.transport(api: api, message: "connection reset by peer")), saidDone: nothing, mayHaveBeenCarriedOut: true)
        case 3: return Drawn(answer: .failed(.credentials("token endpoint https://oauth2.googleapis.com/token answered 503")), saidDone: nothing)
        case 4:
            let answer = CallAnswer.failed(.malformedResponse(api: api, status: 200, message: "not the API's answer: <html>Sign in to the network</html>"))
            return Drawn(answer: answer, saidDone: nothing, mayHaveBeenCarriedOut: true)
        case 5:
            let unauthenticated = #"{"error": {"code": 401, "message": "Request had invalid authentication credentials.", "status": "UNAUTHENTICATED"}}"#
            let iam = #"{"error": {"code": 403, "message": "The caller does not have permission", "status": "PERMISSION_DENIED"}}"#
            let status = random.next() % 2 == 0 ? 401 : 403
            return Drawn(
                answer: whole(job, api: api, status: status, body: Data((status == 401 ? unauthenticated : iam).utf8), retryAfter: nil), saidDone: nothing)
        case 6:
            let page = Data("<html><body><h1>404</h1>The requested URL was not found on this server.</body></html>".utf8)
            return Drawn(answer: whole(job, api: api, status: 404, body: page, retryAfter: nil), saidDone: nothing)
        default:
            let status = pick([500, 502, 503, 504])
            let bodies = [
                #"{"error": {"code": \#(status), "message": "The service is currently unavailable.", "status": "UNAVAILABLE"}}"#,
                "<html><body>\(status) Server Error</body></html>", "", #"{"error": "InternalServerError"}"#,
            ]
            let retryAfter = pick(Self.retryAfters).flatMap { RetryAfter.parse($0) }
            return Drawn(
                answer: whole(job, api: api, status: status, body: Data(pick(bodies).utf8), retryAfter: retryAfter), saidDone: nothing,
                mayHaveBeenCarriedOut: true)
        }
    }

    /// Nothing said done, for each item of `job`.
    private func none(_ job: CallJob) -> [Bool] { Array(repeating: false, count: job.items.count) }

    /// The registration token the backend gives APNs token `item`: its own, the same on every
    /// import (§2.4), so an answer given to another item reads as another token.
    static func registration(of item: String) -> String { "reg-" + item }

    /// A healthy answer to `job`: every item OK, but items of another project, which are refused
    /// whatever the backend's health.
    func healthy(_ job: CallJob, api: BackendAPI) -> Drawn {
        if let foreign = foreignAnswer(job, api: api) { return Drawn(answer: foreign, saidDone: none(job)) }
        if let stuck = stuckAnswer(job, api: api) { return Drawn(answer: stuck, saidDone: none(job), mayHaveBeenCarriedOut: Self.stuckAnswerWas200(job)) }
        let done = Array(repeating: true, count: job.items.count)
        if job.op == .apnsImport {
            return Drawn(answer: .items(RunLengthList(job.items.map { ItemAnswer(.ok, value: Self.registration(of: $0)) })), saidDone: done)
        }
        return Drawn(answer: .items(RunLengthList(repeating: ItemAnswer(.ok, value: nil), count: job.items.count)), saidDone: done)
    }

    // MARK: - Drawing

    private mutating func pick<T>(_ choices: [T]) -> T {
        choices[Int(random.next() % UInt64(choices.count))]
    }

    private mutating func perItem(_ job: CallJob, api: BackendAPI) -> Drawn {
        var answers: [ItemAnswer] = []
        var saidDone: [Bool] = []
        switch api {
        case .batchAdd, .batchRemove:
            var index = 0
            while index < job.items.count {
                let run = min(job.items.count - index, 1 + Int(random.next() % 300))
                let error = pick(Self.batchErrors)
                answers += Array(repeating: ItemAnswer(ResultClassifier.batchItem(error: error)), count: run)
                saidDone += Array(repeating: error == nil, count: run)
                index += run
            }
        case .batchImport:
            for item in job.items {
                let status = pick(Self.importStatuses)
                let result = ResultClassifier.importStatus(status)
                answers.append(ItemAnswer(result, value: result.code == .ok ? Self.registration(of: item) : nil))
                saidDone.append(status == "OK")
            }
        default:
            // A single-item or group API answered 200: success.
            answers = Array(repeating: ItemAnswer(.ok, value: api == .deviceGroup ? "key" : nil), count: job.items.count)
            saidDone = Array(repeating: true, count: job.items.count)
        }
        // A batch answer whose every item says the backend failed is the whole call's failure, as
        // the client reads it (the backend may have done part of it).
        if [.batchAdd, .batchRemove, .batchImport].contains(api), let failure = ResultClassifier.backendFailure(api, results: answers.map(\.result)) {
            return Drawn(answer: .failed(failure), saidDone: none(job), mayHaveBeenCarriedOut: true)
        }
        // Now and then an answer lists fewer results than the call had items.
        if answers.count > 1, random.next() % 20 == 0 { answers.removeLast(1 + Int(random.next() % UInt64(answers.count - 1))) }
        return Drawn(answer: .items(RunLengthList(answers)), saidDone: saidDone)
    }

    /// A body for a non-200 `status` of `api`, and whether it says the item's change is done: the
    /// API's own error for the status (a deletion's 404 and 409 say the data is gone; a
    /// subscribe's 409 says the token is subscribed), a legacy string error, a page, nothing, or
    /// the API's error form about something else (another project, a method, another resource),
    /// which says nothing of the item.
    private mutating func body(status: Int, api: BackendAPI) -> (Data, saysDone: Bool) {
        let apiOwn = (api == .deleteInstance && (status == 404 || status == 409)) || (api == .fcmSubscribe && status == 409)
        switch random.next() % 5 {
        case 0:
            // Now and then long words, which failed items' messages carry into outcomes.
            let words = random.next() % 4 == 0 ? String(repeating: Self.message(status) + " ", count: 12) : Self.message(status)
            return (Data(#"{"error": {"code": \#(status), "message": "\#(words)", "status": "\#(Self.statusName(status))"}}"#.utf8), apiOwn)
        case 1: return (Data(#"{"error": "\#(Self.statusName(status))"}"#.utf8), apiOwn)
        case 2: return (Data("<html><body><h1>\(status)</h1>The requested URL was not found on this server. That’s all we know.</body></html>".utf8), false)
        case 3: return (Data(), false)
        default:
            let other = pick(Self.aboutSomethingElse(status: status))
            // A subscribe's 409 in the API's form with ALREADY_EXISTS is its success whatever its
            // words (api-reference §2.6, as the Admin SDKs read it).
            return (Data(other.body.utf8), api == .fcmSubscribe && status == 409 && other.alreadyExists)
        }
    }

    /// Errors in the API's form, on `status`, about something other than any item of the call;
    /// `alreadyExists` when one is the API's `ALREADY_EXISTS` on it (not a front end's routing error).
    static func aboutSomethingElse(status: Int) -> [(body: String, alreadyExists: Bool)] {
        let name = statusName(status)
        let resource =
            #""details": [{"@type": "type.googleapis.com/google.rpc.ResourceInfo", "resourceName": "projects/p/installations/cAnotherFid0000000000x"}]"#
        let service =
            #""details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "SERVICE_DISABLED", "domain": "googleapis.com", "metadata": {"consumer": "projects/123"}}]"#
        return [
            (#"{"error": {"code": \#(status), "message": "Project 'other-project' not found.", "status": "\#(name)"}}"#, name == "ALREADY_EXISTS"),
            (#"{"error": {"code": \#(status), "message": "Method not found.", "status": "\#(name)"}}"#, false),
            (#"{"error": {"code": \#(status), "message": "\#(message(status))", "status": "\#(name)", \#(resource)}}"#, name == "ALREADY_EXISTS"),
            (#"{"error": {"code": \#(status), "message": "\#(message(status))", "status": "\#(name)", \#(service)}}"#, name == "ALREADY_EXISTS"),
            (#"{"error": {"code": \#(status), "message": "The operation was aborted.", "status": "ABORTED"}}"#, false),
            (#"{"error": "Not Found"}"#, false),
            (#"{"error": "OK"}"#, false),
            (#"{"error": "ALREADY_ABSENT"}"#, false),
        ]
    }

    /// Words for `status` in the structured errors: Google's for 404, 409 and 400, and the 400's for
    /// the rest (words about no other thing, so the classifier's per-item paths are reached).
    private static func message(_ status: Int) -> String {
        switch status {
        case 404: "Requested entity was not found."
        case 409: "Requested entity already exists."
        default: "Request contains an invalid argument."
        }
    }

    private static func statusName(_ status: Int) -> String {
        switch status {
        case 400: "INVALID_ARGUMENT"
        case 401: "UNAUTHENTICATED"
        case 403: "PERMISSION_DENIED"
        case 404: "NOT_FOUND"
        case 409: "ALREADY_EXISTS"
        case 429: "RESOURCE_EXHAUSTED"
        case 503: "UNAVAILABLE"
        default: "INTERNAL"
        }
    }

    /// The 403 an id of another project gets, naming it, for the single-item calls that take one.
    private func foreignAnswer(_ job: CallJob, api: BackendAPI) -> CallAnswer? {
        guard api == .deleteInstance || api == .instanceInfo, job.items.count == 1, job.items[0].hasPrefix(Self.foreignPrefix) else { return nil }
        let body = Data(#"{"error": "Instance ID \"\#(job.items[0])\": project does not match instance ID"}"#.utf8)
        return whole(job, api: api, status: 403, body: body, retryAfter: nil)
    }

    /// The kind of stuck answer `job`'s item gets: 0 a 403, 1 a page, 2 a 200 that is not the API's
    /// (on a batch API, one whose item is `INTERNAL`).
    private static func stuckKind(_ job: CallJob) -> Int { job.items[0].utf8.last.map { Int($0) % 3 } ?? 0 }

    /// Whether `job`'s stuck answer is a 200 (after which the call may have been carried out).
    private static func stuckAnswerWas200(_ job: CallJob) -> Bool { stuckKind(job) == 2 }

    /// The same failure on every call of a stuck item, chosen by its text.
    private func stuckAnswer(_ job: CallJob, api: BackendAPI) -> CallAnswer? {
        guard job.items.count == 1, job.items[0].hasPrefix(Self.stuckPrefix) else { return nil }
        switch Self.stuckKind(job) {
        case 0:
            let iam = Data(#"{"error": {"code": 403, "message": "The caller does not have permission", "status": "PERMISSION_DENIED"}}"#.utf8)
            return whole(job, api: api, status: 403, body: iam, retryAfter: nil)
        case 1: return whole(job, api: api, status: 404, body: Data("<html>Not Found</html>".utf8), retryAfter: nil)
        default:
            // On a batch API, a 200 whose item says the backend failed: a token it always fails on.
            if [.batchAdd, .batchRemove, .batchImport].contains(api), let failure = ResultClassifier.backendFailure(api, results: [ItemResult(.internal)]) {
                return .failed(failure)
            }
            return .failed(.malformedResponse(api: api, status: 200, message: "not the API's answer: <html>OK</html>"))
        }
    }

    /// A non-200 answer to the whole call, classified as the client classifies it.
    private func whole(_ job: CallJob, api: BackendAPI, status: Int, body: Data, retryAfter: Duration?) -> CallAnswer {
        let verdict = Self.classify(api: api, item: job.items[0], status: status, body: body, retryAfter: retryAfter)
        switch verdict {
        case .call(let error): return .failed(error)
        case .item(let result): return .items(RunLengthList(repeating: ItemAnswer(result), count: job.items.count))
        }
    }

    /// The client's classification of a non-200 answer of `api` about `item`.
    static func classify(api: BackendAPI, item: String, status: Int, body: Data, retryAfter: Duration?) -> ResultClassifier.Verdict {
        switch api {
        case .deleteInstance: return ResultClassifier.deleteInstance(id: item, status: status, body: body, retryAfter: retryAfter)
        case .fcmSubscribe, .fcmUnsubscribe, .fcmListTopics: return ResultClassifier.fcmV1(api, status: status, body: body, retryAfter: retryAfter)
        case .deviceGroup, .groupExport: return ResultClassifier.deviceGroup(status: status, body: body, retryAfter: retryAfter)
        default: return ResultClassifier.instanceID(api, item: item, status: status, body: body, retryAfter: retryAfter)
        }
    }
}
