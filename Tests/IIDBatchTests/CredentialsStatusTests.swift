import InstanceAPI
import Testing

@testable import CommandSupport

/// Credentials found nowhere end by their cause.
@Suite("ExitStatus: credentials found nowhere")
struct CredentialsStatusTests {
    @Test("a key file named by GOOGLE_APPLICATION_CREDENTIALS ends as by --credentials; an unanswered metadata server 69; none there 78")
    func statuses() {
        typealias NotFound = ApplicationDefaultCredentials.NotFound
        let missing = CredentialsError.fileNotFound(path: "/missing.json")
        #expect(CommandSupport.ExitStatus(NotFound(tried: ["x"], keyFileError: missing)) == CommandSupport.ExitStatus(missing))
        #expect(CommandSupport.ExitStatus(NotFound(tried: ["x"], keyFileError: missing)) == .noInput)
        #expect(CommandSupport.ExitStatus(NotFound(tried: ["x"], keyFileError: .invalidJSON(path: "k.json"))) == .config)
        #expect(CommandSupport.ExitStatus(NotFound(tried: ["x"], failingMetadataServer: "metadata.google.internal")) == .unavailable)
        #expect(CommandSupport.ExitStatus(NotFound(tried: ["x"])) == .config)
    }
}
