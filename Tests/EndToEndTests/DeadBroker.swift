import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A loopback address where no Kafka broker answers, for the tests of `--timeout`: `closed()`, a
/// port nothing listens on (the connection is refused), or `silent()`, a port that accepts
/// connections (the kernel completes them) and never says a word, as a hung broker would.
final class DeadBroker: Sendable {
    /// `127.0.0.1:<port>`.
    let address: String
    /// The listening socket of a silent broker, closed on deinit; -1 for a closed port.
    private let socket: Int32

    private init(port: UInt16, socket: Int32) {
        self.address = "127.0.0.1:\(port)"
        self.socket = socket
    }

    /// A port that was free a moment ago and is closed now: connecting to it is refused.
    static func closed() throws -> DeadBroker {
        let (fd, port) = try bound()
        close(fd)
        return DeadBroker(port: port, socket: -1)
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
        if socket >= 0 { close(socket) }
    }
}
