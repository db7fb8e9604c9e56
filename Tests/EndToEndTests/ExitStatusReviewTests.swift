import Emulator
import Foundation
import Kafka
import Testing

/// The exit statuses the review of issue 32 found wrong: each failure ends with the status of its
/// cause (README's exit table), and the message names what to fix.
@Suite("iidbatch exit statuses: each failure by its cause")
struct ExitStatusReviewTests {
    /// Runs the binary with `arguments` to its exit.
    private func run(_ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:]) async throws -> (status: Int32, output: String) {
        let child = try ChildProcess(try Programs.iidbatch, arguments, stdin: stdin, environment: environment)
        let status = try await child.waitForExit(seconds: 180)
        return (status, child.text)
    }

    @Test("a broken pipeline file that gives an omitted topic its default exits 78 (configuration) naming the file and the option, as run and control do")
    func brokenPipelineDefaults() async throws {
        let folder = try OperatorCommand.temporaryFolder("broken-defaults")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("p.yaml").path
        try "request-topic: [unclosed\n".write(toFile: file, atomically: true, encoding: .utf8)
        let nobody = try DeadBroker.closed()
        let commands: [(arguments: [String], option: String)] = [
            (["submit", "--op", "topics.subscribe", "--topic", "t", "-"], "--request-topic"),
            (["outcomes"], "--from"),
            (["reconcile", "--outcomes", "o"], "--requests"),
            (["reconcile", "--requests", "r"], "--outcomes"),
        ]
        for (arguments, option) in commands {
            let result = try await run(arguments + ["--pipelines", file, "--brokers", nobody.address], stdin: Data("tok-1\n".utf8))
            #expect(result.status == 78, "\(arguments): \(result.output)")
            #expect(result.output.contains(file) && result.output.contains(option), "\(arguments): \(result.output)")
            #expect(!result.output.contains(ExitCodeTests.usageMarker), "\(arguments): \(result.output)")
        }
        withExtendedLifetime(nobody) {}
    }
}
