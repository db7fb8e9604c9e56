import CommandSupport
import Foundation
import Synchronization

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
    }

    /// Children still running, oldest first, so that a signal to the benchmark stops them too.
    private static let live = Mutex<[BenchChild]>([])

    private let process: Process
    private let state = Mutex(State())
    /// What it is, for messages.
    let name: String

    /// Starts this very executable with `arguments`.
    init(_ name: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        if !FileManager.default.isExecutableFile(atPath: process.executableURL!.path) {
            process.executableURL = Bundle.main.executableURL
        }
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        self.process = process
        self.name = name
        process.terminationHandler = { [weak self] process in self?.exited(process.terminationStatus) }
        try process.run()
        // Blocking reads on a thread of their own until the pipe's end, not `readabilityHandler`:
        // on Linux a libdispatch read source can crash the process when sources are set up and
        // torn down at once (swift-corelibs-libdispatch#949).
        // Whole lines are decoded: a read can end inside a character (`→`), a newline never does.
        let reader = pipe.fileHandleForReading
        Thread { [weak self] in
            var pending = Data()
            while true {
                let data = reader.availableData
                if data.isEmpty {
                    if !pending.isEmpty { self?.received(String(decoding: pending, as: UTF8.self)) }
                    return
                }
                pending.append(data)
                guard let newline = pending.lastIndex(of: UInt8(ascii: "\n")) else { continue }
                self?.received(String(decoding: pending[...newline], as: UTF8.self))
                pending.removeSubrange(...newline)
            }
        }.start()
        Self.live.withLock { $0.append(self) }
    }

    /// Starts the embedded broker (`iidbatch broker`) with `topics` (`NAME[:PARTITIONS]`) and
    /// returns it with its bootstrap servers, once it says them.
    static func broker(topics: [String]) async throws -> (child: BenchChild, bootstrap: String) {
        let broker = try BenchChild("broker", ["broker"] + topics.flatMap { ["--topic", $0] })
        return (broker, try await broker.line(startingWith: "bootstrap servers: "))
    }

    /// Starts `iidbatch emulator` with `arguments` and returns it with its base URL
    /// (`http://…` or `https://…`), once its start line says it.
    static func emulator(_ arguments: [String]) async throws -> (child: BenchChild, baseURL: String) {
        let emulator = try BenchChild("emulator", ["emulator"] + arguments)
        let announced = try await emulator.line(startingWith: "iidbatch emulator: ")
        guard let at = announced.range(of: " at ") else { throw RuntimeError(.software, "the emulator said '\(announced)'") }
        return (emulator, String(announced[at.upperBound...]))
    }

    /// Its process id.
    var pid: Int32 { process.processIdentifier }

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
        guard process.isRunning else { return }
        process.interrupt()
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
