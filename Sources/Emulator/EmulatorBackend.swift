import Foundation
import InstanceAPI
import Synchronization

/// Behaves like the backend APIs: serves every endpoint of api-reference.md at Google's paths
/// with Google's JSON, statuses and limits, plus `POST /token` and an admin API under
/// `/emulator/v1/` for seeding, reading state back and changing faults at runtime.
///
/// Transport-independent: `EmulatorServer` feeds it real HTTP requests.
public final class EmulatorBackend: Sendable {
    /// How it was configured.
    public let configuration: EmulatorConfiguration
    let state: Mutex<EmulatorState>
    let faults: FaultInjector
    let auth: EmulatorAuth
    /// Projects this emulator serves: its own, and any a key was made for.
    let projects: Mutex<Set<String>>

    /// A backend with empty state.
    public init(configuration: EmulatorConfiguration) throws(EmulatorError) {
        try configuration.faults.validate()
        self.configuration = configuration
        self.state = Mutex(EmulatorState())
        self.faults = FaultInjector(plan: configuration.faults, seed: configuration.seed)
        self.auth = EmulatorAuth(tokenLifetime: configuration.tokenLifetimeSeconds)
        self.projects = Mutex([configuration.projectID])
    }

    /// Makes a service-account key the emulator accepts, for `project` (its own by default),
    /// whose `token_uri` is `tokenURI`. Returns the key file's JSON.
    public func makeServiceAccountKey(tokenURI: String, project: String? = nil) throws -> Data {
        let project = project ?? configuration.projectID
        projects.withLock { _ = $0.insert(project) }
        return try auth.makeKey(project: project, clientEmail: "iidbatch@\(project).iam.gserviceaccount.com", tokenURI: tokenURI)
    }

    /// Trusts an existing key file, so a key written by an earlier run keeps working.
    public func trustServiceAccountKey(_ json: Data) throws {
        let credentials = try ServiceAccountCredentials(json: json)
        projects.withLock { _ = $0.insert(credentials.projectID) }
        try auth.trust(keyFile: json)
    }

    /// The faults in force.
    public var faultPlan: FaultPlan { faults.plan }

    /// Replaces the faults; outage windows count from now.
    public func setFaults(_ plan: FaultPlan) throws(EmulatorError) {
        try plan.validate()
        faults.setPlan(plan)
    }

    /// Creates registration tokens and installations.
    public func seed(_ request: SeedRequest) {
        let project = request.project ?? configuration.projectID
        state.withLock { $0.seed(request, project: project) }
    }

    /// What was served so far.
    public var stats: EmulatorStats { state.withLock { $0.stats } }

    /// Forgets every issued access token (the next call with one gets 401).
    public func revokeAccessTokens() { auth.revokeAllTokens() }

    /// Answers one request.
    public func handle(_ request: EmulatorRequest) async -> EmulatorResponse {
        let path = request.path
        switch (request.method, path.first) {
        case ("POST", "token") where path.count == 1:
            return auth.tokenEndpoint(request)
        case (_, "emulator"):
            return admin(request)
        default:
            break
        }
        guard let route = Route(request) else {
            return .error(404, "no such endpoint: \(request.method) /\(path.joined(separator: "/"))")
        }
        guard let project = auth.project(ofBearer: request.headers["authorization"], rejectAll: faults.rejectsCredentials) else {
            return record(
                route.api, items: 0, .googleError(401, "UNAUTHENTICATED", "Request had invalid authentication credentials. Expected OAuth 2 access token."))
        }
        let (decision, latency) = faults.decide(route.api)
        if latency > .zero { try? await Task.sleep(for: latency) }
        switch decision {
        case .outage(let seconds):
            return record(
                route.api, items: 0, .googleError(503, "UNAVAILABLE", "The service is currently unavailable.", headers: [("Retry-After", "\(seconds)")]))
        case .fail(let status):
            let name = status == 500 ? "INTERNAL" : status == 503 ? "UNAVAILABLE" : "UNKNOWN"
            return record(route.api, items: 0, .googleError(status, name, "Injected failure."))
        case .throttle(let seconds) where !route.api.answersQuotaPerItem:
            return record(route.api, items: 0, .googleError(429, "RESOURCE_EXHAUSTED", "Quota exceeded.", headers: [("Retry-After", "\(seconds)")]))
        case .throttle, .proceed:
            return serve(route, request, project: project, throttled: decision != .proceed)
        }
    }

    private func serve(_ route: Route, _ request: EmulatorRequest, project: String, throttled: Bool) -> EmulatorResponse {
        switch route {
        case .info(let token): instanceInfo(token, request, project: project)
        case .relation(let token, let topic): relation(token, topic, request, project: project)
        case .batchAdd: topicBatch(.batchAdd, request, project: project, throttled: throttled)
        case .batchRemove: topicBatch(.batchRemove, request, project: project, throttled: throttled)
        case .batchImport: batchImport(request, project: project, throttled: throttled)
        case .fcmSubscribe(let path, let token): fcmTopic(.fcmSubscribe, pathProject: path, token: token, topic: request.query["topic_name"], project: project)
        case .fcmUnsubscribe(let path, let token, let topic): fcmTopic(.fcmUnsubscribe, pathProject: path, token: token, topic: topic, project: project)
        case .delete(let path, let id): deleteInstance(pathProject: path, id: id, project: project)
        case .groups: deviceGroup(request, project: project)
        case .send: groupSend(request, project: project)
        }
    }

    /// Counts the call and returns `response`.
    func record(_ api: BackendAPI, items: Int, codes: [String] = [], _ response: EmulatorResponse) -> EmulatorResponse {
        state.withLock { state in
            var stats = state.stats.apis[api.rawValue] ?? EmulatorStats.API()
            stats.calls += 1
            stats.items += items
            stats.maxItemsPerCall = max(stats.maxItemsPerCall, items)
            stats.statuses[String(response.status), default: 0] += 1
            for code in codes { stats.itemCodes[code, default: 0] += 1 }
            state.stats.apis[api.rawValue] = stats
        }
        return response
    }

    /// The HTTP status and Google error name for an injected per-item fault on a single-item call.
    static func status(forItemError code: String) -> Int {
        switch code {
        case "NOT_FOUND": 404
        case "INVALID_ARGUMENT": 400
        case "RESOURCE_EXHAUSTED": 429
        case "UNAVAILABLE": 503
        case "PERMISSION_DENIED": 403
        default: 500
        }
    }

    /// Today in UTC as `yyyy-MM-dd`, formatted once a day (a formatter per call cost 10 % of a batch).
    static var today: String {
        let day = Int(Date().timeIntervalSince1970 / 86_400)
        return todayCache.withLock { cache in
            if cache.day != day {
                let formatter = DateFormatter()
                formatter.locale = Locale(identifier: "en_US_POSIX")
                formatter.timeZone = TimeZone(identifier: "UTC")
                formatter.dateFormat = "yyyy-MM-dd"
                cache = (day, formatter.string(from: Date(timeIntervalSince1970: Double(day) * 86_400)))
            }
            return cache.text
        }
    }

    private static let todayCache = Mutex<(day: Int, text: String)>((-1, ""))
}

extension BackendAPI {
    /// Batch APIs answer an exceeded quota per item (RESOURCE_EXHAUSTED), as Google's do.
    var answersQuotaPerItem: Bool { self == .batchAdd || self == .batchRemove || self == .batchImport }
}
