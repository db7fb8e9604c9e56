import Kafka
import Testing

/// A value is shown only for a property known to be no secret (`KafkaPropertyName.showsValue`):
/// a typo'd secret's name (`sasl.pasword`, `IIDBATCH_KAFKA_SASL_PASSWD`) is no name we know, so
/// its value is shown neither in the settings log nor in librdkafka's refusal of the name.
@Suite("Kafka secrets: values shown only for properties known to hold none")
struct KafkaSecretRedactionTests {
    @Test("typo'd secrets from a file and the environment are redacted in the settings log")
    func typoInSettings() throws {
        var settings = KafkaSettings()
        try settings.apply(file: "sasl.pasword=file-typo-secret-1\nclient.id=svc\n", named: "k.properties")
        try settings.apply(environment: ["IIDBATCH_KAFKA_SASL_PASSWD": "env-typo-secret-2", "IIDBATCH_KAFKA_SOCKET_KEEPALIVE_ENABLE": "true"])
        try settings.apply(assignment: "ssl.keystore.pasword=cli-typo-secret-3", origin: "-X")
        let text = settings.description
        for secret in ["file-typo-secret-1", "env-typo-secret-2", "cli-typo-secret-3"] {
            #expect(!text.contains(secret), "\(secret) in \(text)")
        }
        #expect(text.contains("sasl.pasword=[redacted] (from k.properties line 1)"), "\(text)")
        #expect(text.contains("sasl.passwd=[redacted] (from $IIDBATCH_KAFKA_SASL_PASSWD)"), "\(text)")
        #expect(text.contains("client.id=svc (from k.properties line 2)"), "a known plain property keeps its value: \(text)")
        #expect(text.contains("socket.keepalive.enable=true"), "\(text)")
    }

    @Test("librdkafka's refusal of an unknown name names it, never its value")
    func typoRefused() throws {
        var configuration = KafkaConfiguration(bootstrapServers: "127.0.0.1:1")
        configuration["sasl.pasword"] = "hunter2-typo-secret"
        let error = #expect(throws: KafkaError.self) { try KafkaProducer(configuration: configuration) }
        let text = error?.description ?? ""
        #expect(text.contains("sasl.pasword"), "\(text)")
        #expect(!text.contains("hunter2"), "\(text)")
    }

    @Test("an invalid value of a shown property is named, with the value")
    func invalidPlainValue() throws {
        var configuration = KafkaConfiguration(bootstrapServers: "127.0.0.1:1")
        configuration["acks"] = "many"
        let error = #expect(throws: KafkaError.self) { try KafkaProducer(configuration: configuration) }
        #expect(error?.description.contains("acks=many") == true, "\(error?.description ?? "")")
    }

    @Test("the allow-list holds no name of a secret's kind, and the secrets librdkafka knows are not on it")
    func allowList() {
        for name in KafkaPropertyName.shownValues {
            #expect(!["password", "passphrase", "secret", "pem", "private", "config", "extensions", "cmd"].contains { name.contains($0) }, "\(name)")
        }
        for name in [
            "sasl.password", "ssl.key.password", "ssl.keystore.password", "sasl.oauthbearer.client.secret", "ssl.key.pem", "sasl.oauthbearer.config",
            "sasl.oauthbearer.extensions", "sasl.pasword", "SASL.PASSWORD",
        ] {
            #expect(!KafkaPropertyName.showsValue(name), "\(name)")
        }
        for name in ["sasl.username", "bootstrap.servers", "ssl.ca.location", "security.protocol", "client.id", "metadata.broker.list"] {
            #expect(KafkaPropertyName.showsValue(name), "\(name)")
        }
    }
}
