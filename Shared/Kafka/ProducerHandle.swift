import CRdKafka
import Logging
import NIOConcurrencyHelpers

/// One librdkafka producer instance with its event queue and topic handles. `KafkaProducer` replaces it
/// when the broker has forgotten the producer's identity.
final class ProducerHandle: @unchecked Sendable {
    // @unchecked: the queue and topic pointers are librdkafka handles, which are thread-safe; the cache is locked.
    let client: KafkaClientHandle
    let mainQueue: OpaquePointer
    private let topics = NIOLockedValueBox<[String: OpaquePointer]>([:])

    init(properties: [String: String], logger: Logger) throws {
        let events = RD_KAFKA_EVENT_DR | RD_KAFKA_EVENT_ERROR | RD_KAFKA_EVENT_LOG
        self.client = try KafkaClientHandle(kind: RD_KAFKA_PRODUCER, properties: properties, events: events, logger: logger)
        rd_kafka_set_log_queue(client.pointer, nil)
        self.mainQueue = rd_kafka_queue_get_main(client.pointer)
    }

    deinit {
        for (_, topic) in topics.withLockedValue({ $0 }) { rd_kafka_topic_destroy(topic) }
        rd_kafka_queue_destroy(mainQueue)
    }

    /// The cached handle of a topic, created on first use.
    func topic(_ name: String) -> OpaquePointer {
        topics.withLockedValue { topics in
            if let existing = topics[name] { return existing }
            let created = rd_kafka_topic_new(client.pointer, name, nil)!
            topics[name] = created
            return created
        }
    }

    /// Messages not yet delivered (including reports not yet served).
    var outstanding: Int32 { rd_kafka_outq_len(client.pointer) }

    /// Fails every queued and in-flight message at once; their reports arrive on the event queue.
    func purge() {
        rd_kafka_purge(client.pointer, Int32(RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT))
    }
}
