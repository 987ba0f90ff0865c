import Configuration
import Kafka

extension KafkaConfiguration {
    /// Reads `kafka.*` keys (`KAFKA_BROKERS`, `KAFKA_DELIVERY_TIMEOUT_SECONDS`, ...) with the local defaults.
    public init(config: ConfigReader, clientId: String) {
        self.init(
            bootstrapServers: config.string(forKey: "kafka.brokers", default: "127.0.0.1:19092"),
            clientId: clientId,
            deliveryTimeout: .seconds(config.double(forKey: "kafka.delivery.timeout.seconds", default: 10)),
            metadataRefreshInterval: .seconds(config.double(forKey: "kafka.metadata.refresh.seconds", default: 3)),
            fetchMaxWait: .milliseconds(config.int(forKey: "kafka.fetch.max.wait.milliseconds", default: 20)))
    }
}
