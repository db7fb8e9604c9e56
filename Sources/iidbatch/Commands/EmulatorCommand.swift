import ArgumentParser
import CommandSupport
import Emulator
import Foundation
import InstanceAPI
import NIOCore
import NIOPosix

/// `iidbatch emulator`: the backend APIs on loopback, for development, the demo and tests.
struct EmulatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "emulator",
        abstract: "Serve the Google backend APIs (Instance ID, FCM topics and groups, deletion, OAuth2) on one port.",
        discussion: """
            Paths, JSON, statuses and limits are Google's, so the same client (ours, or a Firebase \
            Admin SDK with its base URLs pointed here) works unchanged. --write-key writes a \
            service-account key whose token_uri is this emulator's /token. State lives in memory. \
            Admin endpoints under /emulator/v1/ seed tokens and installations (POST seed), read \
            state back (GET tokens/T, topics/T, installations/ID, groups/NAME, stats) and change \
            faults at runtime (GET|PUT faults, POST revoke-tokens). Faults are drawn from one \
            generator seeded by --seed.
            """
    )

    @Option(help: "Interface to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0 picks a free one).")
    var port = 8080

    @Option(help: "The project id its Google paths serve.")
    var project = "demo"

    @Option(help: "The project number (sender id) it reports as authorizedEntity.")
    var projectNumber = "123456789012"

    @Option(help: "Seed of the fault injector.")
    var seed: UInt64 = 1

    @Option(help: ArgumentHelp("Write a service-account key this emulator accepts to FILE.", valueName: "file"))
    var writeKey: String?

    @Option(help: ArgumentHelp("Also accept the key in FILE (written by an earlier run). Repeatable.", valueName: "file"))
    var trustKey: [String] = []

    @Option(help: ArgumentHelp("Registration tokens to create at start, one per line (an app's existing tokens).", valueName: "file"))
    var tokens: String?

    @Option(help: ArgumentHelp("Installation ids to create at start, one per line.", valueName: "file"))
    var installations: String?

    @Option(help: ArgumentHelp("Fail items with CODE at RATE (0-1). Repeatable.", valueName: "CODE=RATE"))
    var itemError: [String] = []

    @Option(help: ArgumentHelp("Fail whole calls with an HTTP STATUS at RATE. Repeatable.", valueName: "STATUS=RATE"))
    var callError: [String] = []

    @Option(
        help: ArgumentHelp(
            "Answer whole calls with an HTTP STATUS at RATE with an HTML page, not the API's error (a proxy, a wrong path). Repeatable.",
            valueName: "STATUS=RATE"))
    var pageError: [String] = []

    @Option(
        help: ArgumentHelp("The Retry-After sent with throttled calls, outages and injected failures, verbatim (seconds or an HTTP date).", valueName: "value"))
    var retryAfter: String?

    @Option(help: ArgumentHelp("Calls per second per API, or API=N for one API (e.g. iid.batchAdd=50). Repeatable.", valueName: "N|API=N"))
    var quota: [String] = []

    @Option(help: ArgumentHelp("Latency added to every call, in milliseconds.", valueName: "ms"))
    var latency: Double = 0

    @Option(help: ArgumentHelp("Extra random latency up to this many milliseconds.", valueName: "ms"))
    var jitter: Double = 0

    @Option(help: ArgumentHelp("An outage (every call 503) from START seconds after start, for DURATION seconds. Repeatable.", valueName: "START+DURATION"))
    var outage: [String] = []

    @Flag(
        help: """
            Behave like a project created after the onboarding cut-offs: Instance ID calls and device-group \
            calls are refused with 403 PERMISSION_DENIED (the Instance ID API as SERVICE_DISABLED), as Google \
            refuses them; FCM v1 topics and deletions work.
            """)
    var newProject = false

    @Option(help: ArgumentHelp("The most subscriptions one page of the FCM v1 topic list holds.", valueName: "n"))
    var topicListPageSize = 100

    @Option(
        help: ArgumentHelp(
            "Serve HTTPS (HTTP/2 and HTTP/1.1 by ALPN) with the PEM certificate chain in FILE; needs --tls-key. Clients trust it with --ca-file or $SSL_CERT_FILE.",
            valueName: "file"))
    var tlsCert: String?

    @Option(help: ArgumentHelp("The PEM private key of --tls-cert.", valueName: "file"))
    var tlsKey: String?

    func validate() throws {
        guard (tlsCert == nil) == (tlsKey == nil) else { throw ValidationError("--tls-cert and --tls-key go together") }
        guard (1...16).contains(threads) else { throw ValidationError("--threads must be 1...16, got \(threads)") }
    }

    @Option(
        help: ArgumentHelp(
            "Threads serving connections. One (the default) costs the machine least; serving TLS and HTTP/2 to hundreds of streams at once, one thread adds its own latency (bench field uses 2).",
            valueName: "n"))
    var threads = 1

    func run() async throws {
        // One thread by default serves every connection and runs every task. The state sits behind one
        // lock, so a second thread added no throughput: it waited on the lock, and the kernel
        // spins a waiter on Linux (a PI futex) while the holder runs, taking a core from whatever
        // shares the machine: the worker under test in `bench worker`, the demo's worker. Measured
        // there (release, topics-1000, alternating runs): the worker's CPU per item fell from a
        // median 0.41 to 0.35 CPU-s per million, the emulator's own from 1.3-1.5 to about 1.05,
        // at the same items/s.
        // Over TLS at 800 concurrent HTTP/2 streams one thread added ~150 ms to every answer: a
        // worker running the shipped topic file at 200 ms reached 81.7 % of a 3,000/s quota within
        // its 8 connections, 96.9 % with a second thread (`bench field`, release).
        NIOSingletons.groupLoopCountSuggestion = threads
        _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        guard topicListPageSize >= 1 else { throw ValidationError("--topic-list-page-size: must be at least 1, got \(topicListPageSize)") }
        let faults: FaultPlan
        do {
            faults = try FaultPlan.parse(
                itemErrors: itemError, callErrors: callError, quotas: quota, latencyMilliseconds: latency, jitterMilliseconds: jitter, outages: outage,
                pageErrors: pageError, retryAfter: retryAfter)
        } catch { throw ValidationError(error.description) }
        var tls: EmulatorTLS?
        if let tlsCert, let tlsKey {
            do { tls = try EmulatorTLS(certificateFile: tlsCert, keyFile: tlsKey) } catch { throw RuntimeError(.config, "--tls-cert/--tls-key: \(error)") }
        }
        let configuration = EmulatorConfiguration(
            host: host, port: port, projectID: project, projectNumber: projectNumber, seed: seed, faults: faults,
            newProject: newProject, topicListPageSize: topicListPageSize, tls: tls)
        // Everything is ready before the port opens: a script that waits for the port finds the
        // key file (written atomically) and the seeded state.
        let backend = try EmulatorBackend(configuration: configuration)
        for path in trustKey {
            guard let data = FileManager.default.contents(atPath: path) else { throw RuntimeError(.noInput, "--trust-key: cannot read \(path)") }
            do { try backend.trustServiceAccountKey(data) } catch { throw RuntimeError(.config, "--trust-key \(path): \(error)") }
        }
        let seed = SeedRequest(tokens: try lines(of: tokens, option: "--tokens"), installations: try lines(of: installations, option: "--installations"))
        if !seed.tokens.isEmpty || !seed.installations.isEmpty { backend.seed(seed) }
        func writeKeyFile(to path: String, baseURL: String) throws {
            let json = try backend.makeServiceAccountKey(tokenURI: baseURL + "/token")
            do { try json.write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
                throw RuntimeError(.ioError, "--write-key: cannot write \(path): \(error)")
            }
        }
        if let writeKey, port != 0 { try writeKeyFile(to: writeKey, baseURL: "\(tls == nil ? "http" : "https")://\(host):\(port)") }
        let server = try await EmulatorServer.start(backend)
        // An ephemeral port is known only once bound: the key follows, before the banner says so.
        if let writeKey, port == 0 { try writeKeyFile(to: writeKey, baseURL: server.baseURL) }
        if !seed.tokens.isEmpty || !seed.installations.isEmpty {
            Output.line("seeded \(seed.tokens.count) registration token(s) and \(seed.installations.count) installation(s)")
        }
        Output.line("iidbatch emulator: project \(project) (number \(projectNumber)) at \(server.baseURL)")
        Output.line("token endpoint: \(server.baseURL)/token")
        if let writeKey { Output.line("service-account key written to \(writeKey)") }
        if faults != FaultPlan() { Output.line("faults: \(describe(faults))") }
        Output.line("Ctrl-C stops the emulator.")
        let signal = await Signals.waitForTermination()
        await server.shutdown()
        Output.line("stopped on \(signal)")
    }

    private func lines(of path: String?, option: String) throws -> [String] {
        guard let path else { return [] }
        guard let data = FileManager.default.contents(atPath: path) else { throw RuntimeError(.noInput, "\(option): cannot read \(path)") }
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    private func describe(_ plan: FaultPlan) -> String {
        var parts: [String] = []
        parts += plan.itemErrors.sorted { $0.key < $1.key }.map { "item \($0.key) \($0.value)" }
        parts += plan.callErrors.sorted { $0.key < $1.key }.map { "call \($0.key) \($0.value)" }
        parts += plan.quota.sorted { $0.key < $1.key }.map { "quota \($0.key) \($0.value)/s" }
        if plan.latencyMilliseconds > 0 || plan.jitterMilliseconds > 0 { parts.append("latency \(plan.latencyMilliseconds)+\(plan.jitterMilliseconds) ms") }
        parts += plan.outages.map { "outage at \($0.startSeconds)s for \($0.durationSeconds)s" }
        parts += plan.pageErrors.sorted { $0.key < $1.key }.map { "page \($0.key) \($0.value)" }
        if let retryAfter = plan.retryAfter { parts.append("Retry-After \(retryAfter)") }
        return parts.joined(separator: ", ")
    }
}
