import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A loopback listener that answers every connection with a line of plain text (as an HTTP
/// server or a misconfigured proxy would) and closes it: a TLS client's handshake with it fails
/// with a TLS error (not a lost connection), as against any endpoint that does not speak TLS.
final class NotTLSListener: @unchecked Sendable {
    /// `127.0.0.1:<port>`.
    let address: String
    private let socket: Int32

    /// Listens on an ephemeral loopback port and answers on a thread of its own until deinit.
    init() throws {
        #if canImport(Glibc)
            let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard named, listen(fd, 16) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        self.socket = fd
        self.address = "127.0.0.1:\(UInt16(bigEndian: address.sin_port))"
        Thread.detachNewThread {
            let answer = Array("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n".utf8)
            while true {
                let connection = accept(fd, nil, nil)
                guard connection >= 0 else { return }  // the listener was shut down
                // The client's hello is read first: a socket closed with unread bytes sends a
                // reset, which the client could see before the answer (a transport failure,
                // not the handshake's).
                var hello = [UInt8](repeating: 0, count: 16_384)
                _ = hello.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
                _ = answer.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                close(connection)
            }
        }
    }

    deinit {
        shutdown(socket, Int32(SHUT_RDWR))
        close(socket)
    }
}
