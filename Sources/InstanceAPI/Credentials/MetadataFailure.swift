/// Why a probe of the metadata server gave no project id, and what that says.
struct MetadataFailure: Error, Equatable, CustomStringConvertible {
    /// What the probe met.
    enum Kind: Equatable {
        /// No server is there: its name does not resolve, or (off Google Cloud) nothing listens.
        /// Nothing is configured, not an outage.
        case absent
        /// A server that took the connection and gave no answer in time: an outage.
        case unanswered
        /// A server that may not be ready yet: one that refuses connections where the metadata
        /// server must be (on Google Cloud), or answers 404, 429 or a 5xx. GKE's refuses a new
        /// pod's first connections and answers errors for its first seconds. Probed again for
        /// `MetadataProbing.readyWindow`; then an outage, but for a 404, which is a server that
        /// has no project id for this workload.
        case notReady(outage: Bool)
        /// An answer that is not a project id, and will not become one (another status, an empty
        /// body): nothing usable is configured.
        case answered
    }

    /// What went wrong, for the operator.
    var description: String
    /// What the probe met.
    var kind: Kind

    init(_ description: String, _ kind: Kind) {
        self.description = description
        self.kind = kind
    }

    /// The failure of an answer with `status` (not 200) and its `description`.
    static func answered(status: Int, _ description: String) -> MetadataFailure {
        switch status {
        case 404: MetadataFailure(description, .notReady(outage: false))
        case 429, 500...599: MetadataFailure(description, .notReady(outage: true))
        default: MetadataFailure(description, .answered)
        }
    }

    /// Whether a server that failed so is failing (an outage to wait out), as opposed to absent
    /// or configured without what is asked.
    var isOutage: Bool {
        switch kind {
        case .unanswered, .notReady(outage: true): true
        case .absent, .answered, .notReady(outage: false): false
        }
    }
}
