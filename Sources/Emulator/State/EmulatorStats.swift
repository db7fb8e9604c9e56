/// What the emulator served, per API: `GET /emulator/v1/stats`.
public struct EmulatorStats: Codable, Sendable, Hashable {
    /// Counters of one API.
    public struct API: Codable, Sendable, Hashable {
        /// Calls answered.
        public var calls = 0
        /// Items in those calls.
        public var items = 0
        /// The most items one call carried.
        public var maxItemsPerCall = 0
        /// Answers by HTTP status.
        public var statuses: [String: Int] = [:]
        /// Per-item results by code, for batch APIs.
        public var itemCodes: [String: Int] = [:]
        /// Calls the quota throttled (429, or every item `RESOURCE_EXHAUSTED`).
        public var throttled = 0

        /// Counters with every field zero.
        public init() {}

        /// Counts one call answered `status` with `items` items, whose items ended on `codes`
        /// (each code with how many items ended on it; a code may come more than once).
        mutating func count(status: Int, items: Int, codes: [(code: String, count: Int)], throttled: Bool) {
            calls += 1
            self.items += items
            maxItemsPerCall = max(maxItemsPerCall, items)
            statuses[String(status), default: 0] += 1
            for (code, count) in codes { itemCodes[code, default: 0] += count }
            if throttled { self.throttled += 1 }
        }

        /// Decodes one API's figures.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            calls = try container.decode(Int.self, forKey: .calls)
            items = try container.decode(Int.self, forKey: .items)
            maxItemsPerCall = try container.decode(Int.self, forKey: .maxItemsPerCall)
            statuses = try container.decode([String: Int].self, forKey: .statuses)
            itemCodes = try container.decode([String: Int].self, forKey: .itemCodes)
            throttled = try container.decodeIfPresent(Int.self, forKey: .throttled) ?? 0
        }
    }

    /// By API name (`iid.batchAdd`, …).
    public var apis: [String: API] = [:]
    /// TCP connections the server accepted since it started (each HTTP/2 connection carries
    /// many calls; each HTTP/1.1 one, one at a time).
    public var connections = 0

    /// Counters with every field zero.
    public init() {}

    /// Decodes the stats; `connections` is 0 when absent (an emulator from before it was counted).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        apis = try container.decode([String: API].self, forKey: .apis)
        connections = try container.decodeIfPresent(Int.self, forKey: .connections) ?? 0
    }

    /// The counters of `api`, zero when it was never called.
    public subscript(api: String) -> API { apis[api] ?? API() }
}
