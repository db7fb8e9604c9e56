import Foundation
import NIOSSL

/// Certificate authorities trusted for the backend's TLS in addition to the system's roots: a
/// PEM bundle read once, when the run starts (a private CA, a TLS-inspecting proxy, the
/// emulator's self-signed certificate). They apply to backend calls, the token endpoint and the
/// metadata server alike.
public struct ExtraTrustRoots: Sendable, CustomStringConvertible {
    /// The environment variable naming a bundle when no file is given, as OpenSSL reads it.
    public static let environmentVariable = "SSL_CERT_FILE"

    /// The file the certificates were read from.
    public let path: String
    /// The certificates, at least one.
    let certificates: [NIOSSLCertificate]

    /// Reads the PEM certificates in the file at `path`.
    ///
    /// - Throws: `ExtraTrustRoots.Failure` naming the file when it cannot be read or holds no
    ///   PEM certificate.
    public init(path: String) throws(Failure) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Failure(path: path, reason: FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist")
        }
        let certificates: [NIOSSLCertificate]
        do { certificates = try NIOSSLCertificate.fromPEMBytes(Array(data)) } catch {
            throw Failure(path: path, reason: "is not a PEM certificate bundle (\(error))")
        }
        guard !certificates.isEmpty else { throw Failure(path: path, reason: "holds no PEM certificate") }
        self.path = path
        self.certificates = certificates
    }

    /// The roots a run trusts besides the system's: the file `option` names, else the one
    /// `environment`'s `SSL_CERT_FILE` names (an empty value is none), else none.
    public static func resolve(option: String?, environment: [String: String]) throws(Failure) -> ExtraTrustRoots? {
        if let option { return try ExtraTrustRoots(path: option) }
        if let variable = environment[environmentVariable], !variable.isEmpty { return try ExtraTrustRoots(path: variable) }
        return nil
    }

    /// `configuration` trusting these roots too.
    func applied(to configuration: TLSConfiguration) -> TLSConfiguration {
        var configuration = configuration
        configuration.additionalTrustRoots.append(.certificates(certificates))
        return configuration
    }

    /// How many certificates came from which file, for the start log.
    public var description: String { "\(certificates.count) certificate(s) from \(path)" }

    /// Why a bundle cannot be used; names the file.
    public struct Failure: Error, Equatable, CustomStringConvertible {
        /// The file.
        public var path: String
        /// What is wrong with it.
        public var reason: String

        public var description: String { "CA file \(path) \(reason)" }
    }
}
