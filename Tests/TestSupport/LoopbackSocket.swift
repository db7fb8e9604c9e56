import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP socket on an ephemeral port of 127.0.0.1, for tests that need a port of their own: only
/// bound, the port refuses connections (the kernel answers with a reset) and no one else can take
/// it; listening, it accepts connections that nothing answers until the test serves them. The
/// caller owns the descriptor and closes it.
package enum LoopbackSocket {
    /// Opens a socket bound to an ephemeral loopback port, listening (a backlog of 16) when
    /// `listening`; returns its descriptor and the port. Throws the `errno` of the call that
    /// failed, the socket closed.
    package static func open(listening: Bool) throws -> (fd: Int32, port: UInt16) {
        #if canImport(Glibc)
            let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard named, !listening || listen(fd, 16) == 0 else {
            let failure = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            close(fd)
            throw failure
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }
}
