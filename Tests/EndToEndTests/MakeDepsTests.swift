import Foundation
import Testing

/// `make apt-deps` as it installs Debian's prometheus for promtool, with apt-get, dpkg-query and
/// systemctl replaced by scripts that log their arguments (nothing is installed): without the
/// package's recommends (the node exporter), and with the Prometheus server its installation
/// starts on a systemd host (on :9090, iidbatch's documented --http-port) stopped and disabled,
/// only when this installation put the package there.
@Suite("make apt-deps installs promtool alone")
struct MakeDepsTests {
    /// A folder of stand-in commands (the only PATH `make` sees) and the log they write.
    private struct Stubs {
        let folder: URL
        var log: URL { folder.appendingPathComponent("calls.log") }

        /// Stubs where the prometheus package is installed already or not, and a folder standing
        /// for systemd's runtime directory exists or not.
        init(prometheusInstalled: Bool, systemdRuns: Bool) throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("make-deps-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("bin"), withIntermediateDirectories: true)
            if systemdRuns {
                try FileManager.default.createDirectory(at: folder.appendingPathComponent("systemd"), withIntermediateDirectories: true)
            }
            let status = prometheusInstalled ? "install ok installed" : "unknown ok not-installed"
            try script("apt-get", "echo \"apt-get $*\" >> \(log.path)")
            try script("dpkg-query", "echo \"dpkg-query $*\" >> \(log.path); printf '%s' '\(status)'")
            try script("systemctl", "echo \"systemctl $*\" >> \(log.path)")
            try script("id", "echo 0")
            try FileManager.default.createSymbolicLink(
                atPath: folder.appendingPathComponent("bin/grep").path, withDestinationPath: "/usr/bin/grep")
        }

        private func script(_ name: String, _ body: String) throws {
            let path = folder.appendingPathComponent("bin/\(name)").path
            try "#!/bin/sh\n\(body)\n".write(toFile: path, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        }

        /// Runs `make apt-deps` of the repository with these stubs; its status, output and the
        /// commands it called.
        func make() async throws -> (status: Int32, output: String, calls: [String]) {
            let child = try await ChildProcess(
                URL(fileURLWithPath: "/usr/bin/make"),
                ["-s", "-C", ReadmeScript.repository.path, "apt-deps", "SYSTEMD_RUNTIME=\(folder.appendingPathComponent("systemd").path)"],
                environment: ["PATH": folder.appendingPathComponent("bin").path])
            let status = try await child.waitForExit()
            let calls = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
            return (status, child.text, calls)
        }

        func remove() { try? FileManager.default.removeItem(at: folder) }
    }

    @Test(
        "prometheus without its recommends; its server stopped and disabled only when this install started it",
        arguments: [(false, true), (false, false), (true, true)])
    func installsPromtool(prometheusInstalled: Bool, systemdRuns: Bool) async throws {
        let stubs = try Stubs(prometheusInstalled: prometheusInstalled, systemdRuns: systemdRuns)
        defer { stubs.remove() }
        let run = try await stubs.make()
        #expect(run.status == 0, "\(run.output)")
        let installs = run.calls.filter { $0.hasPrefix("apt-get install") }
        let prometheus = installs.filter { $0.split(separator: " ").contains("prometheus") }
        #expect(prometheus.count == 1 && prometheus.allSatisfy { $0.contains("--no-install-recommends") }, "\(installs)")
        #expect(installs.contains { $0.hasSuffix("librdkafka-dev pkg-config kcat curl systemd") }, "\(installs)")
        let disabled = run.calls.contains("systemctl disable --now prometheus")
        let ours = !prometheusInstalled && systemdRuns
        #expect(disabled == ours, "\(run.calls)")
        #expect(run.output.contains("stopping and disabling the Prometheus server") == ours, "\(run.output)")
    }
}
