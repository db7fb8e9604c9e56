import Foundation
import Testing

@testable import InstanceAPI

/// A registration holds at most 2,000 topics (§2.6): pages that list more are not the API's answer,
/// and are refused before they hold more names than that (they went into an outcome, unbounded).
@Suite("The FCM v1 topic list: pages gathered up to what one registration can hold")
struct TopicListingTests {
    /// The instant the tests' listings start at.
    static let start = ContinuousClock.now

    /// A listing of 30 s from `start`.
    static func listing() -> TopicListing { TopicListing(registration: "r", start: start, time: .seconds(30)) }

    private static func page(_ count: Int, from first: Int = 0, next: String?) -> TopicSubscriptionList {
        TopicSubscriptionList(
            topicSubscriptions: (first..<first + count).map { .init(name: "projects/p/registrations/r/topicSubscriptions/t\($0)") }, nextPageToken: next)
    }

    @Test("two pages of 1,000 are the registration's 2,000 topics, in order; an empty token ends the list")
    func fullRegistration() throws {
        var listing = Self.listing()
        #expect(try listing.add(Self.page(1_000, next: "2"), status: 200, now: Self.start) == "2")
        #expect(try listing.add(Self.page(1_000, from: 1_000, next: ""), status: 200, now: Self.start) == nil)
        #expect(listing.topics.count == APILimits.topicsPerInstance)
        #expect(listing.topics.first == "t0" && listing.topics.last == "t1999")
    }

    @Test("a page listing another registration's subscription, or holding an error, is not the API's answer about this one")
    func anotherRegistrationOrAnError() throws {
        for name in ["projects/p/registrations/other/topicSubscriptions/t", "projects/p/registrations/r/other/topicSubscriptions/t", "t"] {
            var listing = Self.listing()
            #expect(throws: InstanceAPIError.self, "\(name)") {
                try listing.add(TopicSubscriptionList(topicSubscriptions: [.init(name: name)], nextPageToken: nil), status: 200, now: Self.start)
            }
        }
        // The registration as it is or with its escapes decoded (a token holds `:`).
        var tokens = TopicListing(registration: "a:b", start: Self.start, time: .seconds(30))
        let named = ["projects/p/registrations/a:b/topicSubscriptions/t1", "projects/p/registrations/a%3Ab/topicSubscriptions/t2"]
        let page = TopicSubscriptionList(topicSubscriptions: named.map { .init(name: $0) }, nextPageToken: nil)
        #expect(try tokens.add(page, status: 200, now: Self.start) == nil)
        #expect(tokens.topics == ["t1", "t2"])
        let errorBeside = Data(#"{"error": {"code": 404, "status": "NOT_FOUND"}, "nextPageToken": ""}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(TopicSubscriptionList.self, from: errorBeside) }
    }

    @Test("a page past 2,000 topics is a malformed answer, and its names are not kept")
    func tooManyTopics() throws {
        var listing = Self.listing()
        _ = try listing.add(Self.page(1_500, next: "2"), status: 200, now: Self.start)
        let error = #expect(throws: InstanceAPIError.self) { try listing.add(Self.page(501, next: nil), status: 200, now: Self.start) }
        guard case .malformedResponse(api: .fcmListTopics, status: 200, let message)? = error else {
            Issue.record("not a malformed answer: \(String(describing: error))")
            return
        }
        #expect(message.contains("2001 topics"), "\(message)")
        #expect(listing.topics.count == 1_500)
        #expect(throws: InstanceAPIError.self) { try Self.listing().adding(Self.page(2_001, next: nil)) }
    }

    @Test(
        "a listed topic that is no topic name (over 900 bytes, or bytes a name cannot hold) is a malformed answer: a name's bytes are bounded, not only their count"
    )
    func topicNamesBounded() throws {
        func listing(_ topic: String) throws -> TopicListing {
            try Self.listing().adding(
                TopicSubscriptionList(topicSubscriptions: [.init(name: "projects/p/registrations/r/topicSubscriptions/" + topic)], nextPageToken: nil))
        }
        #expect(try listing(String(repeating: "a", count: APILimits.topicNameBytes)).topics.count == 1)
        #expect(try listing("news%20-_.~9").topics == ["news%20-_.~9"])
        let prefixed = try Self.listing().adding(
            TopicSubscriptionList(
                topicSubscriptions: [.init(name: "projects/p/registrations/r/topicSubscriptions/news", topicName: "/topics/news")], nextPageToken: nil))
        #expect(prefixed.topics == ["news"], "a topic name given with its /topics/ prefix is the topic")
        for topic in [String(repeating: "a", count: APILimits.topicNameBytes + 1), String(repeating: "x", count: 4_000_000), "a b", "caf\u{E9}", ""] {
            #expect(throws: InstanceAPIError.self, "\(topic.prefix(20)) (\(topic.utf8.count) bytes)") { try listing(topic) }
        }
    }

