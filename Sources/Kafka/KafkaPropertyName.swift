/// The one name each librdkafka property is recorded under.
///
/// librdkafka accepts several names for some properties (CONFIGURATION.md's "Alias for …"):
/// `metadata.broker.list` and `bootstrap.servers` set one property, and whichever it is given
/// last wins. Recorded under one name, a property set at two layers under two names is one
/// setting whose precedence `KafkaSettings` decides, and a default never overrides a caller's
/// value given under the other name (`KafkaConfiguration.withDefaults`).
public enum KafkaPropertyName {
    /// Each alias of librdkafka (2.x) and the name it is recorded under: the name this program's
    /// code and documentation use where they use one (`bootstrap.servers`, `linger.ms`, `acks`,
    /// `message.timeout.ms`), else librdkafka's own.
    public static let aliases: [String: String] = [
        "metadata.broker.list": "bootstrap.servers",
        "queue.buffering.max.ms": "linger.ms",
        "request.required.acks": "acks",
        "delivery.timeout.ms": "message.timeout.ms",
        "sasl.mechanism": "sasl.mechanisms",
        "max.in.flight": "max.in.flight.requests.per.connection",
        "max.partition.fetch.bytes": "fetch.message.max.bytes",
        "retries": "message.send.max.retries",
        "compression.type": "compression.codec",
    ]

    /// The name `property` is recorded under: its target when it is an alias, else itself.
    public static func canonical(_ property: String) -> String {
        aliases[property] ?? property
    }

    /// The properties whose values logs and errors may show: librdkafka's (2.x) properties that
    /// hold no credential, by their one name. Every other property's value, a misspelt name's
    /// (`sasl.pasword`) above all, is shown as `KafkaConfiguration.redacted`: an allow-list, so
    /// a secret under a name nobody foresaw stays hidden. Left off on purpose: passwords, secrets
    /// and keys (`sasl.password`, `sasl.oauthbearer.client.secret`, `ssl.key.password`,
    /// `ssl.keystore.password`, `ssl.key.pem`), what may embed them (`sasl.oauthbearer.config`,
    /// `sasl.oauthbearer.extensions`, `sasl.kerberos.kinit.cmd`, the token endpoint URL), and
    /// inline certificates (`ssl.ca.pem`, `ssl.certificate.pem`: long, and their files' locations
    /// say as much).
    public static let shownValues: Set<String> = [
        // Where and who
        "bootstrap.servers", "client.id", "client.rack", "client.dns.lookup", "broker.address.family", "broker.address.ttl",
        "broker.version.fallback", "api.version.request", "api.version.request.timeout.ms", "api.version.fallback.ms",
        "metadata.recovery.strategy",
        // Security, without its secrets
        "security.protocol", "sasl.mechanisms", "sasl.username", "sasl.kerberos.service.name", "sasl.kerberos.principal",
        "sasl.kerberos.keytab", "sasl.kerberos.min.time.before.relogin", "sasl.oauthbearer.method", "sasl.oauthbearer.client.id",
        "sasl.oauthbearer.scope", "enable.sasl.oauthbearer.unsecure.jwt", "ssl.ca.location", "ssl.ca.certificate.stores",
        "ssl.certificate.location", "ssl.key.location", "ssl.keystore.location", "ssl.crl.location", "ssl.cipher.suites",
        "ssl.curves.list", "ssl.sigalgs.list", "ssl.endpoint.identification.algorithm", "enable.ssl.certificate.verification",
        "ssl.providers", "ssl.engine.location", "ssl.engine.id",
        // Connections and metadata
        "socket.timeout.ms", "socket.blocking.max.ms", "socket.send.buffer.bytes", "socket.receive.buffer.bytes",
        "socket.keepalive.enable", "socket.nagle.disable", "socket.max.fails", "socket.connection.setup.timeout.ms",
        "connections.max.idle.ms", "reconnect.backoff.ms", "reconnect.backoff.max.ms", "reconnect.backoff.jitter.ms",
        "retry.backoff.ms", "retry.backoff.max.ms", "request.timeout.ms", "metadata.max.age.ms", "topic.metadata.refresh.interval.ms",
        "topic.metadata.refresh.fast.interval.ms", "topic.metadata.refresh.fast.cnt", "topic.metadata.refresh.sparse",
        "topic.metadata.propagation.max.ms", "topic.blacklist", "allow.auto.create.topics", "max.in.flight.requests.per.connection",
        "message.max.bytes", "message.copy.max.bytes", "receive.message.max.bytes",
        // Diagnostics
        "debug", "log_level", "log.queue", "log.thread.name", "log.connection.close", "statistics.interval.ms", "enable.random.seed",
        "internal.termination.signal", "builtin.features", "plugin.library.paths",
        // Consumers
        "group.id", "group.instance.id", "group.protocol", "group.protocol.type", "partition.assignment.strategy",
        "session.timeout.ms", "heartbeat.interval.ms", "coordinator.query.interval.ms", "max.poll.interval.ms",
        "enable.auto.commit", "auto.commit.interval.ms", "enable.auto.offset.store", "auto.offset.reset", "auto.commit.enable",
        "queued.min.messages", "queued.max.messages.kbytes", "fetch.wait.max.ms", "fetch.message.max.bytes", "fetch.max.bytes",
        "fetch.min.bytes", "fetch.error.backoff.ms", "isolation.level", "enable.partition.eof", "check.crcs",
        "consume.callback.max.messages", "offset.store.method", "offset.store.path", "offset.store.sync.interval.ms",
        // Producers
        "transactional.id", "transaction.timeout.ms", "enable.idempotence", "enable.gapless.guarantee", "queue.buffering.max.messages",
        "queue.buffering.max.kbytes", "linger.ms", "message.send.max.retries", "queue.buffering.backpressure.threshold",
        "compression.codec", "compression.level", "batch.num.messages", "batch.size", "delivery.report.only.error",
        "sticky.partitioning.linger.ms", "acks", "message.timeout.ms", "queuing.strategy", "produce.offset.report", "partitioner",
    ]

