import CRdKafka
import Logging
import NIOPosix

/// Owns one librdkafka client handle and performs the calls that producers and consumers share.
/// Every blocking call goes through `KafkaBlockingPool`, never the cooperative pool.
final class KafkaClientHandle: @unchecked Sendable {
    // Safe to share: librdkafka handles are thread-safe, and the pointer itself never changes.
    let pointer: OpaquePointer
    let logger: Logger

    init(kind: rd_kafka_type_t, properties: [String: String], events: Int32, logger: Logger) throws {
        try LibrdkafkaVersion.requireSupported()
        let conf = try RdKafkaConfig.make(properties)
        rd_kafka_conf_set_events(conf, events)
        self.pointer = try RdKafkaConfig.makeHandle(kind: kind, conf: conf)
        self.logger = logger
    }

    deinit {
        // Destroying waits for librdkafka's threads to end: never on the cooperative pool, where the last
        // reference may go (a replaced producer or consumer instance).
        let pointer = UncheckedPointer(pointer)
        KafkaBlockingPool.submit { rd_kafka_destroy(pointer.value) }
    }

    /// True when a broker answers a metadata request within `timeout`.
    func isBrokerReachable(timeout: Duration) async -> Bool {
        let milliseconds = Int32(timeout.milliseconds)
        let result = try? await KafkaBlockingPool.run { [self] in
            var metadata: UnsafePointer<rd_kafka_metadata>?
            let error = rd_kafka_metadata(pointer, 0, nil, &metadata, milliseconds)
            if let metadata { rd_kafka_metadata_destroy(metadata) }
            return error == RD_KAFKA_RESP_ERR_NO_ERROR
        }
        return result ?? false
    }

    /// Forwards one librdkafka log event to swift-log.
    func forwardLog(_ event: OpaquePointer) {
        var facility: UnsafePointer<CChar>?
        var text: UnsafePointer<CChar>?
        var level: Int32 = 0
        guard rd_kafka_event_log(event, &facility, &text, &level) == 0, let text else { return }
        let logLevel: Logger.Level =
            switch level {
            // One step down: librdkafka reports every refused connection as an error, and retries on its own.
            case ...3: .warning
            case 4, 5: .notice
            case 6: .info
            default: .debug
            }
        logger.log(
            level: logLevel, "\(String(cString: text))",
            metadata: ["librdkafka.facility": .string(facility.map { String(cString: $0) } ?? "")])
    }
}

/// A librdkafka handle handed to the thread that destroys it, once nothing else holds it.
private struct UncheckedPointer: @unchecked Sendable {
    let value: OpaquePointer
    init(_ value: OpaquePointer) { self.value = value }
}
