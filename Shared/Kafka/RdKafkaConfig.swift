import CRdKafka

/// Builds a librdkafka configuration object from string properties, failing on the first one it rejects.
enum RdKafkaConfig {
    /// Returns a new `rd_kafka_conf_t` owned by the caller (ownership passes to `rd_kafka_new`). Every client of ours
    /// starts here, before librdkafka first loads OpenSSL, so the process is prepared for it (`KafkaProcess.prepare`)
    /// whether or not its `main` did that already (a test process has none).
    static func make(_ properties: [String: String]) throws -> OpaquePointer {
        KafkaProcess.prepare()
        guard let conf = rd_kafka_conf_new() else { throw KafkaError.clientCreationFailed("out of memory") }
        var errorBuffer = [CChar](repeating: 0, count: 512)
        for (key, value) in properties.sorted(by: { $0.key < $1.key }) {
            let result = rd_kafka_conf_set(conf, key, value, &errorBuffer, errorBuffer.count)
            if result != RD_KAFKA_CONF_OK {
                rd_kafka_conf_destroy(conf)
                throw KafkaError.invalidConfiguration(key: key, reason: String(errorBuffer: errorBuffer))
            }
        }
        return conf
    }

    /// Properties every client of ours sets.
    static func common(_ configuration: KafkaConfiguration) -> [String: String] {
        [
            "bootstrap.servers": configuration.bootstrapServers,
            "client.id": configuration.clientId,
            "topic.metadata.refresh.interval.ms": String(configuration.metadataRefreshInterval.milliseconds),
            // Logs go through the event queue we poll, never through a callback on librdkafka's threads.
            "log.queue": "true",
            // After an outage, try the broker again at least every second (librdkafka's default backs off to
            // 10 s), so events flow again within seconds of the broker answering.
            "reconnect.backoff.max.ms": "1000",
            // No KIP-714 metrics push: the local broker does not take it, and asked every few seconds whether to
            // (GetTelemetrySubscriptions, about 2 requests a second from the stack at rest); our metrics are our own.
            "enable.metrics.push": "false",
        ]
    }

    /// Creates a client handle of the given kind, taking ownership of `conf`.
    static func makeHandle(kind: rd_kafka_type_t, conf: OpaquePointer) throws -> OpaquePointer {
        var errorBuffer = [CChar](repeating: 0, count: 512)
        guard let handle = rd_kafka_new(kind, conf, &errorBuffer, errorBuffer.count) else {
            rd_kafka_conf_destroy(conf)
            throw KafkaError.clientCreationFailed(String(errorBuffer: errorBuffer))
        }
        return handle
    }
}

extension String {
    /// Decodes a NUL-terminated C buffer that librdkafka filled in.
    init(errorBuffer buffer: [CChar]) {
        self = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
