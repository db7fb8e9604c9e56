import ArgumentParser
import CommandSupport
import Foundation
import InstanceAPI

/// The backend's extra certificate authorities, for the commands that call the backend.
struct TrustOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "A PEM bundle of certificate authorities trusted for the backend's TLS besides the system's roots (backend, token and metadata calls). Default: $\(ExtraTrustRoots.environmentVariable) when set.",
            valueName: "file"))
    var caFile: String?

    /// The roots `--ca-file` or `$SSL_CERT_FILE` names, read now, or nil.
    ///
    /// - Throws: a configuration error (78) naming the option or variable and the file when the
    ///   file is missing, unreadable or holds no PEM certificate.
    func roots(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ExtraTrustRoots? {
        do { return try ExtraTrustRoots.resolve(option: caFile, environment: environment) } catch {
            throw RuntimeError(.config, "\(caFile == nil ? "$" + ExtraTrustRoots.environmentVariable : "--ca-file"): \(error)")
        }
    }
}
