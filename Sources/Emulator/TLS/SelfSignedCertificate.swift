import Crypto
import Foundation
import SwiftASN1
import X509

/// A certificate that signs itself, for serving TLS on loopback: tests, benchmarks and a
/// development emulator. Its P-256 key is made here; it names each of `hosts` (an IP address as
/// an IP subject-alternative name, any other text as a DNS one), is valid from an hour ago (a
/// clock a little behind is no problem) for `validity`, and may act as its own root: a client
/// that trusts it (`--ca-file`, `SSL_CERT_FILE`) verifies the server's chain and host name as it
/// would Google's. Nothing of it is kept anywhere but in memory and the files `write` makes.
public struct SelfSignedCertificate: Sendable {
    /// How long a certificate is valid from its making.
    public static let validity: Duration = .seconds(3 * 24 * 3600)

    /// The certificate, PEM-encoded.
    public let certificatePEM: String
    /// Its private key, PEM-encoded (SEC 1).
    public let privateKeyPEM: String

    /// A new key and a certificate for `hosts`, at least one.
    ///
    /// - Throws: `EmulatorError.tls` naming the host that is neither an IP address nor a
    ///   DNS name, or when there is none; the certificate library's error when it cannot sign.
    public init(hosts: [String]) throws {
        guard let first = hosts.first else { throw EmulatorError.tls("a self-signed certificate needs at least one host") }
        let names = try hosts.map { host -> GeneralName in
            if let address = IPAddressBytes.parse(host) { return .ipAddress(ASN1OctetString(contentBytes: ArraySlice(address))) }
            guard !host.isEmpty, !host.contains(" "), !host.contains("/") else {
                throw EmulatorError.tls("'\(host)' is neither an IP address nor a DNS name")
            }
            return .dnsName(host)
        }
        let key = P256.Signing.PrivateKey()
        let signer = Certificate.PrivateKey(key)
        let name = try DistinguishedName {
            OrganizationName("iidbatch emulator")
            CommonName(first)
        }
        let now = Date()
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: signer.publicKey,
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(TimeInterval(Self.validity.components.seconds)),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(digitalSignature: true, keyCertSign: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(names)
            },
            issuerPrivateKey: signer)
        self.certificatePEM = try certificate.serializeAsPEM().pemString
        self.privateKeyPEM = key.pemRepresentation
    }

    /// Writes the certificate to the file at `certificate` and the key to the one at `key`
    /// (readable by its owner only), each replaced whole.
    ///
    /// - Throws: `EmulatorError.tls` naming the path that cannot be written.
    public func write(certificate: String, key: String) throws {
        do { try Data(certificatePEM.utf8).write(to: URL(fileURLWithPath: certificate), options: .atomic) } catch {
            throw EmulatorError.tls("cannot write the certificate to \(certificate): \(error.localizedDescription)")
        }
        do {
            // Made empty and owner-only first, then filled: the key is never readable by others,
            // not even between its writing and a change of its mode.
            guard FileManager.default.createFile(atPath: key, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw EmulatorError.tls("cannot create the private key file \(key)")
            }
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: key))
            defer { try? handle.close() }
            try handle.write(contentsOf: Data(privateKeyPEM.utf8))
        } catch let error as EmulatorError {
            throw error
        } catch {
            throw EmulatorError.tls("cannot write the private key to \(key): \(error.localizedDescription)")
        }
    }
}
