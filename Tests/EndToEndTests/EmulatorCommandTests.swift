import Foundation
import Glibc
import InstanceAPI
import Testing

@Suite("iidbatch emulator, as a user runs it")
struct EmulatorCommandTests {
    @Test("--write-key writes a key the running emulator accepts; the client works against it unchanged; Ctrl-C stops it")
    func writeKeyAndCall() async throws {
        let keyPath = FileManager.default.temporaryDirectory.appendingPathComponent("iidbatch-key-\(UUID()).json").path
        defer { try? FileManager.default.removeItem(atPath: keyPath) }
        let emulator = try await ChildProcess(
            try Programs.iidbatch, ["emulator", "--port", "0", "--project", "acme", "--write-key", keyPath, "--item-error", "INTERNAL=1"])
        let output = try await emulator.waitFor("Ctrl-C stops the emulator.")
        let baseURL = try #require(output.split(separator: "\n").first { $0.contains(" at http://") }.map { String($0.split(separator: " ").last!) })
        #expect(output.contains("faults: item INTERNAL 1.0"))

        let credentials = try ServiceAccountCredentials.load(from: keyPath)
        #expect(credentials.projectID == "acme" && credentials.tokenURI == baseURL + "/token")
        // Only the base URLs change: the token URI comes from the key file itself.
        var configuration = InstanceAPIConfiguration(iidBaseURL: baseURL, fcmBaseURL: baseURL, installationsBaseURL: baseURL)
        configuration.timeout = .seconds(30)
        let client = InstanceAPIClient(credentials: credentials, configuration: configuration)
        // The client is shut down whatever happens: one dropped running stops the test process.
        let calls: Result<Void, any Error>
        do {
            // The --item-error flag is in force: every token INTERNAL is the backend failing.
            let both = await #expect(throws: InstanceAPIError.self) { try await client.batchAdd(topic: "movies", tokens: ["a-token", "another-token"]) }
            #expect(both == .failedEveryItem(api: .batchAdd, code: .internal, message: "INTERNAL"), "\(String(describing: both))")
            // A single-item call answers an item fault with HTTP 500: a retryable failed call.
            let error = await #expect(throws: InstanceAPIError.self) { try await client.deleteInstance(id: "dNeverExisted000000000") }
            #expect(error?.resultCode == .internal && error?.isRetryable == true)
            calls = .success(())
        } catch {
            calls = .failure(error)
        }
        try await client.shutdown()
        try calls.get()

        emulator.interrupt()
        #expect(try await emulator.waitForExit() == 0)
        #expect(emulator.text.contains("stopped on SIGINT"))
    }

    @Test("on a fixed port, the key file and the seeded state are there the moment the port accepts a connection (issue 14)")
    func readyBeforeListening() async throws {
        let folder = try OperatorCommand.temporaryFolder("emulator-ready")
        defer { try? FileManager.default.removeItem(at: folder) }
        let keyPath = folder.appendingPathComponent("key.json").path
        let tokensPath = folder.appendingPathComponent("tokens.txt").path
        try "tok-ready\n".write(toFile: tokensPath, atomically: true, encoding: .utf8)
        // Below Linux's ephemeral range (32768+), where no client socket or mock broker takes it.
        let port = Int.random(in: TestPorts.emulator)
        let emulator = try await ChildProcess(try Programs.iidbatch, ["emulator", "--port", "\(port)", "--write-key", keyPath, "--tokens", tokensPath])
        // As a script waits for the port, then reads the key at once.
        try await waitUntil("port \(port) to accept connections (the emulator said: \(emulator.text))") { Self.accepts(port: port) }
        let credentials = try ServiceAccountCredentials.load(from: keyPath)
        #expect(credentials.tokenURI == "http://127.0.0.1:\(port)/token")
        let seeded = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/curl"), ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(port)/emulator/v1/tokens/tok-ready"])
        #expect(seeded.output == "200", "seeded before listening: \(seeded.output)")
        emulator.interrupt()
        #expect(try await emulator.waitForExit() == 0)
    }

    /// Whether a TCP connection to `port` on loopback succeeds now.
    private static func accepts(port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    @Test("a malformed fault flag is refused with the flag and value named")
    func badFlag() async throws {
        let result = try await ChildProcess.run(try Programs.iidbatch, ["emulator", "--port", "0", "--item-error", "INTERNAL=lots"])
        #expect(result.status != 0)
        #expect(result.output.contains("--item-error") && result.output.contains("INTERNAL=lots"))
    }

    @Test("bench emulator prints calls/s and items/s per concurrency")
    func benchEmulator() async throws {
        let result = try await ChildProcess.run(
            try Programs.iidbatch, ["bench", "emulator", "--calls", "20", "--tokens-per-call", "100", "--concurrency", "1,4"], seconds: 180)
        #expect(result.status == 0, "\(result.output)")
        let lines = result.output.split(separator: "\n").filter { $0.contains("calls/s") && $0.contains("items/s") }
        #expect(lines.count == 2, "\(result.output)")
    }
}
