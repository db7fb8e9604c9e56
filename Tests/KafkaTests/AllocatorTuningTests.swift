import Kafka
import Testing

/// Issue 33's performance part: `iidbatch run` has glibc's malloc keep large buffers, unless the
/// environment already tunes malloc.
@Suite("Allocator tuning for large records")
struct AllocatorTuningTests {
    @Test("left alone when GLIBC_TUNABLES or a MALLOC_*_ variable is set; applied on glibc otherwise")
    func environmentDecides() {
        #expect(!KafkaClients.keepLargeBuffers(environment: ["GLIBC_TUNABLES": "glibc.malloc.trim_threshold=0"]))
        #expect(!KafkaClients.keepLargeBuffers(environment: ["MALLOC_TRIM_THRESHOLD_": "131072", "PATH": "/bin"]))
        #if canImport(Glibc)
            #expect(KafkaClients.keepLargeBuffers(environment: ["PATH": "/bin", "MALLOC_ARENA_MAX": "4"]))
        #else
            #expect(!KafkaClients.keepLargeBuffers(environment: [:]))
        #endif
    }
}
