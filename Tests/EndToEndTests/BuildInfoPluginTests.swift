import Foundation
import Testing

/// BuildInfoPlugin's script (read from Sources/BuildInfoPlugin/BuildInfoPlugin.swift, run as the
/// build runs it) names the package's own commit, never that of a repository around it: a source
/// tarball unpacked inside another checkout is `unknown`.
@Suite("The build names its own commit")
struct BuildInfoPluginTests {
    /// The plugin's `sh -c` script, its indentation removed as Swift removes it.
    private static func script() throws -> String {
        let source = try String(
            contentsOf: ReadmeScript.repository.appendingPathComponent("Sources/BuildInfoPlugin/BuildInfoPlugin.swift"), encoding: .utf8)
        let start = try #require(source.range(of: "static let script = #\"\"\"\n"))
        let end = try #require(source.range(of: "\"\"\"#", range: start.upperBound..<source.endIndex))
        let lines = source[start.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
        return lines.map { $0.hasPrefix("        ") ? String($0.dropFirst(8)) : String($0) }.joined(separator: "\n")
    }

    /// Runs `program` (git without the user's configuration); its trimmed output.
    private func run(_ program: String, _ arguments: [String]) async throws -> String {
        let child = try await ChildProcess(URL(fileURLWithPath: program), arguments, environment: ["GIT_CONFIG_GLOBAL": "/dev/null"])
        #expect(try await child.waitForExit() == 0, "\(program) \(arguments): \(child.text)")
        return child.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("a package inside another checkout, without .git of its own, is 'unknown'; with its own, its commit")
    func ownCommitOnly() async throws {
        let folder = try OperatorCommand.temporaryFolder("build-commit")
        defer { try? FileManager.default.removeItem(at: folder) }
        let git = "/usr/bin/git"
        let identity = ["-c", "user.name=t", "-c", "user.email=t@example.com"]
        _ = try await run(git, ["init", "-q", folder.path])
        _ = try await run(git, ["-C", folder.path] + identity + ["commit", "-q", "--allow-empty", "-m", "outer"])
        let package = folder.appendingPathComponent("iidbatch-0.9.0")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        let output = folder.appendingPathComponent("BuildCommit.swift")
        let script = try Self.script()

        _ = try await run("/bin/sh", ["-c", script, "build-commit", output.path, package.path])
        let tarball = try String(contentsOf: output, encoding: .utf8)
        #expect(tarball.contains("static let value = \"unknown\""), "\(tarball)")

        _ = try await run(git, ["init", "-q", package.path])
        _ = try await run(git, ["-C", package.path] + identity + ["commit", "-q", "--allow-empty", "-m", "inner"])
        let inner = try await run(git, ["-C", package.path, "rev-parse", "--short", "HEAD"])
        _ = try await run("/bin/sh", ["-c", script, "build-commit", output.path, package.path])
        let checkout = try String(contentsOf: output, encoding: .utf8)
        #expect(checkout.contains("static let value = \"\(inner)\""), "\(checkout)")
    }
}
