import Foundation
import Testing

@testable import InstanceAPI

/// A registration holds at most 2,000 topics (§2.6): pages that list more are not the API's answer,
/// and are refused before they hold more names than that (they went into an outcome, unbounded).
@Suite("The FCM v1 topic list: pages gathered up to what one registration can hold")
struct TopicListingTests {
    private static func page(_ count: Int, from first: Int = 0, next: String?) -> TopicSubscriptionList {
        TopicSubscriptionList(
            topicSubscriptions: (first..<first + count).map { .init(name: "projects/p/registrations/r/topicSubscriptions/t\($0)") }, nextPageToken: next)
    }

    @Test("two pages of 1,000 are the registration's 2,000 topics, in order; an empty token ends the list")
    func fullRegistration() throws {
        var listing = TopicListing()
        #expect(try listing.add(Self.page(1_000, next: "2"), status: 200) == "2")
        #expect(try listing.add(Self.page(1_000, from: 1_000, next: ""), status: 200) == nil)
        #expect(listing.topics.count == APILimits.topicsPerInstance)
        #expect(listing.topics.first == "t0" && listing.topics.last == "t1999")
    }

    @Test("a page past 2,000 topics is a malformed answer, and its names are not kept")
    func tooManyTopics() throws {
        var listing = TopicListing()
        _ = try listing.add(Self.page(1_500, next: "2"), status: 200)
        let error = #expect(throws: InstanceAPIError.self) { try listing.add(Self.page(501, next: nil), status: 200) }
        guard case .malformedResponse(api: .fcmListTopics, status: 200, let message)? = error else {
            Issue.record("not a malformed answer: \(String(describing: error))")
            return
        }
        #expect(message.contains("2001 topics"), "\(message)")
        #expect(listing.topics.count == 1_500)
        #expect(throws: InstanceAPIError.self) { try TopicListing().adding(Self.page(2_001, next: nil)) }
    }

    @Test("empty pages that page on past 2,000 are a loop, refused")
    func endlessPages() throws {
        var listing = TopicListing()
        for _ in 0..<APILimits.topicsPerInstance { #expect(try listing.add(Self.page(0, next: "again"), status: 200) == "again") }
        #expect(throws: InstanceAPIError.self) { try listing.add(Self.page(0, next: "again"), status: 200) }
    }
}

extension TopicListing {
    /// `self` with `page` added (answered 200).
    fileprivate func adding(_ page: TopicSubscriptionList) throws -> TopicListing {
        var listing = self
        _ = try listing.add(page, status: 200)
        return listing
    }

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
}
