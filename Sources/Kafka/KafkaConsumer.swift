import Synchronization

/// A consumer-group member that stores offsets only when told to.
///
/// `enable.auto.offset.store` is always false: an offset becomes eligible for commit only through
/// `storeOffsets`, so a record is never committed before its reader says it is done. Stored offsets
/// are committed every `auto.commit.interval.ms` (librdkafka's default), by `commit()`, before a
/// revoked partition moves, and at `close()`. New groups start from the earliest offset unless
/// `auto.offset.reset` says otherwise. Assignment is `cooperative-sticky` unless
/// `partition.assignment.strategy` says otherwise: a rebalance then moves only the partitions
/// that change owner, and the others keep flowing.
public final class KafkaConsumer: Sendable {
    private enum State {
        /// Polling; `pendingRevoke` holds a revocation handed to the reader and not yet carried out.
        case running(pendingRevoke: PendingRevoke?)
        case closing
        case closed
    }

    private struct PendingRevoke {
        var partitions: [KafkaTopicPartition]
        var lost: Bool
        var cooperative: Bool
    }

    let client: RDKafkaClient
    private let state = Mutex(State.running(pendingRevoke: nil))
    /// Partitions paused through `pause` and not resumed since.
    private let paused = Mutex<Set<KafkaTopicPartition>>([])
    /// The consumer group this member belongs to.
    public let groupID: String

    /// Joins `groupID` and subscribes to `topics`.
    ///
    /// - Throws: `.invalidConfiguration` naming a bad property, or the subscribe error.
    public init(configuration: KafkaConfiguration, groupID: String, topics: [String]) throws(KafkaError) {
        guard !groupID.isEmpty else { throw .invalidArgument(name: "group id", value: groupID, reason: "must not be empty") }
        guard !topics.isEmpty else { throw .invalidArgument(name: "topics", value: "[]", reason: "subscribe to at least one topic") }
        var configuration = configuration.withDefaults([
            "auto.offset.reset": "earliest",
            "enable.partition.eof": "false",
            "partition.assignment.strategy": "cooperative-sticky",
        ])
        configuration["group.id"] = groupID
        configuration["enable.auto.offset.store"] = "false"
        self.client = try RDKafkaClient(kind: .consumer, configuration: configuration)
        self.groupID = groupID
        try client.subscribe(topics)
    }

    /// Records and rebalances, as an `AsyncSequence`, in the order librdkafka served them: a
    /// partition's records never come before the event assigning it, nor after the event
    /// revoking it.
    public var events: KafkaConsumerEvents { KafkaConsumerEvents(consumer: self) }

    /// Marks `record` and everything before it in its partition as done.
    public func storeOffset(for record: KafkaRecord) throws(KafkaError) {
        try storeOffsets([record.topicPartition: record.offset + 1])
    }

    /// Stores, per partition, the next offset to read: everything below it is done.
    ///
    /// - Throws: when a partition is not assigned to this member (for example, after a revoke).
    public func storeOffsets(_ nextOffsets: [KafkaTopicPartition: Int64]) throws(KafkaError) {
        try client.storeOffsets(nextOffsets)
    }

    /// Commits the stored offsets and waits for the coordinator's answer.
    ///
    /// - Throws: the coordinator's refusal, or `.timedOut` when no answer came within `timeout`
    ///   (the coordinator is unreachable); records after the last committed offsets will then
    ///   be delivered again.
    public func commit(timeout: Duration = .seconds(10)) async throws(KafkaError) {
        let client = self.client
        let milliseconds = timeout.rdKafkaMilliseconds
        if let error = await offload({ client.commitStored(timeoutMilliseconds: milliseconds) }) { throw error }
    }

    /// The group's committed offsets (next offset to read) for `partitions`; absent when none.
    public func committedOffsets(
        for partitions: [KafkaTopicPartition], timeout: Duration = .seconds(10)
    ) async throws(KafkaError) -> [KafkaTopicPartition: Int64] {
        let client = self.client
        let milliseconds = timeout.rdKafkaMilliseconds
        return try await offload { () -> Result<[KafkaTopicPartition: Int64], KafkaError> in
            do throws(KafkaError) { return .success(try client.committed(partitions, timeoutMilliseconds: milliseconds)) } catch { return .failure(error) }
        }.get()
    }

    /// Stops fetching from `partitions`; nothing more from them is delivered until `resume`.
    /// librdkafka keeps a partition paused across a revoke and a later assignment of it.
    public func pause(_ partitions: [KafkaTopicPartition]) throws(KafkaError) {
        try paused.withLock { (paused) throws(KafkaError) in
            // Noted even when librdkafka refuses some: a later resume then tries them again
            // rather than leaving one paused for good.
            paused.formUnion(partitions)
            try client.pause(partitions)
        }
    }

    /// Restarts fetching from `partitions` at the first record not yet delivered. Partitions this
    /// member did not pause are left alone: librdkafka before 2.4 may restart the fetch of a
    /// partition resumed while not paused from a record already delivered
    /// (confluentinc/librdkafka#4637).
    public func resume(_ partitions: [KafkaTopicPartition]) throws(KafkaError) {
        try paused.withLock { (paused) throws(KafkaError) in
            let resumed = partitions.filter { paused.contains($0) }
            try client.resume(resumed)
            paused.subtract(resumed)
        }
    }

