import Configuration
import Kafka

extension KafkaConfiguration {
    /// Reads `kafka.*` keys (`KAFKA_BROKERS`, `KAFKA_DELIVERY_TIMEOUT_SECONDS`, ...) with the local defaults.
    public init(config: ConfigReader, clientId: String) {
        var extra: [String: String] = [:]
        // librdkafka's own debug contexts (`cgrp,topic,msg`...), logged at level debug, for troubleshooting.
        if let debug = config.string(forKey: "kafka.debug") { extra["debug"] = debug }
        self.init(
            bootstrapServers: config.string(forKey: "kafka.brokers", default: "127.0.0.1:19092"),
            clientId: clientId,
            deliveryTimeout: .seconds(config.double(forKey: "kafka.delivery.timeout.seconds", default: 10)),
            metadataRefreshInterval: .seconds(config.double(forKey: "kafka.metadata.refresh.seconds", default: 3)),
            fetchMaxWait: .milliseconds(config.int(forKey: "kafka.fetch.max.wait.milliseconds", default: 20)),
            sessionTimeout: .seconds(config.double(forKey: "kafka.session.timeout.seconds", default: 6)),
            groupInstanceId: config.string(forKey: "kafka.group.instance.id"),
            extraProperties: extra)
    }
}
