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

        /// A subscription called `name`.
        public init(name: String) { self.name = name }

        /// The JSON body of a subscribe call, written directly (the bytes a `JSONEncoder` would
        /// produce, without its cost on every call).
        public func jsonBytes() -> [UInt8] {
            var writer = JSONWriter(capacity: 16 + name.utf8.count)
            writer.beginObject()
            writer.member(CodingKeys.name.rawValue, name)
            writer.endObject()
            return writer.bytes
        }

        /// The topic: the last segment of `name`, percent-decoded.
        public var topic: String {
            let last = name.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? name
            return last.removingPercentEncoding ?? last
        }
    }

    /// This page's subscriptions (absent from the JSON when there are none).
    public var topicSubscriptions: [Subscription]?
    /// The token that fetches the next page; absent or empty on the last page.
    public var nextPageToken: String?

    /// A page.
    public init(topicSubscriptions: [Subscription]?, nextPageToken: String?) {
        self.topicSubscriptions = topicSubscriptions
        self.nextPageToken = nextPageToken
    }
}