    /// What librdkafka's latest statistics say (nil until the first, or without
    /// `statistics.interval.ms`). librdkafka goes on reporting partitions after they were revoked:
    /// keep only those the member owns.
    public var statistics: KafkaConsumerStatistics? {
        client.context.statistics.withLock { $0 }.flatMap(KafkaConsumerStatistics.init(json:))
    }

    /// The partitions currently assigned to this member.
    public func assignment() throws(KafkaError) -> [KafkaTopicPartition] {
        try client.assignment().sorted()
    }

    /// Commits stored offsets, leaves the group and ends the event sequence. Safe to call twice.
    ///
    /// A final commit the coordinator refuses (typically because another member's departure
    /// started a rebalance) is logged, not thrown: the records after the last committed offset
    /// will be delivered again. To be sure nothing done is repeated, `commit()` while the group
    /// is stable, then close.
    ///
    /// Neither step waits long for an unreachable coordinator: each gives up after `timeout`
    /// (the coordinator then drops this member after `session.timeout.ms`), so a worker can
    /// stop after its cluster went away.
    ///
    /// On librdkafka before 2.3.0, a cooperative-sticky member that never got an assignment
    /// first waits up to `timeout` for one (records fetched meanwhile are dropped, to be
    /// delivered again): destroying a member that joined without one aborts the process
    /// there (librdkafka#4381). A member still without one is never destroyed: its threads end
    /// with the process. The other ways round were worse: an eager assignor on 2.0 stops every
    /// partition of the group at each rebalance, and a destroy cannot be made safe otherwise.
    ///
    /// - Throws: when leaving the group fails or times out.
    public func close(timeout: Duration = .seconds(10)) async throws(KafkaError) {
        let pending: PendingRevoke?? = state.withLock { state in
            guard case .running(let pending) = state else { return .none }
            state = .closing
            return .some(pending)
        }
        guard case .some(let pendingRevoke) = pending else { return }
        client.context.wakeup.signal()
        let client = self.client
        if let pendingRevoke { await carryOut(pendingRevoke) }
        if let error = await commitStored(timeout: timeout) {
            client.context.log(.warning, "final commit of group \(groupID) failed, records after the last committed offsets will be delivered again: \(error)")
        }
        let milliseconds = timeout.rdKafkaMilliseconds
        if client.destroyMayAbort { _ = await offload { client.awaitFirstAssignment(timeoutMilliseconds: milliseconds) } }
        let closeError = await offload { client.closeConsumer(timeoutMilliseconds: milliseconds) }
        await offload { client.stopBackgroundWork() }
        state.withLock { $0 = .closed }
        if let closeError { throw closeError }
    }

    func nextEvent() async throws(KafkaError) -> KafkaConsumerEvent? {
        while !Task.isCancelled {
            let pending: PendingRevoke?? = state.withLock { state in
                guard case .running(let pending) = state else { return .none }
                state = .running(pendingRevoke: nil)
                return .some(pending)
            }
            guard case .some(let pendingRevoke) = pending else { return nil }
            if let pendingRevoke { await carryOut(pendingRevoke) }

            // Rebalances reported by the last poll, and a record it returned after them, go first.
            if let event = client.context.events.withLock({ $0.next() }) { return handOut(event) }
            switch client.pollConsumer() {
            case .record(let record):
                return handOut(client.context.events.withLock { $0.polled(record) })
            case .error(let error, let fatal):
                if fatal { throw error }
                client.context.log(.warning, "consumer: \(error)")
            case .endOfPartition:
                // (Only with `enable.partition.eof`.) More may be queued behind it, which would
                // not signal again: poll on.
                continue
            case .empty:
                if let event = client.context.events.withLock({ $0.next() }) { return handOut(event) }
                await client.context.wakeup.wait()
            }
        }
        return nil
    }

    /// Turns what the queue handed out into an event; a revoke becomes pending.
    private func handOut(_ event: RDKafkaEventQueue.Event) -> KafkaConsumerEvent {
        switch event {
        case .record(let record):
            return .record(record)
        case .rebalance(.assigned(let partitions)):
            return .partitionsAssigned(partitions)
        case .rebalance(.revoked(let partitions, let lost, let cooperative)):
            state.withLock { state in
                if case .running = state {
                    state = .running(pendingRevoke: PendingRevoke(partitions: partitions, lost: lost, cooperative: cooperative))
                }
            }
            return .partitionsRevoked(partitions, lost: lost)
        }
    }

    /// Commits what the reader stored (unless the partitions were lost), then gives them up.
    private func carryOut(_ revoke: PendingRevoke) async {
        if !revoke.lost, let error = await commitStored() {
            client.context.log(
                .warning, "commit before revoking \(revoke.partitions) failed, their records after the last committed offsets will be delivered again: \(error)"
            )
        }
        client.unassign(revoke.partitions, cooperative: revoke.cooperative)
    }

    /// Commits the stored offsets. While the group completes a rebalance (members still syncing)
    /// the coordinator answers `REBALANCE_IN_PROGRESS` although this member's generation is
    /// current; that settles within moments, so the commit is retried for up to 3 s. Each try
    /// waits at most `timeout` for an answer.
    private func commitStored(timeout: Duration = .seconds(10)) async -> KafkaError? {
        let client = self.client
        let milliseconds = timeout.rdKafkaMilliseconds
        let deadline = ContinuousClock.now + .seconds(3)
        while true {
            guard let error = await offload({ client.commitStored(timeoutMilliseconds: milliseconds) }) else { return nil }
            guard error.code == .rebalanceInProgress, ContinuousClock.now < deadline else { return error }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }
}
