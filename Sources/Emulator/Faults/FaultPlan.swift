/// What the emulator gets wrong on purpose. Set from `iidbatch emulator` flags, and replaceable at
/// runtime with `PUT /emulator/v1/faults` (this type's JSON).
public struct FaultPlan: Codable, Sendable, Hashable {
    /// A window during which every backend call answers 503.
    public struct Outage: Codable, Sendable, Hashable {
        /// Seconds after the plan takes effect that the outage starts.
        public var startSeconds: Double
        /// How long it lasts, in seconds.
        public var durationSeconds: Double

        /// An outage window.
        public init(startSeconds: Double, durationSeconds: Double) {
            self.startSeconds = startSeconds
            self.durationSeconds = durationSeconds
        }
    }

    /// Per-item error rates by result code name (`"INTERNAL": 0.1`): each item of every call
    /// fails with that code with that probability.
    public var itemErrors: [String: Double]
    /// Whole-call error rates by HTTP status (`"500": 0.05`, `"503": 0.02`).
    public var callErrors: [String: Double]
    /// Calls per second allowed, by API name (`iid.batchAdd`) or `*` for each API. Excess batch
    /// calls answer every item `RESOURCE_EXHAUSTED`; other calls answer 429 with `Retry-After`.
    public var quota: [String: Double]
    /// Added latency of every call, in milliseconds.
    public var latencyMilliseconds: Double
    /// Extra random latency of up to this many milliseconds.
    public var jitterMilliseconds: Double
    /// Outage windows, relative to when the plan took effect.
    public var outages: [Outage]
    /// When true every access token is refused (401): credentials revoked.
    public var rejectCredentials: Bool
    /// Whole-call answers that are not the API's, by HTTP status (`"404": 1`): an HTML page, as a
    /// proxy, a wrong base path or a retired endpoint answers.
    public var pageErrors: [String: Double]
    /// The `Retry-After` sent, verbatim (`"86400"`, an HTTP date, `"9223372036854775807"`), with
    /// throttled calls, outages and injected call failures; nil sends the seconds left.
    public var retryAfter: String?

    /// A plan; the default injects nothing.
    public init(
        itemErrors: [String: Double] = [:], callErrors: [String: Double] = [:], quota: [String: Double] = [:],
        latencyMilliseconds: Double = 0, jitterMilliseconds: Double = 0, outages: [Outage] = [], rejectCredentials: Bool = false,
        pageErrors: [String: Double] = [:], retryAfter: String? = nil
    ) {
        self.itemErrors = itemErrors
        self.callErrors = callErrors
        self.quota = quota
        self.latencyMilliseconds = latencyMilliseconds
        self.jitterMilliseconds = jitterMilliseconds
        self.outages = outages
        self.rejectCredentials = rejectCredentials
        self.pageErrors = pageErrors
        self.retryAfter = retryAfter
    }

    enum CodingKeys: String, CodingKey {
        case itemErrors, callErrors, quota, latencyMilliseconds, jitterMilliseconds, outages, rejectCredentials, pageErrors, retryAfter
    }

    /// Every field is optional on the wire (`{"itemErrors": {"INTERNAL": 0.2}}` is a whole plan);
    /// absent ones inject nothing.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            itemErrors: try c.decodeIfPresent([String: Double].self, forKey: .itemErrors) ?? [:],
            callErrors: try c.decodeIfPresent([String: Double].self, forKey: .callErrors) ?? [:],
            quota: try c.decodeIfPresent([String: Double].self, forKey: .quota) ?? [:],
            latencyMilliseconds: try c.decodeIfPresent(Double.self, forKey: .latencyMilliseconds) ?? 0,
            jitterMilliseconds: try c.decodeIfPresent(Double.self, forKey: .jitterMilliseconds) ?? 0,
            outages: try c.decodeIfPresent([Outage].self, forKey: .outages) ?? [],
            rejectCredentials: try c.decodeIfPresent(Bool.self, forKey: .rejectCredentials) ?? false,
            pageErrors: try c.decodeIfPresent([String: Double].self, forKey: .pageErrors) ?? [:],
            retryAfter: try c.decodeIfPresent(String.self, forKey: .retryAfter))
    }

    /// Checks rates are in 0...1, codes and statuses known, quotas and latencies positive.
    ///
    /// - Throws: `EmulatorError.invalidFault` naming the bad entry.
    public func validate() throws(EmulatorError) {
        for (code, rate) in itemErrors {
            guard (0...1).contains(rate) else { throw .invalidFault("item error rate \(code)=\(rate) is not within 0...1") }
            guard !code.isEmpty, code.allSatisfy({ $0.isUppercase || $0 == "_" }) else {
                throw .invalidFault("item error code '\(code)' is not an error name like INTERNAL")
            }
        }
        for (kind, errors) in [("call", callErrors), ("page", pageErrors)] {
            for (status, rate) in errors {
                guard let code = Int(status), (400...599).contains(code) else {
                    throw .invalidFault("\(kind) error status '\(status)' is not an HTTP error status")
                }
                guard (0...1).contains(rate) else { throw .invalidFault("\(kind) error rate \(status)=\(rate) is not within 0...1") }
            }
        }
        if let retryAfter, retryAfter.isEmpty || retryAfter.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            throw .invalidFault("retry-after '\(retryAfter)' must be a non-empty header value")
        }
        for (api, rate) in quota where rate <= 0 {
            throw .invalidFault("quota \(api)=\(rate) must be positive")
        }
        guard latencyMilliseconds >= 0, jitterMilliseconds >= 0 else { throw .invalidFault("latency and jitter must not be negative") }
        for outage in outages where outage.startSeconds < 0 || outage.durationSeconds <= 0 {
            throw .invalidFault("outage \(outage.startSeconds)s+\(outage.durationSeconds)s must start at 0 or later and last")
        }
    }
}
