import Foundation
import NIOCore

/// A service of `iidbatch run` that stopped with an error, naming the service (a pipeline's
/// worker, the control listener, the HTTP server on its port), so the exit says which one failed
/// and why, not only that something did.
struct ServiceFailure: Error, CustomStringConvertible {
    /// The service, as a message names it (`the HTTP server on port 9464 (--http-port)`).
    var service: String
    /// What it stopped with.
    var error: any Error

    var description: String { "\(service) stopped: \(error)" }

    /// The status the process exits with: an address the server cannot bind (in use, not
    /// allowed, not this machine's) is configuration; anything else by its kind.
    var status: ExitStatus {
        if let error = error as? IOError, Self.bindRefusals.contains(error.errnoCode) { return .config }
        return ExitStatus(unclassified: error)
    }

    /// The `bind` errors a listening address of the configuration causes.
    static let bindRefusals: Set<Int32> = [EADDRINUSE, EACCES, EADDRNOTAVAIL]
}
