import CRdKafka

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process-wide side of librdkafka: how many of its threads run, and ending the process
/// without racing with them.
enum RDKafkaProcess {
    /// librdkafka threads running now, in every client of the process (`rd_kafka_thread_cnt`):
    /// each client's main and broker threads, and a mock cluster's thread.
    static var threadCount: Int { Int(rd_kafka_thread_cnt()) }

    /// librdkafka's version as a number, `0xMMmmrrxx` (2.0.2 is `0x020002ff`).
    static var version: Int { Int(rd_kafka_version()) }

    /// Flushes C's stdout and stderr, then ends the process with `status` without running
    /// `atexit` handlers or static destructors, which could free state (OpenSSL's, from librdkafka
    /// 2.13.2 on) that librdkafka threads still running would free again.
    static func exit(_ status: Int32) -> Never {
        fflush(nil)
        _exit(status)
    }
}