    /// Whether logs and errors may show the value of `property` (given by its name or an alias):
    /// only when its one name is in `shownValues`.
    public static func showsValue(_ property: String) -> Bool {
        shownValues.contains(canonical(property))
    }

    /// The properties only a consumer reads (CONFIGURATION.md's C/P column `C`, librdkafka 2.x),
    /// by their one name. A producer or admin client is made without them
    /// (`KafkaConfiguration.forProducer`): librdkafka would ignore them there and warn so
    /// (CONFWARN) on every start of a process whose one configuration serves every client.
    public static let consumerOnly: Set<String> = [
        "group.id", "group.instance.id", "group.protocol.type", "partition.assignment.strategy", "session.timeout.ms",
        "heartbeat.interval.ms", "coordinator.query.interval.ms", "max.poll.interval.ms", "enable.auto.commit", "auto.commit.interval.ms",
        "enable.auto.offset.store", "auto.commit.enable", "auto.offset.reset", "queued.min.messages", "queued.max.messages.kbytes",
        "fetch.wait.max.ms", "fetch.message.max.bytes", "fetch.max.bytes", "fetch.min.bytes", "fetch.error.backoff.ms", "isolation.level",
        "enable.partition.eof", "check.crcs", "consume.callback.max.messages", "offset.store.method", "offset.store.path",
        "offset.store.sync.interval.ms",
    ]

    /// The properties only a producer reads (CONFIGURATION.md's C/P column `P`, librdkafka 2.x),
    /// by their one name. A consumer is made without them (`KafkaConfiguration.forConsumer`), for
    /// the reason `consumerOnly` gives. `retry.backoff.ms` is left out: later librdkafka
    /// versions read it in every client.
    public static let producerOnly: Set<String> = [
        "transactional.id", "transaction.timeout.ms", "enable.idempotence", "enable.gapless.guarantee", "queue.buffering.max.messages",
        "queue.buffering.max.kbytes", "linger.ms", "message.send.max.retries", "queue.buffering.backpressure.threshold",
        "compression.codec", "compression.level", "batch.num.messages", "batch.size", "delivery.report.only.error",
        "sticky.partitioning.linger.ms", "acks", "request.timeout.ms", "message.timeout.ms", "queuing.strategy", "produce.offset.report",
        "partitioner",
    ]
}
