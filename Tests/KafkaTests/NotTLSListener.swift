import Foundation
import TestSupport

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
        let (fd, port) = try LoopbackSocket.open(listening: true)
        self.socket = fd
        self.address = "127.0.0.1:\(port)"
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
