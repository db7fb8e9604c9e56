import Foundation
import Kafka
import NIOCore
import Pipeline
import Testing

@testable import CommandSupport

/// A service of `run` that stops is named in the exit message, with the status of its cause.
@Suite("ServiceFailure: the failing service by name, the status by cause")
struct ServiceFailureTests {
    @Test(
        "an address the HTTP server may never bind is configuration (78), a port in use unavailable (69); a worker's Kafka error keeps its kind; anything else is internal"
    )
    func statuses() {
        let server = "the HTTP server on port 9464 (--http-port)"
        let inUse = ServiceFailure(service: server, error: IOError(errnoCode: EADDRINUSE, reason: "bind(descriptor:ptr:bytes:)"))
        #expect(inUse.status == .unavailable, "\(inUse)")
        #expect(CommandSupport.ExitStatus(unclassified: inUse) == .unavailable)
        for errno in [EACCES, EADDRNOTAVAIL] {
            let failure = ServiceFailure(service: server, error: IOError(errnoCode: errno, reason: "bind(descriptor:ptr:bytes:)"))
            #expect(failure.status == .config, "\(failure)")
            #expect(CommandSupport.ExitStatus(unclassified: failure) == .config)
        }
        #expect(ServiceFailure(service: server, error: IOError(errnoCode: EIO, reason: "read")).status == .software)
        let refused = PipelineWorkerError.consumer(topic: "requests", .broker(code: .topicAuthorizationFailed, message: "ACL"))
        #expect(ServiceFailure(service: "the worker of pipeline p", error: refused).status == .config)
        #expect(ServiceFailure(service: server, error: IOError(errnoCode: EADDRINUSE, reason: "bind")).description.hasPrefix("\(server) stopped: "))
    }
}
