import CRdKafka

extension RDKafkaClient {
    /// Which step of a transaction to run.
    enum TransactionStep: Sendable {
        case initialize
        case begin
        case commit
    }

    /// Runs one step of a transactional producer's protocol. `initialize` and `commit` block for
    /// up to `timeoutMilliseconds`: call them off the Swift threads.
    func transaction(_ step: TransactionStep, timeoutMilliseconds: Int32) -> KafkaError? {
        switch step {
        case .initialize: RDKafkaErrors.consume(rd_kafka_init_transactions(handle, timeoutMilliseconds))
        case .begin: RDKafkaErrors.consume(rd_kafka_begin_transaction(handle))
        case .commit: RDKafkaErrors.consume(rd_kafka_commit_transaction(handle, timeoutMilliseconds))
        }
    }
}
