import Kafka
import Testing

/// Kafka settings from a properties file (`-F`), `IIDBATCH_KAFKA_*` variables and `-X`, in that
/// precedence, with `--brokers` over all, secrets never shown.
@Suite("Kafka settings: properties files, environment, precedence, redaction")
struct KafkaSettingsTests {
    @Test("a properties file: comments, blank lines, trimmed keys and values, = in values, CRLF, a BOM, the later line wins")
    func propertiesFile() throws {
        let text =
            "\u{FEFF}# SASL\r\n\r\nbootstrap.servers = b1:9093,b2:9093\r\n   # indented comment\n\tsasl.password=pa=ss word==\nclient.id=a\nclient.id=b\n"
        let lines = try KafkaPropertiesFile.parse(text, file: "k.properties")
        #expect(
            lines == [
                .init(key: "bootstrap.servers", value: "b1:9093,b2:9093", number: 3), .init(key: "sasl.password", value: "pa=ss word==", number: 5),
                .init(key: "client.id", value: "a", number: 6), .init(key: "client.id", value: "b", number: 7),
            ])
        var settings = KafkaSettings()
        try settings.apply(file: text, named: "k.properties")
        #expect(settings.configuration["client.id"] == "b")
        #expect(settings.entries["client.id"]?.origin == "k.properties line 7")
        #expect(try KafkaPropertiesFile.parse("", file: "empty").isEmpty)
        #expect(try KafkaPropertiesFile.parse("key=", file: "f") == [.init(key: "key", value: "", number: 1)], "an empty value is a value")
    }

    @Test("a malformed line fails naming the file and line number, never the line's text")
    func malformedLine() throws {
        let error = #expect(throws: KafkaError.self) {
            try KafkaPropertiesFile.parse("# creds\nsasl.username=me\nsasl.password hunter2-secret\n", file: "/etc/iidbatch/kafka.properties")
        }
        #expect(error == .malformedPropertiesFile(file: "/etc/iidbatch/kafka.properties", line: 3, reason: "expected key=value"))
        let text = error?.description ?? ""
        #expect(text.contains("/etc/iidbatch/kafka.properties line 3"), "\(text)")
        #expect(!text.contains("hunter2"), "\(text)")
        let emptyKey = #expect(throws: KafkaError.self) { try KafkaPropertiesFile.parse("a=1\n =hunter2-secret", file: "f") }
        #expect(emptyKey?.description.contains("f line 2") == true)
        #expect(emptyKey?.description.contains("hunter2") == false)
    }

    @Test("IIDBATCH_KAFKA_<NAME>: lowercased, _ → ., __ → _; other variables are not properties")
    func environmentNames() throws {
        #expect(KafkaSettings.propertyName(forVariable: "IIDBATCH_KAFKA_SASL_PASSWORD") == "sasl.password")
        #expect(KafkaSettings.propertyName(forVariable: "IIDBATCH_KAFKA_SSL_CA_LOCATION") == "ssl.ca.location")
        #expect(KafkaSettings.propertyName(forVariable: "IIDBATCH_KAFKA_BOOTSTRAP_SERVERS") == "bootstrap.servers")
        #expect(KafkaSettings.propertyName(forVariable: "IIDBATCH_KAFKA_SOME__NAME_X") == "some_name.x")
        #expect(KafkaSettings.propertyName(forVariable: "IIDBATCH_KAFKA_CLIENT_ID") == "client.id")
        #expect(KafkaSettings.propertyName(forVariable: "IIDBATCH_KAFKA_") == nil)
        #expect(KafkaSettings.propertyName(forVariable: "IIDBATCH_KAFKA___X") == "_x", "a leading __ is an underscore")
        #expect(KafkaSettings.propertyName(forVariable: "IIDBATCH_KAFKA__X") == nil, "a name starting with a dot is none")
        #expect(KafkaSettings.propertyName(forVariable: "IIDBATCH_KAFKA_X_") == nil, "a name ending with a dot is none")
        #expect(KafkaSettings.propertyName(forVariable: "IIDBATCH_BROKERS") == nil)

        var settings = KafkaSettings()
        try settings.apply(environment: ["IIDBATCH_KAFKA_SASL_USERNAME": "svc", "PATH": "/bin", "IIDBATCH_BROKERS": "b:1", "KAFKA_CLIENT_ID": "x"])
        #expect(settings.configuration.properties == ["sasl.username": "svc"])
        #expect(settings.entries["sasl.username"]?.origin == "$IIDBATCH_KAFKA_SASL_USERNAME")
        let error = #expect(throws: KafkaError.self) { try settings.apply(environment: ["IIDBATCH_KAFKA_": "hunter2-secret"]) }
        #expect(error?.description.contains("IIDBATCH_KAFKA_") == true)
        #expect(error?.description.contains("hunter2") == false)
    }

    @Test("precedence: default < file < environment < -X < brokers, whatever order they are applied in")
    func precedence() throws {
        let file = "client.id=file\nsasl.username=file\nlinger.ms=1\nbootstrap.servers=file:9092\n"
        let environment = ["IIDBATCH_KAFKA_CLIENT_ID": "env", "IIDBATCH_KAFKA_SASL_USERNAME": "env", "IIDBATCH_KAFKA_ACKS": "1"]
        func layered(_ steps: [(inout KafkaSettings) throws -> Void]) throws -> KafkaSettings {
            var settings = KafkaSettings()
            for step in steps { try step(&settings) }
            return settings
        }
        let steps: [(inout KafkaSettings) throws -> Void] = [
            { $0.set("bootstrap.servers", to: "localhost:9092", layer: .builtInDefault, origin: "the default") },
            { $0.set("linger.ms", to: "5", layer: .builtInDefault, origin: "the default") },
            { try $0.apply(file: file, named: "f") },
            { try $0.apply(environment: environment) },
            { try $0.apply(assignment: "client.id=cli", origin: "-X") },
        ]
        let forward = try layered(steps)
        #expect(try layered(Array(steps.reversed())) == forward, "the layers decide, not the order")
        #expect(
            forward.configuration.properties == [
                "client.id": "cli", "sasl.username": "env", "acks": "1", "linger.ms": "1", "bootstrap.servers": "file:9092",
            ])
        #expect(forward.entries["bootstrap.servers"]?.origin == "f line 4", "a file's bootstrap.servers is not overridden by the default")

        var brokers = forward
        try brokers.apply(assignment: "bootstrap.servers=x:1", origin: "-X")
        #expect(brokers.configuration["bootstrap.servers"] == "x:1")
        brokers.set("bootstrap.servers", to: "brokers:9092", layer: .brokers, origin: "--brokers")
        try brokers.apply(assignment: "bootstrap.servers=later:1", origin: "-X")
        #expect(brokers.configuration["bootstrap.servers"] == "brokers:9092", "--brokers wins over everything")
        #expect(brokers.entries["bootstrap.servers"]?.origin == "--brokers")
    }

    @Test("the description names every origin and shows no secret's value")
    func redaction() throws {
        var settings = KafkaSettings()
        try settings.apply(file: "sasl.password=file-secret-1\nsasl.username=svc\nssl.key.pem=-----BEGIN PRIVATE KEY-----\n", named: "k.properties")
        try settings.apply(environment: ["IIDBATCH_KAFKA_SSL_KEY_PASSWORD": "env-secret-2", "IIDBATCH_KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET": "env-secret-3"])
        try settings.apply(assignment: "ssl.keystore.password=cli-secret-4", origin: "-X")
        let text = settings.description
        for secret in ["file-secret-1", "env-secret-2", "env-secret-3", "cli-secret-4", "BEGIN PRIVATE KEY"] {
            #expect(!text.contains(secret), "\(secret) in \(text)")
        }
        #expect(text.contains("sasl.password=[redacted] (from k.properties line 1)"), "\(text)")
        #expect(text.contains("sasl.username=svc (from k.properties line 2)"), "\(text)")
        #expect(text.contains("ssl.key.password=[redacted] (from $IIDBATCH_KAFKA_SSL_KEY_PASSWORD)"), "\(text)")
        #expect(text.contains("ssl.keystore.password=[redacted] (from -X)"), "\(text)")
        #expect(settings.configuration["sasl.password"] == "file-secret-1", "librdkafka gets the value itself")
    }

    @Test("which properties' values are shown")
    func secrets() {
        for name in [
            "sasl.password", "ssl.key.password", "ssl.keystore.password", "sasl.oauthbearer.client.secret", "ssl.key.pem",
            "sasl.oauthbearer.config", "sasl.oauthbearer.assertion.private.key.passphrase", "SASL.PASSWORD", "ssl.certificate.pem",
        ] {
            #expect(!KafkaPropertyName.showsValue(name), "\(name)")
        }
        for name in ["sasl.username", "bootstrap.servers", "ssl.ca.location", "security.protocol", "client.id"] {
            #expect(KafkaPropertyName.showsValue(name), "\(name)")
        }
    }

    @Test("librdkafka's refusal of a secret property names it without its value")
    func refusedSecret() throws {
        var configuration = KafkaConfiguration(bootstrapServers: "127.0.0.1:1")
        configuration["sasl.oauthbearer.client.secret.typo"] = "hunter2-secret"
        let error = #expect(throws: KafkaError.self) { try KafkaProducer(configuration: configuration) }
        let text = error?.description ?? ""
        #expect(text.contains("sasl.oauthbearer.client.secret.typo=[redacted]"), "\(text)")
        #expect(!text.contains("hunter2"), "\(text)")
    }
}
