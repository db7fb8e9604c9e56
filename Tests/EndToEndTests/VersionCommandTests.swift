import Foundation
import Testing

/// `iidbatch --version`: the version CHANGELOG.md's top entry names, and the commit the binary was
/// built from (issue 32).
@Suite("iidbatch --version")
struct VersionCommandTests {
    /// `git -C <repository> <arguments>`'s output, trimmed; nil when git is missing or the
    /// repository is not a git checkout (a source tarball).
    private func git(_ arguments: [String]) async -> String? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/git"),
            let (status, output) = try? await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/git"), ["-C", ReadmeScript.repository.path] + arguments),
            status == 0
        else { return nil }
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("prints 'iidbatch <version> (commit <short hash>)': the CHANGELOG's top version and the checkout's HEAD")
    func versionAndCommit() async throws {
        let (status, output) = try await ChildProcess.run(try Programs.iidbatch, ["--version"])
        #expect(status == 0, "\(output)")
        let match = try #require(output.wholeMatch(of: /iidbatch (\S+) \(commit (\S+)\)\n/), "\(output)")
        let (version, commit) = (String(match.1), String(match.2))

        let changelog = try String(contentsOf: ReadmeScript.repository.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let top = try #require(changelog.split(separator: "\n").first { $0.hasPrefix("## ") }, "CHANGELOG.md has no '## ' entry")
        #expect(top.split(separator: " ")[1] == version, "BuildInfo.version is \(version), but CHANGELOG.md's top entry is '\(top)'")

        // Built from a git checkout (as the suite is), the binary knows its commit. (A build given
        // $IIDBATCH_COMMIT, as the Dockerfile's, names that instead: not how the suite builds.)
        // A commit that lands between the build and this test leaves the binary one behind: HEAD
        // or an ancestor of it passes; "unknown", or a commit not in this history, does not.
        if let head = await git(["rev-parse", "--short", "HEAD"]) {
            #expect(commit.wholeMatch(of: /[0-9a-f]{7,40}/) != nil, "--version names \(commit), not a commit")
            let inHistory = await git(["merge-base", "--is-ancestor", commit, "HEAD"]) != nil
            #expect(inHistory, "--version names \(commit), which is neither the checkout's HEAD (\(head)) nor an ancestor of it")
        } else {
            #expect(commit == "unknown", "no git checkout here, and no $IIDBATCH_COMMIT is expected in the suite's build")
        }
    }

    @Test("the commit is generated under .build, never into the tree: no tracked or untracked BuildCommit.swift")
    func generatedOutsideTheTree() async throws {
        // From a source tarball there is no tree to check; the suite runs in a checkout.
        guard let files = await git(["ls-files", "--cached", "--others", "--exclude-standard"]) else { return }
        #expect(!files.split(separator: "\n").contains { $0.hasSuffix("BuildCommit.swift") }, "\(files)")
    }
}
