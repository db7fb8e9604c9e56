import Dispatch
import Foundation

/// Waits for SIGINT or SIGTERM.
enum Signals {
    /// Returns the name of the first SIGINT or SIGTERM received from now on.
    static func waitForTermination() async -> String {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        let sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
        defer { sources.forEach { $0.cancel() } }
        for await number in stream {
            return number == SIGINT ? "SIGINT" : "SIGTERM"
        }
        return "end of signals"
    }
}
