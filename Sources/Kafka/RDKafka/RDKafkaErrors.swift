import CRdKafka

/// Conversions from librdkafka's error representations to `KafkaError`.
enum RDKafkaErrors {
    static func name(of code: Int32) -> String {
        String(cString: rd_kafka_err2name(rd_kafka_resp_err_t(rawValue: code)))
    }

    static func text(of code: Int32) -> String {
        String(cString: rd_kafka_err2str(rd_kafka_resp_err_t(rawValue: code)))
    }

    /// A `.broker` error for a response code, with librdkafka's text unless a better one is given.
    static func error(_ code: rd_kafka_resp_err_t, _ message: String? = nil) -> KafkaError {
        .broker(code: KafkaErrorCode(rawValue: code.rawValue), message: message ?? text(of: code.rawValue))
    }

    /// Converts and destroys an `rd_kafka_error_t`; nil when there was no error.
    static func consume(_ error: OpaquePointer?) -> KafkaError? {
        guard let error else { return nil }
        defer { rd_kafka_error_destroy(error) }
        return .broker(
            code: KafkaErrorCode(rawValue: rd_kafka_error_code(error).rawValue),
            message: String(cString: rd_kafka_error_string(error))
        )
    }

    static func isSuccess(_ code: rd_kafka_resp_err_t) -> Bool { code == RD_KAFKA_RESP_ERR_NO_ERROR }
}
