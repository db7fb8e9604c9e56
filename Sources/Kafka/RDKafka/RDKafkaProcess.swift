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

    /// The largest allocation glibc's malloc serves from its heaps rather than by `mmap` once
    /// `keepLargeBuffers` ran: 32 MiB, the most glibc's own sliding threshold reaches.
    static let largeBufferThreshold = 32 << 20

    /// The free memory at the top of a malloc heap glibc keeps (not handed back to the kernel)
    /// once `keepLargeBuffers` ran: 64 MiB, a worker's default record bytes in flight.
    static let keptTopBytes = 64 << 20

    /// Has glibc's malloc keep the large buffers a consumer churns through: librdkafka's fetch
    /// responses (about a MiB each) and the records copied out of them (170 KB for 1,000 FCM
    /// tokens). By default glibc maps such buffers fresh, or hands the top of its heaps back to
    /// the kernel after they are freed, so each new one is paid for again in page faults (a
    /// fifth of a worker's CPU on 1,000-token topic requests). Leaves the process as it is when
    /// the environment already tunes malloc (`GLIBC_TUNABLES` or a `MALLOC_*_` variable), and
    /// off glibc. True when it changed the settings.
    @discardableResult
    static func keepLargeBuffers(environment: [String: String]) -> Bool {
        #if canImport(Glibc)
            guard !environment.keys.contains(where: { $0 == "GLIBC_TUNABLES" || ($0.hasPrefix("MALLOC_") && $0.hasSuffix("_")) }) else {
                return false
            }
            return mallopt(M_MMAP_THRESHOLD, Int32(largeBufferThreshold)) == 1 && mallopt(M_TRIM_THRESHOLD, Int32(keptTopBytes)) == 1
        #else
            return false
        #endif
    }

    /// Flushes C's stdout and stderr, then ends the process with `status` without running
    /// `atexit` handlers or static destructors, which could free state (OpenSSL's, from librdkafka
    /// 2.13.2 on) that librdkafka threads still running would free again.
    static func exit(_ status: Int32) -> Never {
        fflush(nil)
        _exit(status)
    }
}
