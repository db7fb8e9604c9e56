import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Forwards TCP connections from a fixed loopback port to one broker of the mock cluster.
///
/// librdkafka's mock brokers listen on ephemeral ports. A client bootstrapping through this
/// forwarder reads the cluster's metadata over it and then connects to the advertised broker
/// addresses directly, so the forwarder only carries bootstrap traffic.
final class TCPForwarder: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let targetPort: UInt16
    private let open = Mutex<Set<Int32>>([])
    private let stopped = Atomic<Bool>(false)

    init(port: Int, target: String) throws(KafkaError) {
        guard let colon = target.lastIndex(of: ":"), let targetPort = UInt16(target[target.index(after: colon)...]) else {
            throw .embedded(operation: "forward port \(port)", reason: "bad target address '\(target)'")
        }
        self.targetPort = targetPort
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw .embedded(operation: "listen on port \(port)", reason: String(cString: strerror(errno))) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: UInt16(clamping: port))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw .embedded(operation: "listen on 127.0.0.1:\(port)", reason: reason)
        }
        self.listener = fd
        self.port = port
        Thread.start(named: "kafka-forwarder") { [self] in acceptLoop() }
    }

    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in open.withLock({ $0 }) { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    deinit { stop() }

    private func acceptLoop() {
        while !stopped.load(ordering: .acquiring) {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: targetPort)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                close(upstream)
                close(client)
                continue
            }
            open.withLock { $0.formUnion([client, upstream]) }
            let done = Atomic<Int>(0)
            for (from, to) in [(client, upstream), (upstream, client)] {
                let pump = Thread { [self] in
                    Self.pump(from: from, to: to)
                    shutdown(to, Int32(SHUT_WR))
                    if done.add(1, ordering: .acquiringAndReleasing).newValue == 2 {
                        open.withLock { $0.subtract([client, upstream]) }
                        close(client)
                        close(upstream)
                    }
                }
                pump.start()
            }
        }
    }

    private static func pump(from: Int32, to: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(from, $0.baseAddress, $0.count) }
            if count <= 0 { return }
            var sent = 0
            while sent < count {
                let written = buffer.withUnsafeBytes { send(to, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL)) }
                if written <= 0 { return }
                sent += written
            }
        }
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
