import Foundation
import NIOSSL

/// The certificate and key an emulator serves HTTPS with: given, it speaks TLS only, and offers
/// HTTP/2 and HTTP/1.1 by ALPN on its one port.
public struct EmulatorTLS: Sendable {
    /// The certificate chain, PEM, the server's own certificate first.
    public var certificateChainPEM: String
    /// The private key of the first certificate, PEM.
    public var privateKeyPEM: String

    /// Serves with `certificateChainPEM` and `privateKeyPEM`.
    public init(certificateChainPEM: String, privateKeyPEM: String) {
        self.certificateChainPEM = certificateChainPEM
        self.privateKeyPEM = privateKeyPEM
    }

    /// Serves with a self-signed certificate.
    public init(_ certificate: SelfSignedCertificate) {
        self.init(certificateChainPEM: certificate.certificatePEM, privateKeyPEM: certificate.privateKeyPEM)
    }

    /// Serves with the PEM files at `certificateFile` and `keyFile`, read now and checked.
    ///
    /// - Throws: `EmulatorError.tls` naming the file that cannot be read or holds no usable
    ///   certificate or key.
    public init(certificateFile: String, keyFile: String) throws(EmulatorError) {
        func read(_ path: String, _ what: String) throws(EmulatorError) -> String {
            guard let data = FileManager.default.contents(atPath: path) else { throw .tls("cannot read the \(what) file \(path)") }
            return String(decoding: data, as: UTF8.self)
        }
        self.init(certificateChainPEM: try read(certificateFile, "certificate"), privateKeyPEM: try read(keyFile, "key"))
        do { _ = try Self.certificates(certificateChainPEM) } catch { throw .tls("no PEM certificate in \(certificateFile): \(error)") }
        do { _ = try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem) } catch {
            throw .tls("no PEM private key in \(keyFile): \(error)")
        }
    }

    /// The server side's TLS configuration: this chain and key, TLS 1.2 or later, ALPN left to
    /// the HTTP/2 channel (which offers `h2` and `http/1.1`).
    func serverConfiguration() throws(EmulatorError) -> TLSConfiguration {
        do {
            let chain = try Self.certificates(certificateChainPEM)
            let key = try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem)
            var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
            configuration.minimumTLSVersion = .tlsv12
            return configuration
        } catch {
            throw .tls("cannot use the certificate and key: \(error)")
        }
    }

    private static func certificates(_ pem: String) throws -> [NIOSSLCertificate] {
        let chain = try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8))
        guard !chain.isEmpty else { throw EmulatorError.tls("no certificate") }
        return chain
    }
}
