import UnixSignals

/// Waits for SIGINT or SIGTERM (swift-service-lifecycle's `UnixSignalsSequence`), for the
/// commands that run until stopped but have no services of their own: `broker`, `emulator` and
/// `outcomes --follow`. `run` stops through its `ServiceGroup`.
package enum Signals {
    /// Returns the name of the first SIGINT or SIGTERM received from now on.
    package static func waitForTermination() async -> String {
        for await signal in await UnixSignalsSequence(trapping: .sigint, .sigterm) {
            return signal == .sigint ? "SIGINT" : "SIGTERM"
        }
        return "end of signals"
    }
}
