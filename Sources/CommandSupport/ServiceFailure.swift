import Foundation
import NIOCore

/// A service of `iidbatch run` that stopped with an error, naming the service (a pipeline's
/// worker, the control listener, the HTTP server on its port), so the exit says which one failed
/// and why, not only that something did.
package struct ServiceFailure: Error, CustomStringConvertible {
    /// The service, as a message names it (`the HTTP server on port 9464 (--http-port)`).
    package var service: String
    /// What it stopped with.
    package var error: any Error

    /// A failure of `service`, which stopped with `error`.
    package init(service: String, error: any Error) {
        self.service = service
        self.error = error
    }

    /// The service and the error it stopped with.
    package var description: String { "\(service) stopped: \(error)" }

    /// The status the process exits with: an address the server may never bind (not allowed,
    /// not this machine's) is configuration; a port another process holds is unavailable for now
    /// (69), since it frees when that process goes, and a supervisor should try again (a
    /// Prometheus server on 9090 beside a unit that stops restarting on 78 would otherwise leave
    /// the workers down for good); anything else by its kind.
    package var status: ExitStatus {
        if let error = error as? IOError {
            if error.errnoCode == EADDRINUSE { return .unavailable }
            if Self.bindRefusals.contains(error.errnoCode) { return .config }
        }
        return ExitStatus(unclassified: error)
    }

    /// The `bind` errors a listening address of the configuration causes.
    package static let bindRefusals: Set<Int32> = [EACCES, EADDRNOTAVAIL]
}
