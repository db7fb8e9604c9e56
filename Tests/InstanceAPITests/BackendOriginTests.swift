import Testing

@testable import InstanceAPI

@Suite("Backend URLs: origin and request target")
struct BackendOriginTests {
    @Test(
        "a URL splits into its origin and the path with its query",
        arguments: [
            ("https://iid.googleapis.com/iid/v1:batchAdd", true, "iid.googleapis.com", 443, "/iid/v1:batchAdd", "iid.googleapis.com"),
            ("http://127.0.0.1:8089/iid/info/a%3Ab?details=true", false, "127.0.0.1", 8089, "/iid/info/a%3Ab?details=true", "127.0.0.1:8089"),
            ("http://localhost", false, "localhost", 80, "/", "localhost"),
            ("https://[::1]:8443/x#fragment", true, "::1", 8443, "/x", "[::1]:8443"),
            ("http://host?q=1", false, "host", 80, "/?q=1", "host"),
        ])
    func split(url: String, tls: Bool, host: String, port: Int, target: String, hostHeader: String) throws {
        let (origin, path) = try BackendOrigin.split(url)
        #expect(origin == BackendOrigin(tls: tls, host: host, port: port))
        #expect(path == target && origin.hostHeader == hostHeader)
    }

    @Test(
        "a URL the transport cannot call is refused with the reason",
        arguments: [
            ("ftp://host/x", "not an http or https URL"), ("http://user@host/x", "user information is not supported"),
            ("http://host:port/x", "bad port"), ("http://:80/x", "no host"), ("http://host:70000/", "port 70000 is out of range"),
            ("http://[::1/x", "unclosed IPv6 address"),
        ])
    func refused(url: String, reason: String) {
        #expect(throws: TransportError.invalidURL(url, reason: reason)) { try BackendOrigin.split(url) }
    }
}
