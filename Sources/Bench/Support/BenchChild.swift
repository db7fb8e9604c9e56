import CommandSupport
import Foundation
import Kafka
import Subprocess
import Synchronization
import SystemPackage

/// A process a benchmark starts (the broker, the emulator, a worker): its output collected, waited
/// on line by line, and stopped with SIGINT (then SIGKILL) when the benchmark ends, or when the
/// benchmark itself is stopped by a signal (`stopAll()`). Every wait is resumed by the child's
/// output or exit, never by polling.
final class BenchChild: Sendable {
    private struct State {
        var text = ""
        /// Its termination status, once it has exited.
        var exitStatus: Int32?
        var lineWaiters: [Int: (prefix: String, continuation: CheckedContinuation<String, any Error>)] = [:]
        var exitWaiters: [CheckedContinuation<Void, Never>] = []
        var nextWaiter = 0
        /// Its process id, once it runs.
        var pid: Int32 = 0
        /// Whether it started, once known, and the `init` waiting to know it.
        var started: Result<Void, any Error>?
        var starting: CheckedContinuation<Void, any Error>?
    }

    /// Children still running, oldest first, so that a signal to the benchmark stops them too.
    private static let live = Mutex<[BenchChild]>([])

    private let state = Mutex(State())
    /// What it is, for messages.
    let name: String
    /// Its process id.
    var pid: Int32 { state.withLock { $0.pid } }

