/// Where backend calls go: scheme, host and port. Calls to one origin share its kept-alive
/// connections.
struct BackendOrigin: Hashable, Sendable, CustomStringConvertible {
    /// Whether calls go over TLS (`https`).
    var tls: Bool
    /// The host name or IP address, without brackets.
    var host: String
    /// The TCP port.
    var port: Int

    /// The `Host` header's value: the host, and the port unless it is the scheme's own.
    var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (tls ? 443 : 80) ? name : "\(name):\(port)"
    }

    var description: String { "\(tls ? "https" : "http")://\(hostHeader)" }

    /// The origin of an absolute `http` or `https` URL and the request target that follows it
    /// (its path and query, `/` when it has none). Read as UTF-8 bytes, not characters: every call
    /// parses its URL, and a deletion is one call per item.
    static func split(_ url: String) throws(TransportError) -> (origin: BackendOrigin, target: String) {
        let bytes = url.utf8
        let tls: Bool
        let authorityStart: String.Index
        if bytes.starts(with: "https://".utf8) {
            tls = true
            authorityStart = bytes.index(bytes.startIndex, offsetBy: 8)
        } else if bytes.starts(with: "http://".utf8) {
            tls = false
            authorityStart = bytes.index(bytes.startIndex, offsetBy: 7)
        } else {
            throw .invalidURL(url, reason: "not an http or https URL")
        }
        let authorityEnd =
            bytes[authorityStart...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.endIndex
        let authority = bytes[authorityStart..<authorityEnd]
        guard !authority.contains(UInt8(ascii: "@")) else { throw .invalidURL(url, reason: "user information is not supported") }
        var host = url[authorityStart..<authorityEnd]
        var port = tls ? 443 : 80
        func number(from index: String.Index) throws(TransportError) -> Int {
            guard let number = Int(url[index..<authorityEnd]) else { throw .invalidURL(url, reason: "bad port") }
            return number
        }
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { throw .invalidURL(url, reason: "unclosed IPv6 address") }
            host = url[bytes.index(after: authorityStart)..<close]
            let afterClose = bytes.index(after: close)
            if afterClose < authorityEnd {
                guard bytes[afterClose] == UInt8(ascii: ":") else { throw .invalidURL(url, reason: "bad port") }
                port = try number(from: bytes.index(after: afterClose))
            }
        } else if let colon = authority.lastIndex(of: UInt8(ascii: ":")) {
            host = url[authorityStart..<colon]
            port = try number(from: bytes.index(after: colon))
        }
        guard !host.isEmpty else { throw .invalidURL(url, reason: "no host") }
        guard (1...65_535).contains(port) else { throw .invalidURL(url, reason: "port \(port) is out of range") }
        let targetEnd = bytes[authorityEnd...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.endIndex
        let target = url[authorityEnd..<targetEnd]
        return (BackendOrigin(tls: tls, host: String(host), port: port), target.utf8.first == UInt8(ascii: "/") ? String(target) : "/" + target)
    }
}
