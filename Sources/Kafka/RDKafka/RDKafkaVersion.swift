import CRdKafka

enum RDKafkaVersion {
    static var string: String { String(cString: rd_kafka_version_str()) }
}
