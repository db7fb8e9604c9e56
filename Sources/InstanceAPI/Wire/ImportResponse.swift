/// Answer of batchImport: one entry per APNs token, in request order.
public struct ImportResponse: Codable, Sendable, Hashable {
    /// One entry of `results`.
    public struct Entry: Codable, Sendable, Hashable {
        /// The APNs token this entry is about.
        public var apnsToken: String
        /// `OK` or an error text.
        public var status: String
        /// The FCM registration token, for `OK` entries only.
        public var registrationToken: String?

        /// An entry.
        public init(apnsToken: String, status: String, registrationToken: String? = nil) {
            self.apnsToken = apnsToken
            self.status = status
            self.registrationToken = registrationToken
        }

        /// The wire names, every one written by `ImportResponse.jsonBytes()` too (a test holds the
        /// two together).
        enum CodingKeys: String, CodingKey, CaseIterable {
            case status
            case apnsToken = "apns_token"
            case registrationToken = "registration_token"
        }
    }

    /// One entry per APNs token, in request order.
    public var results: [Entry]

    /// An answer.
    public init(results: [Entry]) { self.results = results }

    /// The wire names, every one written by `jsonBytes()` too (a test holds the two together).
    enum CodingKeys: String, CodingKey, CaseIterable {
        case results
    }
}
