import CRdKafka

/// The consumer's rebalance callback, run by librdkafka inside a consumer poll or close.
///
/// Assignments take effect at once and are reported. Revocations are only reported: the consumer
/// carries them out (after its caller finished or abandoned work and committed) when the caller
/// asks for the next event. While closing, nobody will ask, so they take effect at once.
enum RDKafkaRebalancer {
    static func handle(
        _ handle: OpaquePointer, code: rd_kafka_resp_err_t,
        partitions: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?, context: RDKafkaContext
    ) {
        // NULL on error (the header says so): read as not cooperative.
        let cooperative = rd_kafka_rebalance_protocol(handle).map { String(cString: $0) } == "COOPERATIVE"
        let list = RDKafkaTopicPartitionList.partitions(partitions)
        switch code {
        case RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS:
            let error =
                cooperative
                ? RDKafkaErrors.consume(rd_kafka_incremental_assign(handle, partitions))
                : assignResult(rd_kafka_assign(handle, partitions))
            if let error {
                context.log(.error, "assigning \(list) failed: \(error)")
            }
            context.events.withLock { $0.rebalanced(.assigned(list)) }
            context.assignmentServed.store(true, ordering: .releasing)
            if context.yieldOnAssignment.load(ordering: .acquiring), let queue = rd_kafka_queue_get_consumer(handle) {
                // Ends the poll waiting in `awaitFirstAssignment`, whichever thread served this.
                rd_kafka_queue_yield(queue)
                rd_kafka_queue_destroy(queue)
            }
        case RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS:
            let lost = rd_kafka_assignment_lost(handle) != 0
            let closing = context.events.withLock { state -> Bool in
                if !state.closing {
                    state.rebalanced(.revoked(list, lost: lost, cooperative: cooperative))
                }
                return state.closing
            }
            if closing {
                unassign(handle, list, cooperative: cooperative, context: context)
            }
        default:
            context.log(.error, "rebalance error \(RDKafkaErrors.name(of: code.rawValue)); dropping assignment")
            _ = rd_kafka_assign(handle, nil)
            context.events.withLock { $0.rebalanced(.revoked(list, lost: true, cooperative: false)) }
        }
        context.wakeup.signal()
    }

    /// Gives up `partitions`, as the protocol in use requires.
    static func unassign(
        _ handle: OpaquePointer, _ partitions: [KafkaTopicPartition], cooperative: Bool, context: RDKafkaContext
    ) {
        let error: KafkaError?
        if cooperative {
            error = RDKafkaTopicPartitionList.with(partitions) {
                RDKafkaErrors.consume(rd_kafka_incremental_unassign(handle, $0))
            }
        } else {
            error = assignResult(rd_kafka_assign(handle, nil))
        }
        if let error {
            context.log(.error, "unassigning \(partitions) failed: \(error)")
        }
    }

    private static func assignResult(_ code: rd_kafka_resp_err_t) -> KafkaError? {
        RDKafkaErrors.isSuccess(code) ? nil : RDKafkaErrors.error(code)
    }
}
