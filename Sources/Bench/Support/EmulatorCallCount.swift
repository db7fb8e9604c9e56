import AsyncHTTPClient
import CommandSupport
import Emulator
import Foundation
import NIOCore
import NIOFoundationCompat

/// The backend calls an emulator has answered, all APIs together, read from its admin API
/// (`GET /emulator/v1/stats`), so that a benchmark can say how full its calls were.
struct EmulatorCallCount: Sendable, Equatable {
    /// Calls answered.
    var calls: Int
    /// Items those calls carried.
    var items: Int

    /// A count of `calls` calls carrying `items` items.
    init(calls: Int, items: Int) {
        self.calls = calls
        self.items = items
    }

    /// The count in `stats`.
    init(_ stats: EmulatorStats) {
        calls = stats.apis.values.reduce(0) { $0 + $1.calls }
        items = stats.apis.values.reduce(0) { $0 + $1.items }
    }

    /// The emulator at `baseURL`'s count so far.
    static func read(baseURL: String, client: HTTPClient = .shared) async throws -> EmulatorCallCount {
        EmulatorCallCount(try await stats(baseURL: baseURL, client: client))
    }

    /// The emulator at `baseURL`'s stats so far, read with `client` (one that trusts its
    /// certificate, when it serves HTTPS).
    static func stats(baseURL: String, client: HTTPClient = .shared) async throws -> EmulatorStats {
        let request = HTTPClientRequest(url: baseURL + "/emulator/v1/stats")
        let response = try await client.execute(request, timeout: .seconds(10))
        guard response.status == .ok else { throw RuntimeError(.software, "the emulator's stats at \(baseURL) answered \(response.status.code)") }
        return try JSONDecoder().decode(EmulatorStats.self, from: Data(buffer: try await response.body.collect(upTo: 1 << 20)))
    }

    /// The calls and items since `earlier`.
    func since(_ earlier: EmulatorCallCount) -> EmulatorCallCount {
        EmulatorCallCount(calls: calls - earlier.calls, items: items - earlier.items)
    }
}
