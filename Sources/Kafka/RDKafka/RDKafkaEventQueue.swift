/// What a consumer hands out next, in the order librdkafka served it, as a pure state machine:
/// the rebalances its callback reported, and a record a poll returned after them.
///
/// librdkafka runs the rebalance callback inside a poll, and that poll may go on to return a
/// record, even one of a partition the callback just assigned (when the polling thread was held
/// up long enough for the partition's first fetch to land). The record came after the rebalance,
/// so it is held until every rebalance before it was handed out. A record whose partition one of
/// those revocations takes away is dropped instead: the partition's next assignment fetches from
/// the committed offset, so it is delivered again to whoever gets it.
struct RDKafkaEventQueue: Sendable {
    /// Something to hand out.
    enum Event: Sendable {
        case rebalance(RDKafkaRebalance)
        case record(KafkaRecord)
    }

    private var rebalances: [RDKafkaRebalance] = []
    private var held: KafkaRecord?
    /// Once closing, revocations are carried out inside the callback: nobody will ask again.
    var closing = false

    /// The rebalance callback reported `rebalance`.
    mutating func rebalanced(_ rebalance: RDKafkaRebalance) {
        rebalances.append(rebalance)
    }

    /// The next event that needs no poll: the oldest rebalance, else the held record. Nil when
    /// the consumer has to poll.
    mutating func next() -> Event? {
        guard rebalances.isEmpty else {
            let rebalance = rebalances.removeFirst()
            if case .revoked(let partitions, _, _) = rebalance, let record = held, partitions.contains(record.topicPartition) {
                held = nil
            }
            return .rebalance(rebalance)
        }
        defer { held = nil }
        return held.map(Event.record)
    }

    /// A poll, made when `next()` had nothing, returned `record`: returns what to hand out now.
    /// That is the record, unless the callback reported rebalances during the poll: they came
    /// first, so the oldest is handed out and the record waits for them.
    mutating func polled(_ record: KafkaRecord) -> Event {
        assert(held == nil, "poll only when next() has nothing")
        held = record
        return next() ?? .record(record)
    }
}
