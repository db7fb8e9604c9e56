import ArgumentParser
import CommandSupport
import Foundation
import InstanceAPI
import Kafka

/// `iidbatch bench kafka`: produce and consume throughput through the Kafka module.
struct BenchKafka: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kafka",
        abstract: "Produce then consume records and print records/s and MB/s.",
        discussion: """
            Runs against an embedded cluster unless --bootstrap names a real one. Produce \
            throughput counts acknowledged records (idempotent producer, acks=all); consume \
            throughput counts records handed to the reader by a consumer-group member. The \
            embedded mock cluster serves consumers far slower than real brokers: compare figures \
            only across runs on the same kind of broker.
            """
    )

    @Option(help: "Records to produce and consume.")
    var records = 100_000

    @Option(help: "Value size in bytes.")
    var size = 256

    @Option(help: "Partitions of the benchmark topic.")
    var partitions = 8

    @Option(help: "Brokers of the embedded cluster.")
    var brokers = 1

    @Option(help: "Sends awaiting acknowledgement at once.")
    var inFlight = 20_000

    @Option(help: "Bootstrap servers of an existing cluster (default: an embedded one).")
    var bootstrap: String?

    @Option(name: .customShort("X"), help: ArgumentHelp("A librdkafka property for both clients. Repeatable.", valueName: "key=value"))
    var properties: [String] = []

    func validate() throws {
        guard records > 0 else { throw ValidationError("--records must be positive, got \(records)") }
        guard size >= 0 else { throw ValidationError("--size must not be negative, got \(size)") }
        guard partitions > 0 else { throw ValidationError("--partitions must be positive, got \(partitions)") }
        guard inFlight > 0 else { throw ValidationError("--in-flight must be positive, got \(inFlight)") }
        if bootstrap == nil {
            // Key and record overhead is about 70 bytes; stay under 90 % of what a partition keeps.
            let perPartition = (size + 70) * records / partitions
            let limit = EmbeddedKafka.retainedBytesPerPartition * 9 / 10
            guard perPartition <= limit else {
                throw ValidationError(
                    "--records \(records) x --size \(size) puts about \(perPartition / 1024) KiB in each of \(partitions) partitions, "
                        + "but the embedded cluster keeps only \(EmbeddedKafka.retainedBytesPerPartition / 1024) KiB per partition "
                        + "and would drop the oldest records; raise --partitions or lower --records")
            }
        }
    }

    func run() async throws {
        let topic = "iidbatch-bench-\(UInt32.random(in: 0...UInt32.max))"
        var embedded: EmbeddedKafka?
        var configuration: KafkaConfiguration
        var consumerConfiguration: KafkaConfiguration
        if let bootstrap {
            configuration = KafkaConfiguration(bootstrapServers: bootstrap)
            consumerConfiguration = configuration
            let admin = try KafkaAdmin(configuration: configuration)
            try await admin.createTopics([KafkaTopicSpec(name: topic, partitions: partitions)])
            admin.close()
            Output.line("broker: \(bootstrap) (librdkafka \(KafkaVersion.librdkafka) client)")
        } else {
            let kafka = try EmbeddedKafka(brokers: brokers, topics: [KafkaTopicSpec(name: topic, partitions: partitions)])
            embedded = kafka
            configuration = kafka.configuration()
            consumerConfiguration = kafka.consumerConfiguration()
            Output.line("broker: embedded librdkafka \(KafkaVersion.librdkafka) mock cluster, \(brokers) broker(s) on 127.0.0.1")
        }
        for assignment in properties {
            try configuration.apply(assignment: assignment)
            try consumerConfiguration.apply(assignment: assignment)
        }
        Output.line("workload: \(records) records x \(size) B values, topic with \(partitions) partitions, \(inFlight) sends in flight")

        let producer = try KafkaProducer(configuration: configuration)
        let value = [UInt8](repeating: 0x61, count: size)
        let produceTime = try await ContinuousClock().measure {
            try await produceAll(producer, topic: topic, value: value)
        }
        await producer.close()
        report("produce", seconds: produceTime.seconds)

        let consumer = try KafkaConsumer(configuration: consumerConfiguration, groupID: topic + "-reader", topics: [topic])
        let (received, consumeTime) = try await consumeAll(consumer)
        try await consumer.close()
        if received < records {
            Output.line("consume: stopped after \(received) of \(records) records: none arrived for 30 s")
            throw ExitCode.failure
        }
        report("consume", seconds: consumeTime.seconds, note: "from the first record handed over")
        embedded?.shutdown()
    }

    /// Reads until all records arrived, or none arrived for 30 s; returns the count and the time
    /// from the first record to the last.
    private func consumeAll(_ consumer: KafkaConsumer) async throws -> (Int, Duration) {
        let progress = BenchProgress()
        let reader = Task {
            for try await event in consumer.events {
                guard case .record = event else { continue }
                if progress.recordOne() == records { return }
            }
        }
        while !progress.isStalled(after: .seconds(30)) && progress.count < records {
            try await Task.sleep(for: .milliseconds(50))
        }
        reader.cancel()
        try await reader.value
        return (progress.count, progress.elapsed)
    }

    private func produceAll(_ producer: KafkaProducer, topic: String, value: [UInt8]) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0
            func add() {
                let index = next
                next += 1
                group.addTask {
                    _ = try await producer.send(topic: topic, key: Array("k\(index)".utf8), value: value)
                }
            }
            while next < min(inFlight, records) { add() }
            while try await group.next() != nil {
                if next < records { add() }
            }
        }
    }

    private func report(_ phase: String, seconds: Double, note: String = "") {
        let perSecond = Double(records) / max(seconds, 1e-9)
        let megabytes = perSecond * Double(size) / 1_000_000
        let extra = note.isEmpty ? "" : " (\(note))"
        let rates = "\(NumberText.fixed(perSecond, places: 0)) records/s, \(NumberText.fixed(megabytes, places: 1)) MB/s"
        Output.line("\(phase): \(records) records in \(NumberText.fixed(seconds, places: 2)) s = \(rates)\(extra)")
    }
}
