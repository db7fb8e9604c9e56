import Emulator
import Foundation
import Testing

/// `iidbatch run` runs its Swift tasks on one event loop (a call's hand-offs stay on one
/// thread), unless the operator asks NIO for more with its own environment variable.
@Suite("iidbatch run's event loops")
struct EventLoopCountTests {
    /// The loops of NIO's singleton group in process `pid`, by their threads' names
    /// (`NIO-SGLTN-<group>-#<loop>`). Distinct names: a thread another one starts carries its
    /// creator's name until it names itself.
    private static func loopThreads(of pid: Int32) throws -> Set<String> {
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
        return Set(
            tasks.compactMap { task in
                let name = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
                return name.flatMap { $0.wholeMatch(of: /NIO-SGLTN-\d+-#\d+/) != nil ? $0 : nil }
            })
    }

    @Test(
        "one loop by default and with a variable NIO cannot use; NIO_SINGLETON_GROUP_LOOP_COUNT=2 gives two",
        arguments: [(nil, 1), ("2", 2), ("", 1), ("auto", 1)] as [(String?, Int)])
    func loops(variable: String?, expected: Int) async throws {
        let folder = try OperatorCommand.temporaryFolder("loops")
        defer { try? FileManager.default.removeItem(at: folder) }
        let pipeline = folder.appendingPathComponent("p.yaml").path
        let key = folder.appendingPathComponent("key.json").path
        try "request-topic: loop-requests\ngroup: loop-workers\n".write(toFile: pipeline, atomically: true, encoding: .utf8)
        let backend = try EmulatorBackend(configuration: EmulatorConfiguration())
        try backend.makeServiceAccountKey(tokenURI: "http://127.0.0.1:1/token").write(to: URL(fileURLWithPath: key))
        let nobody = try DeadBroker.closed()
        // A cluster that refuses: the process stays up for its --timeout (far longer than a loaded
        // runner may take to get here), until the test kills it.
        let child = try await ChildProcess(
            try Programs.iidbatch, ["run", pipeline, "--credentials", key, "--brokers", nobody.address, "--timeout", "600s"],
            environment: variable.map { ["NIO_SINGLETON_GROUP_LOOP_COUNT": $0] } ?? [:], removing: variable == nil ? ["NIO_SINGLETON_GROUP_LOOP_COUNT"] : [])
        defer { child.kill() }
        _ = try await child.waitFor("iidbatch run: Kafka:")
        // The loops start with NIO's first task, and each names itself once running: by the
        // line above they may not have yet (seen on a loaded debug build). Read until as many as
        // expected are there (a bound against hangs), then once more a moment later, so that one
        // too many shows.
        var threads = try Self.loopThreads(of: child.pid)
        for _ in 0..<200 where threads.count < expected {
            try await Task.sleep(for: .milliseconds(50))
            threads = try Self.loopThreads(of: child.pid)
        }
        try await Task.sleep(for: .milliseconds(300))
        threads = try Self.loopThreads(of: child.pid)
        #expect(threads.count == expected, "\(threads.sorted())")
        withExtendedLifetime(nobody) {}
    }
}
