import Kafka
import Pipeline
import Testing

@testable import iidbatch

/// The help names each variable and default as its owner spells it.
@Suite("Help text: names from their owners")
struct HelpTextOwnersTests {
    @Test("the Kafka options and run's help name the brokers variable, default, property prefix and project variable")
    func owners() {
        let kafka = KafkaOptions.helpMessage(columns: 1_000)
        #expect(kafka.contains("$\(KafkaOptions.brokersVariable), else those, else \(KafkaOptions.defaultBrokers)."), "\(kafka)")
        #expect(kafka.contains("\(KafkaSettings.environmentPrefix)<NAME> variables"), "\(kafka)")
        let run = Run.helpMessage(columns: 1_000)
        #expect(run.contains("else $\(ProjectChoice.environmentVariable), else the credentials'"), "\(run)")
        #expect(run.contains("$\(KafkaOptions.brokersVariable) set bootstrap.servers"), "\(run)")
    }
}
