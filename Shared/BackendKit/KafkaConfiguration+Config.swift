import Configuration
import Foundation
import Kafka
import PostgresSupport

extension KafkaConfiguration {
    /// Reads `kafka.*` keys (`KAFKA_BROKERS`, `KAFKA_DELIVERY_TIMEOUT_SECONDS`, ...) with the local defaults.
    ///
    /// Consumers use dynamic group membership unless `KAFKA_GROUP_INSTANCE_ID` asks for static membership: an id of
    /// its own, or `auto` for `<host name>-<HTTP_PORT>` (stable across restarts of one process, distinct between
    /// replicas). Measured on the local broker (docs/PERFORMANCE.md, "Consumers across replicas"): Tansu 0.6 never
    /// moved a SIGKILLed static member's partitions to the other replica (not within 70 s), while dynamic members
    /// with the 4 s session had them moved in 6.0 s. On a Kafka cluster, static membership spares a restart its two
    /// rebalances.
    public init(config: ConfigReader, clientId: String) {
        var extra: [String: String] = [:]
        // librdkafka's own debug contexts (`cgrp,topic,msg`...), logged at level debug, for troubleshooting.
        if let debug = config.string(forKey: "kafka.debug"), !debug.isEmpty { extra["debug"] = debug }
        self.init(
            bootstrapServers: config.string(forKey: "kafka.brokers", default: "127.0.0.1:19092"),
            clientId: clientId,
            deliveryTimeout: .seconds(config.double(forKey: "kafka.delivery.timeout.seconds", default: 10)),
            metadataRefreshInterval: .seconds(config.double(forKey: "kafka.metadata.refresh.seconds", default: 3)),
            fetchMaxWait: .milliseconds(config.int(forKey: "kafka.fetch.max.wait.milliseconds", default: 100)),
            producerLinger: .milliseconds(config.int(forKey: "kafka.linger.milliseconds", default: 2)),
            sessionTimeout: .seconds(config.double(forKey: "kafka.session.timeout.seconds", default: 4)),
            groupInstanceId: Self.groupInstanceId(config: config),
            consumerCloseWait: .seconds(max(0, config.double(forKey: "kafka.consumer.close.wait.seconds", default: 3))),
            consumerIdlePause: .seconds(max(0, config.double(forKey: "kafka.consumer.idle.pause.seconds", default: 2))),
            consumerIdleRecheck: .seconds(max(0.1, config.double(forKey: "kafka.consumer.idle.recheck.seconds", default: 5))),
            extraProperties: extra)
    }

    /// The static membership id from `kafka.group.instance.id` (`auto`: the host and the HTTP port), or nil for
    /// dynamic membership (unset, empty, `none`, or `auto` with a random port).
    static func groupInstanceId(config: ConfigReader) -> String? {
        guard let configured = config.string(forKey: "kafka.group.instance.id"), !configured.isEmpty, configured != "none" else {
            return nil
        }
        guard configured == "auto" else { return configured }
        let host = ProcessInfo.processInfo.hostName
        switch config.int(forKey: "http.port") {
        case nil: return host
        case 0: return nil
        case let port?: return "\(host)-\(port)"
        }
    }
}