    /// Starts this very executable with `arguments`; returns once it runs. Its stdout and stderr
    /// are collected together. Spawned by swift-subprocess, not Foundation's `Process`,
    /// whose `run()` can crash the benchmark on this toolchain (swift-corelibs-foundation#5472).
    init(_ name: String, _ arguments: [String]) async throws {
        var executable = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        if !FileManager.default.isExecutableFile(atPath: executable.path), let own = Bundle.main.executableURL { executable = own }
        self.name = name
        // Not cancelled with the waiting task: a child that started is in `live` at once, so it
        // is stopped with the others, never left running unseen.
        // A turn of `ForkTurns.shared` until the child execs: a broker cut of an embedded cluster
        // in this process must not rebind its port while the fork holds a copy of the socket.
        let program = executable
        try await ForkTurns.shared.taking { () async throws in
            Task.detached { [weak self] in await self?.run(program, arguments) }
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let known = state.withLock { state in
                    if state.started == nil { state.starting = continuation }
                    return state.started
                }
                if let known { continuation.resume(with: known) }
            }
        }
    }

    /// Runs the child until it exits, collecting its output; resumes `init` once it started.
    private func run(_ executable: URL, _ arguments: [String]) async {
        do {
            let result = try await Subprocess.run(
                .path(FilePath(executable.path)), arguments: Arguments(arguments), input: .none, output: .sequence, error: .combinedWithOutput
            ) { execution in
                let starting = state.withLock { state in
                    state.pid = execution.processIdentifier.value
                    state.started = .success(())
                    return state.starting.take()
                }
                // Live once its pid is known: `stopAll()` never signals pid 0 (its own group).
                Self.live.withLock { $0.append(self) }
                starting?.resume()
                // Whole lines are decoded: a read can end inside a character (`→`), a newline never does.
                var pending = Data()
                for try await buffer in execution.standardOutput {
                    pending.append(Data(buffer: buffer))
                    guard let newline = pending.lastIndex(of: UInt8(ascii: "\n")) else { continue }
                    received(String(decoding: pending[...newline], as: UTF8.self))
                    pending.removeSubrange(...newline)
                }
                if !pending.isEmpty { received(String(decoding: pending, as: UTF8.self)) }
            }
            switch result.terminationStatus {
            case .exited(let code): exited(code)
            case .signaled(let signal): exited(signal)
            }
        } catch {
            let failure = RuntimeError(.software, "\(name) did not start: \(error)")
            let (spawned, waiter) = state.withLock { state in
                let spawned = state.started != nil
                if !spawned { state.started = .failure(failure) }
                return (spawned, state.starting.take())
            }
            if spawned { received("\n[\(name): reading its output failed: \(error)]\n") }
            waiter?.resume(throwing: failure)
            exited(-1)
        }
    }

    /// Starts the embedded broker (`iidbatch broker`) with `topics` (`NAME[:PARTITIONS]`) and
    /// returns it with its bootstrap servers, once it says them.
    static func broker(topics: [String]) async throws -> (child: BenchChild, bootstrap: String) {
        let broker = try await BenchChild("broker", ["broker"] + topics.flatMap { ["--topic", $0] })
        return (broker, try await broker.announcement("bootstrap servers: "))
    }

    /// Starts `iidbatch emulator` with `arguments` and returns it with its base URL
    /// (`http://…` or `https://…`), once its start line says it.
    static func emulator(_ arguments: [String]) async throws -> (child: BenchChild, baseURL: String) {
        let emulator = try await BenchChild("emulator", ["emulator"] + arguments)
        let announced = try await emulator.announcement("iidbatch emulator: ")
        guard let at = announced.range(of: " at ") else {
            await emulator.stop()
            throw RuntimeError(.software, "the emulator said '\(announced)'")
        }
        return (emulator, String(announced[at.upperBound...]))
    }

    /// The rest of the first line that starts with `prefix`, as `line(startingWith:seconds:)`; a
    /// child that never writes it is stopped, as no caller holds it to stop.
    private func announcement(_ prefix: String) async throws -> String {
        do { return try await line(startingWith: prefix) } catch {
            await stop()
            throw error
        }
    }

    /// Its exit status, once it has exited.
    var exitStatus: Int32? { state.withLock { $0.exitStatus } }

    /// Everything it wrote so far.
    var text: String { state.withLock { $0.text } }

    /// Its CPU time and peak memory so far.
    var usage: ProcessUsage? { ProcessUsage.of(pid: pid) }

    /// The rest of the first whole line that starts with `prefix`, once written; throws if the
    /// process exits first or after `seconds`.
    func line(startingWith prefix: String, seconds: Double = 60) async throws -> String {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        let deadline = Task { [weak self] in
            try await Task.sleep(for: .seconds(seconds))
            self?.fail(id, RuntimeError(.software, "\(self?.name ?? "child") wrote no '\(prefix)' within \(Int(seconds)) s:\n\(self?.text ?? "")"))
        }
        defer { deadline.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            state.withLock { state in
                if let line = Self.line(in: state.text, startingWith: prefix) {
                    continuation.resume(returning: line)
                } else if let status = state.exitStatus {
                    continuation.resume(throwing: RuntimeError(.software, "\(name) exited (\(status)) before '\(prefix)':\n\(state.text)"))
                } else {
                    state.lineWaiters[id] = (prefix, continuation)
                }
            }
        }
    }

    /// Waits for it to exit by itself and returns its status; kills it after `seconds`.
    func exitStatus(within seconds: Double) async -> Int32 {
        let pid = self.pid
        let killer = Task {
            try await Task.sleep(for: .seconds(seconds))
            kill(pid, SIGKILL)
        }
        defer { killer.cancel() }
        await withCheckedContinuation { continuation in
            state.withLock { state in
                if state.exitStatus != nil { continuation.resume() } else { state.exitWaiters.append(continuation) }
            }
        }
        return state.withLock { $0.exitStatus ?? -1 }
    }

    /// Sends SIGINT and waits up to 30 s for the exit, then kills it.
    func stop() async {
        guard state.withLock({ $0.exitStatus == nil }) else { return }
        kill(pid, SIGINT)
        let pid = self.pid
        let killer = Task {
            try await Task.sleep(for: .seconds(30))
            kill(pid, SIGKILL)
        }
        await withCheckedContinuation { continuation in
            state.withLock { state in
                if state.exitStatus != nil { continuation.resume() } else { state.exitWaiters.append(continuation) }
            }
        }
        killer.cancel()
    }

    /// Stops every child still running, newest first (a worker before the broker and the
    /// emulator it uses): the benchmark is being stopped.
    static func stopAll() async {
        for child in live.withLock({ $0 }).reversed() { await child.stop() }
    }

    /// Until cancelled, waits for SIGINT or SIGTERM, then stops every child still running,
    /// removes `folder`, says `<bench>: stopped on <signal>` and ends the process with 130: a
    /// benchmark stopped by a signal leaves no process or file behind. Cancel it when the
    /// benchmark ends.
    static func stopAllOnSignal(_ bench: String, removing folder: URL) -> Task<Void, Never> {
        Task {
            let signal = await Signals.waitForTermination()
            guard !Task.isCancelled else { return }
            await stopAll()
            try? FileManager.default.removeItem(at: folder)
            Output.line("\(bench): stopped on \(signal)")
            ProcessExit.now(130)
        }
    }

    // MARK: - Events

    private func received(_ output: String) {
        state.withLock { state in
            state.text += output
            for (id, waiter) in state.lineWaiters {
                guard let line = Self.line(in: state.text, startingWith: waiter.prefix) else { continue }
                state.lineWaiters[id] = nil
                waiter.continuation.resume(returning: line)
            }
        }
    }

    private func exited(_ status: Int32) {
        Self.live.withLock { $0.removeAll { $0 === self } }
        state.withLock { state in
            state.exitStatus = status
            for waiter in state.lineWaiters.values {
                waiter.continuation.resume(throwing: RuntimeError(.software, "\(name) exited (\(status)) before '\(waiter.prefix)':\n\(state.text)"))
            }
            state.lineWaiters = [:]
            for waiter in state.exitWaiters { waiter.resume() }
            state.exitWaiters = []
        }
    }

    private func fail(_ id: Int, _ error: RuntimeError) {
        state.withLock { state in state.lineWaiters.removeValue(forKey: id)?.continuation.resume(throwing: error) }
    }

    /// The rest of the first whole (newline-ended) line of `text` starting with `prefix`.
    private static func line(in text: String, startingWith prefix: String) -> String? {
        guard let end = text.lastIndex(of: "\n") else { return nil }
        return text[..<end].split(separator: "\n").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }
}
