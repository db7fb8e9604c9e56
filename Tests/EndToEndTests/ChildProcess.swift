import Foundation
import Synchronization
import Testing

/// A program run by a test, with its combined output collected as it is written. Waits on it
/// are woken by its output and its exit, never by a timer.
final class ChildProcess: Sendable {
    /// Held around `Process.run()`.
    private static let spawning = Mutex(())
    private let process: Process
    private let output = Observed(ChildOutput())

    /// Starts `executable` with `arguments` (and `environment` over this process's, without the
    /// variables named in `removing`), in `directory` when given; stdout and stderr are collected
    /// together.
    init(
        _ executable: URL, _ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:], removing: [String] = [],
        directory: URL? = nil
    ) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if !environment.isEmpty || !removing.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }.filter { !removing.contains($0.key) }
        }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let input = Pipe()
        process.standardInput = input
        self.process = process
        let output = self.output
        process.terminationHandler = { process in
            let status = process.terminationStatus
            output.update { $0.status = status }
        }
        // One spawn at a time in this process. It does not prevent the crash it was added for:
        // clean-clone runs still crash now and then inside Foundation's `Process.run()` (a memcpy
        // of a bad pointer). That is swift-corelibs-foundation's `findMaximumOpenFromProcSelfFD()`
        // copying a whole 256-byte `d_name` of each `/proc/self/fd` entry, past the end of
        // glibc's readdir buffer when the page after it is unmapped (fixed upstream in
        // swift-corelibs-foundation#5472, not in this toolchain). Spawning with posix_spawn
        // directly would avoid it.
        try Self.spawning.withLock { _ in try process.run() }
        // Blocking reads on a thread of their own, not `readabilityHandler`: on Linux, libdispatch
        // read sources set up and torn down at once by parallel tests can crash the whole test
        // process in `_dispatch_event_loop_drain` (swift-corelibs-libdispatch#949).
        let reader = pipe.fileHandleForReading
        Thread {
            while true {
                let data = reader.availableData
                output.update { $0.read(data) }
                if data.isEmpty { return }
            }
        }.start()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
    }

    /// Everything written so far.
    var text: String { output.value.text }

    /// Its process id.
    var pid: Int32 { process.processIdentifier }

    /// Waits until the output contains `needle`; fails once the program ended without it, or after
    /// `seconds` (a hang guard).
    @discardableResult
    func waitFor(_ needle: String, seconds: Double = 60) async throws -> String {
        let seen = try await output.wait(
            timeout: .seconds(seconds), until: { $0.text.contains(needle) || $0.isComplete },
            orThrow: { ProcessFailure(message: "no '\(needle)' within \(seconds) s; output:\n\($0.text)") })
        guard seen.text.contains(needle) else {
            throw ProcessFailure(message: "exited (\(seen.status ?? -1)) before printing '\(needle)'; output:\n\(seen.text)")
        }
        return seen.text
    }

    /// Sends SIGINT, as Ctrl-C would.
    func interrupt() { process.interrupt() }

    /// Sends SIGTERM, as Kubernetes or systemd do to stop a service.
    func terminate() { process.terminate() }

    /// Sends SIGKILL: the process gets no chance to finish anything.
    func kill() { _ = Foundation.kill(process.processIdentifier, SIGKILL) }

    /// Waits for the exit and returns the status; kills the process after `seconds`. The output is
    /// whole when this returns, unless a process the program started still holds it open five
    /// seconds after the exit.
    func waitForExit(seconds: Double = 60) async throws -> Int32 {
        let exited: ChildOutput
        do {
            exited = try await output.wait(
                timeout: .seconds(seconds), until: { $0.status != nil },
                orThrow: { ProcessFailure(message: "still running after \(seconds) s; output:\n\($0.text)") })
        } catch {
            process.terminate()
            throw error
        }
        _ = try? await output.wait(timeout: .seconds(5), until: \.isComplete, orThrow: { _ in ProcessFailure(message: "output still open") })
        return exited.status ?? -1
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    /// Runs a program to completion and returns its exit status and output.
    static func run(_ executable: URL, _ arguments: [String], stdin: Data? = nil, seconds: Double = 120) async throws -> (status: Int32, output: String) {
        let child = try ChildProcess(executable, arguments, stdin: stdin)
        let status = try await child.waitForExit(seconds: seconds)
        return (status, child.text)
    }
}

struct ProcessFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Where the programs under test are.
enum Programs {
    /// The `iidbatch` binary built next to this test bundle.
    static var iidbatch: URL {
        get throws {
            let candidates = [
                Bundle.main.executableURL?.deletingLastPathComponent(),
                URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
                URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.build/debug"),
            ].compactMap { $0 }.map { $0.appendingPathComponent("iidbatch").standardizedFileURL }
            guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
                throw ProcessFailure(message: "iidbatch binary not found in \(candidates.map(\.path)); run 'swift build' first")
            }
            return found
        }
    }

    /// kcat, which `make test` installs.
    static var kcat: URL {
        get throws {
            for directory in ["/usr/bin", "/usr/local/bin"] where FileManager.default.isExecutableFile(atPath: directory + "/kcat") {
                return URL(fileURLWithPath: directory + "/kcat")
            }
            throw ProcessFailure(message: "kcat not found; 'make test' installs it (apt-get install kcat)")
        }
    }
}
