import Foundation

/// One registration's topics, gathered from the pages of the FCM v1 list call (§2.6), bounded: a
/// registration holds at most `APILimits.topicsPerInstance` topics, so an answer that lists more,
/// or pages on past that many pages, is not the API's (a loop, or a proxy's), and is refused
/// before more than that many names and one page (within its answer limit) are held.
///
/// No page is asked for after one call's timeout from the first (each page is its own request
/// with its own timeout, so the listing ends within about two timeouts): an answer paging on
/// slowly would otherwise hold the call's slot for up to 2,000 timeouts.
struct TopicListing {
    /// The topics of the pages added so far, in their order.
    private(set) var topics: [String] = []
    private var pages = 0
    /// When the listing's time is up: no page is asked for after it.
    private let deadline: ContinuousClock.Instant
    /// The time the pages together have, for the error that says it passed.
    private let time: Duration
    /// The registration whose topics are listed: every subscription must be its.
    private let registration: String

    /// A listing of `registration`'s topics whose pages together have `time` from `start`.
    init(registration: String, start: ContinuousClock.Instant, time: Duration) {
        self.registration = registration
        self.deadline = start + time
        self.time = time
    }

    /// Adds `page`, answered with `status` at `now`; returns the token of the next page, or nil
    /// after the last. Throws `.timedOut` when a next page is named at or after the deadline. Throws `.malformedResponse` once the pages list more topics, or number more pages,
    /// than one registration can hold, a topic that is no topic name (`APILimits.topicName`,
    /// whose `/topics/` prefix, if the page gives one, is taken off), or a subscription whose
    /// name is not `projects/<p>/registrations/<the registration>/topicSubscriptions/<topic>`
    /// (the registration as it is or with its escapes decoded): another registration's topics
    /// would be migrated as this one's.
    mutating func add(_ page: TopicSubscriptionList, status: Int, now: ContinuousClock.Instant) throws(InstanceAPIError) -> String? {
        pages += 1
        let listed = page.topicSubscriptions ?? []
        guard topics.count + listed.count <= APILimits.topicsPerInstance else {
            throw .malformedResponse(
                api: .fcmListTopics, status: status,
                message: "\(topics.count + listed.count) topics for one registration, more than the \(APILimits.topicsPerInstance) it can hold")
        }
        guard pages <= APILimits.topicsPerInstance else {
            throw .malformedResponse(api: .fcmListTopics, status: status, message: "more than \(APILimits.topicsPerInstance) pages for one registration")
        }
        // A name's bytes are bounded too: 2,000 names of 4 MiB each would be held to the outcome.
        var names: [String] = []
        names.reserveCapacity(listed.count)
        for subscription in listed {
            guard isOfTheRegistration(subscription.name) else {
                throw .malformedResponse(
                    api: .fcmListTopics, status: status,
                    message: "a listed subscription is not of the registration asked about: \(ResultClassifier.excerpt(Data(subscription.name.utf8)))")
            }
            let topic = subscription.topic
            guard let name = try? APILimits.topicName(topic) else {
                // Its words, not the name's whole bytes (up to the answer's 4 MiB), go into the outcome.
                throw .malformedResponse(
                    api: .fcmListTopics, status: status,
                    message: "a listed topic is no topic name (\(APILimits.topicNameRule)): \(ResultClassifier.excerpt(Data(topic.utf8)))")
            }
            names.append(name)
        }
        topics += names
        guard let next = page.nextPageToken, !next.isEmpty else { return nil }
        guard now < deadline else { throw .timedOut(api: .fcmListTopics, timeout: time) }
        return next
    }

    /// `result`, the API's answer about the registration on the next page asked for, as the
    /// listing's: the registration's own on the first page; on a later page it is about that page
    /// (its `pageToken` expired or refused), never the registration's, which the first page
    /// found, so it throws `.unexpectedAnswer` and the listing is made again from the first page.
    /// (A later page's `INVALID_ARGUMENT`, final, would tell consumers to purge a valid token.)
    func registrationResult(_ result: ItemResult, status: Int) throws(InstanceAPIError) -> ItemResult {
        guard pages > 0 else { return result }
        throw .unexpectedAnswer(
            api: .fcmListTopics, status: status,
            message: "page \(pages + 1) answered \(result.code.rawValue) (\(result.message ?? "")): about the page, not the registration")
    }

    /// Whether `name` is `projects/<p>/registrations/<registration>/topicSubscriptions/<topic>`.
    private func isOfTheRegistration(_ name: String) -> Bool {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0] == "projects", parts[2] == "registrations", parts[4] == "topicSubscriptions" else { return false }
        return parts[3].utf8.elementsEqual(registration.utf8) || parts[3].percentDecoded?.utf8.elementsEqual(registration.utf8) == true
    }
}
