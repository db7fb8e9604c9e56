/// One registration's topics, gathered from the pages of the FCM v1 list call (§2.6), bounded: a
/// registration holds at most `APILimits.topicsPerInstance` topics, so an answer that lists more,
/// or pages on past that many pages, is not the API's (a loop, or a proxy's), and is refused
/// before more than that many names and one page (within its answer limit) are held.
struct TopicListing {
    /// The topics of the pages added so far, in their order.
    private(set) var topics: [String] = []
    private var pages = 0

    /// Adds `page`, answered with `status`; returns the token of the next page, or nil after the
    /// last. Throws `.malformedResponse` once the pages list more topics, or number more pages,
    /// than one registration can hold.
    mutating func add(_ page: TopicSubscriptionList, status: Int) throws(InstanceAPIError) -> String? {
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
        topics += listed.map(\.topic)
        return page.nextPageToken.flatMap { $0.isEmpty ? nil : $0 }
    }
}
