import Foundation
import Kafka
import Subprocess
import Synchronization
import SystemPackage
import Testing

/// A program run by a test, with its combined output collected as it is written. Waits on it
/// are woken by its output and its exit, never by a timer.
///
/// Spawned by swift-subprocess, not Foundation's `Process`: this toolchain's `Process.run()` can
/// crash the whole test process (its `/proc/self/fd` scan copies each entry's whole 256-byte
/// `d_name`, past the end of glibc's readdir buffer when the next page is unmapped;
/// swift-corelibs-foundation#5472).
final class ChildProcess: Sendable {
    private let output: Observed<ChildOutput>
    /// Its process id.
    let pid: Int32

    /// Starts `executable` with `arguments` (and `environment` over this process's, without the
    /// variables named in `removing`), in `directory` when given; stdout and stderr are collected
    /// together, and `stdin` (or nothing) is written to its standard input, which is then closed.
    /// Returns once the program runs; throws if it could not be started.
    init(
        _ executable: URL, _ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:], removing: [String] = [],
        directory: URL? = nil
    ) async throws {
        let output = Observed(ChildOutput())
        var changes: [Environment.Key: String?] = [:]
        for (name, value) in environment { changes[Environment.Key(stringLiteral: name)] = value }
        for name in removing { changes[Environment.Key(stringLiteral: name)] = .some(nil) }
        let input = try Self.inputFile(stdin ?? Data())
        let start = Start()
        let environment = Environment.inherit.updating(changes)
        let workingDirectory = directory.map { FilePath($0.path) }
        // A turn of `ForkTurns.shared` from the fork to the exec: a broker cut of a test's embedded
        // cluster must not rebind its port while the fork holds a copy of the listening socket.
        let pid = try await ForkTurns.shared.taking { () async throws in
            Self.spawn(executable, arguments, environment: environment, workingDirectory: workingDirectory, input: input, output: output, start: start)
            return try await start.pid()
        }
        self.output = output
        self.pid = pid
    }

    /// Runs the program until it exits, collecting its output into `output`; answers `start` once
    /// it runs (or could not start).
    private static func spawn(
        _ executable: URL, _ arguments: [String], environment: Environment, workingDirectory: FilePath?, input: FileDescriptor,
        output: Observed<ChildOutput>, start: Start
    ) {
        Task.detached {
            do {
                let result = try await Subprocess.run(
                    .path(FilePath(executable.path)), arguments: Arguments(arguments), environment: environment, workingDirectory: workingDirectory,
                    input: .fileDescriptor(input, closeAfterSpawningProcess: true), output: .sequence, error: .combinedWithOutput
                ) { execution in
                    start.resolve(.success(execution.processIdentifier.value))
                    for try await buffer in execution.standardOutput { output.update { $0.read(Data(buffer: buffer)) } }
                }
                output.update { $0.ended(Self.status(result.terminationStatus)) }
            } catch {
                start.resolve(.failure(error))
                output.update { $0.ended(-1, note: "\n[spawn or read failed: \(error)]") }
            }
        }
    }

    /// The spawn's one answer to the waiting `init`: the child's id, or why it did not start.
    /// Not cancelled with the waiting task: a child that started is always owned (and stopped
    /// by `deinit`), never left running unseen.
    private final class Start: Sendable {
        private struct State {
            var result: Result<Int32, any Error>?
            var waiter: CheckedContinuation<Int32, any Error>?
        }

        private let state = Mutex(State())

        /// The spawn's answer; only the first counts.
        func resolve(_ result: Result<Int32, any Error>) {
            let waiter = state.withLock { state -> CheckedContinuation<Int32, any Error>? in
                guard state.result == nil else { return nil }
                state.result = result
                return state.waiter.take()
            }
            waiter?.resume(with: result)
        }

        /// Waits for the answer.
        func pid() async throws -> Int32 {
            try await withCheckedThrowingContinuation { continuation in
                let known = state.withLock { state in
                    if state.result == nil { state.waiter = continuation }
                    return state.result
                }
                if let known { continuation.resume(with: known) }
            }
        }
    }

    /// `data` in an unlinked file, open for reading: the child's standard input. Not a pipe that
    /// swift-subprocess writes: its writer traps (an unclosed descriptor) when the write fails
    /// because the child exited without reading it all, which tests do on purpose.
    private static func inputFile(_ data: Data) throws -> FileDescriptor {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("iidbatch-stdin-\(UUID().uuidString)").path
        try data.write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try FileDescriptor.open(FilePath(path), .readOnly, options: .closeOnExec)
    }

    /// The status as Foundation's `Process` reported it: the exit code, or the signal's number.
    private static func status(_ status: TerminationStatus) -> Int32 {
        switch status {
        case .exited(let code): code
        case .signaled(let signal): signal
        }
    }

    /// Everything written so far.
    var text: String { output.value.text }

    /// Waits until the output contains `needle`; fails once the program ended without it, or after
    /// `seconds` (a hang guard).
    @discardableResult
    func waitFor(_ needle: String, seconds: Double = 120) async throws -> String {
        let seen = try await output.wait(
            timeout: .seconds(seconds), until: { $0.text.contains(needle) || $0.isComplete },
            orThrow: { ProcessFailure(message: "no '\(needle)' within \(seconds) s; output:\n\($0.text)") })
        guard seen.text.contains(needle) else {
            throw ProcessFailure(message: "exited (\(seen.status ?? -1)) before printing '\(needle)'; output:\n\(seen.text)")
        }
        return seen.text
    }

    /// Sends SIGINT, as Ctrl-C would.
    func interrupt() { signal(SIGINT) }

    /// Sends SIGTERM, as Kubernetes or systemd do to stop a service.
    func terminate() { signal(SIGTERM) }

    /// Sends SIGKILL: the process gets no chance to finish anything.
    func kill() { signal(SIGKILL) }

    /// Sends `number` unless the process was seen to end (its id may belong to another by then).
    private func signal(_ number: Int32) {
        guard output.value.status == nil else { return }
        _ = Foundation.kill(pid, number)
    }

    /// Waits for the exit and returns the status; sends SIGTERM after `seconds`. The output is
    /// whole when this returns: the status is known once the output was read to the child's exit
    /// and the process reaped (what a process it started writes afterwards is not read).
    func waitForExit(seconds: Double = 120) async throws -> Int32 {
        do {
            let exited = try await output.wait(
                timeout: .seconds(seconds), until: \.isComplete,
                orThrow: { ProcessFailure(message: "no exit, or output still open, after \(seconds) s; output:\n\($0.text)") })
            return exited.status ?? -1
        } catch {
            terminate()
            throw error
        }
    }

    deinit {
        terminate()
    }

    /// Runs a program to completion and returns its exit status and output.
    static func run(_ executable: URL, _ arguments: [String], stdin: Data? = nil, seconds: Double = 120) async throws -> (status: Int32, output: String) {
        let child = try await ChildProcess(executable, arguments, stdin: stdin)
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
