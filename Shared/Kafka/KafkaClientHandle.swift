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
        rd_kafka_destroy(pointer)
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

    /// The broker's current end offset of a partition; `nil` when the topic or partition does not exist.
    /// Asks for the topic's metadata first: a watermark query for a missing topic only times out.
    func highWatermark(topic: String, partition: Int32, timeout: Duration) async throws -> Int64? {
        let milliseconds = Int32(timeout.milliseconds)
        return try await KafkaBlockingPool.run { [self] in
            guard try partitionCount(of: topic, timeoutMilliseconds: milliseconds).map({ partition < $0 }) == true else { return nil }
            var low: Int64 = 0
            var high: Int64 = 0
            let error = rd_kafka_query_watermark_offsets(pointer, topic, partition, &low, &high, milliseconds)
            switch error {
            case RD_KAFKA_RESP_ERR_NO_ERROR: return high
            case RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART, RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC,
                RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION:
                return nil
            default: throw KafkaError.from(error, operation: "watermark query")
            }
        }
    }

    /// The topic's partition count from the broker's metadata, `nil` when the broker does not know the topic.
    /// Blocking: call on `KafkaBlockingPool`.
    private func partitionCount(of topic: String, timeoutMilliseconds: Int32) throws -> Int32? {
        guard let handle = rd_kafka_topic_new(pointer, topic, nil) else { throw KafkaError.from(rd_kafka_last_error(), operation: "topic handle") }
        defer { rd_kafka_topic_destroy(handle) }
        var metadata: UnsafePointer<rd_kafka_metadata>?
        let error = rd_kafka_metadata(pointer, 0, handle, &metadata, timeoutMilliseconds)
        defer { if let metadata { rd_kafka_metadata_destroy(metadata) } }
        guard error == RD_KAFKA_RESP_ERR_NO_ERROR, let metadata, metadata.pointee.topic_cnt > 0 else {
            throw KafkaError.from(error, operation: "metadata query")
        }
        let entry = metadata.pointee.topics[0]
        switch entry.err {
        case RD_KAFKA_RESP_ERR_NO_ERROR: return entry.partition_cnt
        case RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART, RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC: return nil
        default: throw KafkaError.from(entry.err, operation: "metadata of \(topic)")
        }
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
