import Foundation
import InstanceAPI
import Synchronization

/// Behaves like the backend APIs: every endpoint of docs/api-reference.md with Google's JSON, statuses
/// and limits, plus `POST /token` and an admin API under `/emulator/v1/` for seeding, reading
/// state back and changing faults at runtime.
///
/// It holds the state, the auth and the faults, and the handlers of each API's own work;
/// `EmulatorRouter` puts them at Google's paths behind middleware for auth, faults and statistics.
public final class EmulatorBackend: Sendable {
    /// How it was configured.
    public let configuration: EmulatorConfiguration
    let state: SleepingLock<EmulatorState>
    /// The calls answered, under a lock of their own.
    let calls = Mutex(CallLog())
    let faults: FaultInjector
    let auth: EmulatorAuth
    /// Projects this emulator serves: its own, and any a key was made for.
    let projects: Mutex<Set<String>>
    /// TCP connections accepted since the server started.
    private let connectionsAccepted = Atomic(0)

    /// A backend with empty state.
    public init(configuration: EmulatorConfiguration) throws(EmulatorError) {
        try configuration.faults.validate()
        self.configuration = configuration
        self.state = SleepingLock(EmulatorState())
        self.faults = FaultInjector(plan: configuration.faults, seed: configuration.seed)
        self.auth = EmulatorAuth(tokenLifetime: configuration.tokenLifetimeSeconds)
        self.projects = Mutex([configuration.projectID])
    }

    /// The scopes the last token request on the metadata server's path asked for; nil before one,
    /// or when it named none.
    public var lastMetadataScopes: [String]? { auth.lastMetadataScopes }

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

    /// Whether installation `id` exists and is not deleted: how tests see that a deletion did,
    /// or did not, happen.
    public func isLive(installation id: String) -> Bool {
        state.withLock { $0.installations[id].map { !$0.deleted } ?? false }
    }

    /// What was served so far.
    public var stats: EmulatorStats {
        var stats = calls.withLock { $0.stats }
        stats.connections = connectionsAccepted.load(ordering: .relaxed)
        return stats
    }

    /// Counts one TCP connection accepted by the server.
    func connectionAccepted() {
        connectionsAccepted.add(1, ordering: .relaxed)
    }

    /// Forgets every issued access token (the next call with one gets 401).
    public func revokeAccessTokens() { auth.revokeAllTokens() }

    /// When the calls answered so far arrived, in order of arrival (the latest 100,000 or more):
    /// how tests see whether and how fast a client called.
    public func callArrivals(after instant: ContinuousClock.Instant) -> [ContinuousClock.Instant] {
        calls.withLock { $0.arrivals.filter { $0 > instant } }.sorted()
    }

    /// Counts one call of `api` that arrived at `arrivedAt`, was answered `status`, carried
    /// `items` items, and whose items ended on `codes`. The codes are tallied before the log's
    /// lock is taken (a batch's are mostly one code), so the lock is held for a few updates.
    func count(_ api: BackendAPI, arrivedAt: ContinuousClock.Instant, status: Int, items: Int, codes: [String], throttled: Bool) {
        var tally: [(code: String, count: Int)] = []
        for code in codes {
            if tally.last?.code == code { tally[tally.count - 1].count += 1 } else { tally.append((code, 1)) }
        }
        calls.withLock { $0.record(api, arrivedAt: arrivedAt, status: status, items: items, codes: tally, throttled: throttled) }
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
