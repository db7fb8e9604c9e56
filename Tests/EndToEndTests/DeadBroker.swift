import Foundation

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
        let (fd, port) = try bound()
        return DeadBroker(port: port, socket: fd)
    }

    /// A port that accepts connections and never answers, until this object goes away.
    static func silent() throws -> DeadBroker {
        let (fd, port) = try bound()
        guard listen(fd, 16) == 0 else {
            close(fd)
            throw ProcessFailure(message: "listen failed: errno \(errno)")
        }
        return DeadBroker(port: port, socket: fd)
    }

    /// A TCP socket bound to an ephemeral loopback port, and the port.
    private static func bound() throws -> (Int32, UInt16) {
        #if canImport(Glibc)
            let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw ProcessFailure(message: "socket failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard named else {
            close(fd)
            throw ProcessFailure(message: "bind failed: errno \(errno)")
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(socket)
    }
}