    @Test("the pages have one call's time together: a next page named at or after it is a timeout; the last page is taken whenever it comes")
    func listingDeadline() throws {
        var listing = Self.listing()
        #expect(try listing.add(Self.page(1, next: "2"), status: 200, now: Self.start + .seconds(29)) == "2")
        let error = #expect(throws: InstanceAPIError.self) { try listing.add(Self.page(1, from: 1, next: "3"), status: 200, now: Self.start + .seconds(30)) }
        guard case .timedOut(api: .fcmListTopics, timeout: .seconds(30))? = error else {
            Issue.record("not a timeout: \(String(describing: error))")
            return
        }
        var last = Self.listing()
        #expect(try last.add(Self.page(3, next: nil), status: 200, now: Self.start + .seconds(300)) == nil && last.topics.count == 3)
    }

    @Test("empty pages that page on past 2,000 are a loop, refused")
    func endlessPages() throws {
        var listing = Self.listing()
        for _ in 0..<APILimits.topicsPerInstance { #expect(try listing.add(Self.page(0, next: "again"), status: 200, now: Self.start) == "again") }
        #expect(throws: InstanceAPIError.self) { try listing.add(Self.page(0, next: "again"), status: 200, now: Self.start) }
    }
}

extension TopicListing {
    /// `self` with `page` added (answered 200).
    fileprivate func adding(_ page: TopicSubscriptionList) throws -> TopicListing {
        var listing = self
        _ = try listing.add(page, status: 200, now: TopicListingTests.start)
        return listing
    }
}

extension TopicListingTests {
    @Test("a page is read in either spelling Google's pages show (camelCase or snake_case), the topic from its topic name when given")
    func spellings() throws {
        let camel = #"{"topicSubscriptions": [{"name": "projects/p/registrations/r/topicSubscriptions/news"}], "nextPageToken": "2"}"#
        let snake = #"{"topic_subscriptions": [{"name": "projects/p/registrations/r/topicSubscriptions/a%41", "topic_name": "a%41"}], "next_page_token": "2"}"#
        let first = try JSONDecoder().decode(TopicSubscriptionList.self, from: Data(camel.utf8))
        #expect(first.topicSubscriptions?.map(\.topic) == ["news"] && first.nextPageToken == "2")
        let second = try JSONDecoder().decode(TopicSubscriptionList.self, from: Data(snake.utf8))
        #expect(second.topicSubscriptions?.map(\.topic) == ["a%41"] && second.nextPageToken == "2", "a topic may hold %: its name says it as it is")
        #expect(try JSONDecoder().decode(TopicSubscriptionList.self, from: Data("{}".utf8)).topicSubscriptions == nil, "no subscriptions")
        // A resource name is not percent-encoded: a topic holding % is said as it is; an empty topic name says nothing.
        let raw = #"{"topicSubscriptions": [{"name": "projects/p/registrations/r/topicSubscriptions/a%41", "topicName": ""}]}"#
        #expect(try JSONDecoder().decode(TopicSubscriptionList.self, from: Data(raw.utf8)).topicSubscriptions?.map(\.topic) == ["a%41"])
    }

    @Test("an object with none of the page's members is not an empty page: a registration's topics are never read as none from another answer")
    func notAPage() {
        for body in [#"{"subscriptions": [{"name": "x"}]}"#, #"{"error": {"code": 403}}"#, "[]"] {
            #expect(throws: (any Error).self, "\(body)") { try JSONDecoder().decode(TopicSubscriptionList.self, from: Data(body.utf8)) }
        }
    }

    @Test("a later page's refusal is about that page, never the registration's: the call fails and is made again; the first page's is the registration's")
    func laterPageRefusal() throws {
        var listing = Self.listing()
        let expired = ItemResult(.invalidArgument, message: "Invalid pageToken.")
        #expect(try listing.registrationResult(expired, status: 400) == expired, "the first page's answer is about the registration")
        #expect(try listing.add(Self.page(1_000, next: "2"), status: 200, now: Self.start) == "2")
        for (result, status) in [(expired, 400), (ItemResult(.notFound, message: "Requested entity was not found."), 404)] {
            #expect(throws: InstanceAPIError.self, "\(result.code)") { try listing.registrationResult(result, status: status) }
        }
    }
}
