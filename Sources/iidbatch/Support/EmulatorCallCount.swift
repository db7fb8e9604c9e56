import AsyncHTTPClient
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

    /// The emulator at `baseURL`'s count so far.
    static func read(baseURL: String) async throws -> EmulatorCallCount {
        let request = HTTPClientRequest(url: baseURL + "/emulator/v1/stats")
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        guard response.status == .ok else { throw RuntimeError(.software, "the emulator's stats answered \(response.status.code)") }
        let stats = try JSONDecoder().decode(EmulatorStats.self, from: Data(buffer: try await response.body.collect(upTo: 1 << 20)))
        return EmulatorCallCount(calls: stats.apis.values.reduce(0) { $0 + $1.calls }, items: stats.apis.values.reduce(0) { $0 + $1.items })
    }

    /// The calls and items since `earlier`.
    func since(_ earlier: EmulatorCallCount) -> EmulatorCallCount {
        EmulatorCallCount(calls: calls - earlier.calls, items: items - earlier.items)
    }
}
