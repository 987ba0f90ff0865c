import Configuration
import Foundation
import Kafka
import PostgresSupport

extension KafkaConfiguration {
    /// Reads `kafka.*` keys (`KAFKA_BROKERS`, `KAFKA_DELIVERY_TIMEOUT_SECONDS`, ...) with the local defaults.
    ///
    /// Consumers use static group membership by default, with the instance id `<host name>-<HTTP_PORT>` (just the
    /// host name when `HTTP_PORT` is unset, since each service's default port differs): stable across restarts
    /// of one process and distinct between replicas, which cannot share a host and a port. `KAFKA_GROUP_INSTANCE_ID`
    /// overrides it; `none`, or `HTTP_PORT=0` (a port chosen at random, as in tests), gives dynamic membership.
    public init(config: ConfigReader, clientId: String) {
        var extra: [String: String] = [:]
        // librdkafka's own debug contexts (`cgrp,topic,msg`...), logged at level debug, for troubleshooting.
        if let debug = config.string(forKey: "kafka.debug"), !debug.isEmpty { extra["debug"] = debug }
        self.init(
            bootstrapServers: config.string(forKey: "kafka.brokers", default: "127.0.0.1:19092"),
            clientId: clientId,
            deliveryTimeout: .seconds(config.double(forKey: "kafka.delivery.timeout.seconds", default: 10)),
            metadataRefreshInterval: .seconds(config.double(forKey: "kafka.metadata.refresh.seconds", default: 3)),
            fetchMaxWait: .milliseconds(config.int(forKey: "kafka.fetch.max.wait.milliseconds", default: 20)),
            producerLinger: .milliseconds(config.int(forKey: "kafka.linger.milliseconds", default: 2)),
            sessionTimeout: .seconds(config.double(forKey: "kafka.session.timeout.seconds", default: 6)),
            groupInstanceId: Self.groupInstanceId(config: config),
            extraProperties: extra)
    }

    /// The static membership id from `kafka.group.instance.id`, or derived from the host and the HTTP port.
    static func groupInstanceId(config: ConfigReader) -> String? {
        if let configured = config.string(forKey: "kafka.group.instance.id") {
            return configured.isEmpty || configured == "none" ? nil : configured
        }
        let host = ProcessInfo.processInfo.hostName
        switch config.int(forKey: "http.port") {
        case nil: return host
        case 0: return nil
        case let port?: return "\(host)-\(port)"
        }
    }
}
