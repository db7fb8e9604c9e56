import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A loopback address where no Kafka broker answers, for the tests of `--timeout`: `closed()`, a
/// port nothing listens on (the connection is refused), or `silent()`, a port that accepts
/// connections (the kernel completes them) and never says a word, as a hung broker would.
///
/// Either way the port stays bound to this object's socket until it goes away, so no other test
/// (an embedded cluster, an emulator, a child's ephemeral port) can take it meanwhile and answer.
final class DeadBroker: Sendable {
    /// `127.0.0.1:<port>`.
    let address: String
    /// The socket that holds the port (listening for a silent broker, only bound for a closed
    /// one), closed on deinit.
    private let socket: Int32

    private init(port: UInt16, socket: Int32) {
        self.address = "127.0.0.1:\(port)"
        self.socket = socket
    }

    /// A port that refuses connections until this object goes away: bound, so nobody else can
    /// take it, and never listening, so the kernel answers a connection with a reset.
    static func closed() throws -> DeadBroker {
        let (fd, port) = try LoopbackSocket.open(listening: false)
        return DeadBroker(port: port, socket: fd)
    }

    /// A port that accepts connections and never answers, until this object goes away.
    static func silent() throws -> DeadBroker {
        let (fd, port) = try LoopbackSocket.open(listening: true)
        return DeadBroker(port: port, socket: fd)
    }

    deinit {
        close(socket)
    }
}
