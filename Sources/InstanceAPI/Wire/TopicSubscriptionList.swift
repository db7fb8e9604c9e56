import Foundation
import WireJSON

/// One page of `GET …/registrations/{registration}/topicSubscriptions` (§2.6): the
/// registration's subscriptions as resource names, and the token of the next page, if any.
public struct TopicSubscriptionList: Codable, Sendable, Hashable {
    /// One subscription resource.
    public struct Subscription: Codable, Sendable, Hashable {
        /// `projects/{p}/registrations/{registration}/topicSubscriptions/{topic}`.
        public var name: String

        /// The JSON member names.
        enum CodingKeys: String, CodingKey, CaseIterable {
            case name
        }

        /// The topic as the API names it (`topicName`, or `topic_name`), when the answer gives it.
        public var topicName: String?

        /// The members read: `name`, and the topic's name in either spelling Google's pages show.
        private enum ReadKeys: String, CodingKey {
            case name, topicName
            case topicNameSnake = "topic_name"
        }

        /// A subscription called `name`.
        public init(name: String, topicName: String? = nil) {
            self.name = name
            self.topicName = topicName
        }

        /// Reads a subscription: its `name`, and its topic's name in either spelling.
        ///
        /// - Throws: `DecodingError` when `name` is missing or a member has the wrong type.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: ReadKeys.self)
            name = try container.decode(String.self, forKey: .name)
            topicName = try container.decodeIfPresent(String.self, forKey: .topicName) ?? container.decodeIfPresent(String.self, forKey: .topicNameSnake)
        }

        /// Writes the subscription as a subscribe call's body: its `name` alone.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
        }

        /// The JSON body of a subscribe call, written directly (the bytes a `JSONEncoder` would
        /// produce, without its cost on every call).
        public func jsonBytes() -> [UInt8] {
            var writer = JSONWriter(capacity: 16 + name.utf8.count)
            writer.beginObject()
            writer.member(CodingKeys.name.rawValue, name)
            writer.endObject()
            return writer.bytes
        }

        /// The topic: its `topicName` when the answer gives one, else the last segment of `name`,
        /// as it is (a resource name is not percent-encoded, and a topic may hold `%`).
        public var topic: String {
            if let topicName, !topicName.isEmpty { return topicName }
            return name.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? name
        }
    }

    /// This page's subscriptions (absent from the JSON when there are none).
    public var topicSubscriptions: [Subscription]?
    /// The token that fetches the next page; absent or empty on the last page.
    public var nextPageToken: String?

    /// The JSON member names written (the emulator's pages).
    enum CodingKeys: String, CodingKey {
        case topicSubscriptions, nextPageToken
    }

    /// The members read: each in either spelling Google's pages show (camelCase, snake_case).
    private enum ReadKeys: String, CodingKey {
        case topicSubscriptions, nextPageToken
        case topicSubscriptionsSnake = "topic_subscriptions"
        case nextPageTokenSnake = "next_page_token"
    }

    /// A page.
    public init(topicSubscriptions: [Subscription]?, nextPageToken: String?) {
        self.topicSubscriptions = topicSubscriptions
        self.nextPageToken = nextPageToken
    }

    /// Reads a page in either spelling. An object with members but none of a page's, or with an
    /// `error` beside them, is not a page (another API's answer, an error): read as an empty one,
    /// it would say the registration has no topics.
    ///
    /// - Throws: `DecodingError` for such an object, or members of the wrong type.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        if container.contains(AnyKey(stringValue: "error")) {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not a page of topic subscriptions: it holds an error"))
        }
        if !container.allKeys.isEmpty, !container.allKeys.contains(where: { ReadKeys(rawValue: $0.stringValue) != nil }) {
            let members = container.allKeys.map(\.stringValue).sorted().prefix(5).joined(separator: ", ")
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not a page of topic subscriptions (members: \(members))"))
        }
        let page = try decoder.container(keyedBy: ReadKeys.self)
        topicSubscriptions =
            try page.decodeIfPresent([Subscription].self, forKey: .topicSubscriptions)
            ?? page.decodeIfPresent([Subscription].self, forKey: .topicSubscriptionsSnake)
        nextPageToken = try page.decodeIfPresent(String.self, forKey: .nextPageToken) ?? page.decodeIfPresent(String.self, forKey: .nextPageTokenSnake)
    }

    /// Any member's name.
    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
