import Foundation

/// How the metadata server is probed, from the variables google-auth reads (this reads the
/// timeout as a decimal number of seconds, and refuses a value it cannot use where google-auth
/// falls back to its default):
/// how long one probe may take, and how many times a server that does not answer is probed (a
/// busy node can be slow to answer the first).
struct MetadataProbing: Equatable {
    /// The variable that sets `timeout`, in seconds.
    static let timeoutVariable = "GCE_METADATA_TIMEOUT"
    /// The variable that sets `probes`.
    static let probesVariable = "GCE_METADATA_DETECT_RETRIES"

    /// How long one probe may take: 3 s unless set.
    var timeout: Duration = .seconds(3)
    /// How many times a server that does not answer is probed: 3 unless set.
    var probes = 3
    /// How long a server that may not be ready yet (`MetadataFailure.Kind.notReady`) is probed
    /// again, from the first probe: GKE's metadata server "takes a few seconds to start accepting
    /// requests on a new Pod" (Google's Workload Identity documentation), and a pod that gave up
    /// sooner would be restarted into a crash loop, or a systemd unit left failed.
    var readyWindow: Duration = .seconds(30)
    /// The pause before probing again a server that was not there or not ready.
    static let pause = Duration.seconds(1)

    /// Whether to probe again after a probe failed so, `elapsed` after the first began, `probe`
    /// probes having found no server or no answer: a server not ready yet while the ready window
    /// lasts; one absent or silent until `probes` such probes were made; an answer that is not a
    /// project id, never.
    func probesAgain(after failure: MetadataFailure.Kind, probe: Int, elapsed: Duration) -> Bool {
        switch failure {
        case .notReady: elapsed + Self.pause < readyWindow
        case .absent, .unanswered: probe < probes
        case .answered: false
        }
    }

    /// The probing `environment` sets; an empty variable is unset.
    /// - Throws: `CredentialsError.invalidSetting` naming a variable that is not a number of
    ///   seconds above 0 and at most 600, or a whole number of probes from 1 to 100.
    init(_ environment: [String: String]) throws(CredentialsError) {
        if let text = environment[Self.timeoutVariable], !text.isEmpty {
            guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= 600 else {
                throw .invalidSetting(variable: Self.timeoutVariable, value: text, reason: "not a number of seconds above 0 and at most 600")
            }
            timeout = .milliseconds(Int64((seconds * 1_000).rounded(.up)))
        }
        if let text = environment[Self.probesVariable], !text.isEmpty {
            guard let probes = Int(text), (1...100).contains(probes) else {
                throw .invalidSetting(variable: Self.probesVariable, value: text, reason: "not a whole number of probes from 1 to 100")
            }
            self.probes = probes
        }
    }
}
