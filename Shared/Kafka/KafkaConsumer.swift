import CRdKafka
import Logging
import NIOConcurrencyHelpers

/// A consumer-group member that reads `topics` as a pull-based `AsyncSequence` and commits offsets only
/// when told to, after the caller's effect has committed.
///
/// Reading is bounded: one message is pulled per `next()`, and librdkafka's prefetch buffer is capped by
/// `maxPrefetchBytes`. Every blocking call runs on `KafkaBlockingPool`.
public final class KafkaConsumer: @unchecked Sendable {
    // @unchecked: the log queue pointer is a librdkafka handle, which is thread-safe; all else is immutable or locked.
    private let client: KafkaClientHandle
    private let logQueue: OpaquePointer
    private let isClosed = NIOLockedValueBox(false)
    private let logger: Logger
    /// The topics this consumer subscribed to.
    public let topics: [String]

    /// Joins `groupId` and subscribes to `topics`; a group's first read starts at the earliest offset.
    public init(
        configuration: KafkaConfiguration,
        groupId: String,
        topics: [String],
        logger: Logger,
        maxPrefetchBytes: Int = 16 * 1024 * 1024
    ) throws {
        var properties = RdKafkaConfig.common(configuration)
        properties["group.id"] = groupId
        properties["enable.auto.commit"] = "false"
        properties["enable.auto.offset.store"] = "false"
        properties["auto.offset.reset"] = "earliest"
        properties["session.timeout.ms"] = "10000"
        properties["heartbeat.interval.ms"] = "1000"
        properties["fetch.wait.max.ms"] = String(configuration.fetchMaxWait.milliseconds)
        properties["queued.max.messages.kbytes"] = String(max(1, maxPrefetchBytes / 1024))
        properties.merge(configuration.extraProperties) { _, extra in extra }
        self.client = try KafkaClientHandle(kind: RD_KAFKA_CONSUMER, properties: properties, events: RD_KAFKA_EVENT_LOG, logger: logger)
        self.logQueue = rd_kafka_queue_new(client.pointer)
        rd_kafka_set_log_queue(client.pointer, logQueue)
        rd_kafka_poll_set_consumer(client.pointer)
        self.logger = logger
        self.topics = topics

        let subscription = rd_kafka_topic_partition_list_new(Int32(topics.count))
        defer { rd_kafka_topic_partition_list_destroy(subscription) }
        for topic in topics { rd_kafka_topic_partition_list_add(subscription, topic, RD_KAFKA_PARTITION_UA) }
        let error = rd_kafka_subscribe(client.pointer, subscription)
        if error != RD_KAFKA_RESP_ERR_NO_ERROR { throw KafkaError.from(error, operation: "subscribe") }
    }

    deinit {
        rd_kafka_queue_destroy(logQueue)
    }

    /// The messages of the subscribed topics, in order per partition. Ends when the task is cancelled or the consumer closed.
    public var messages: KafkaMessageSequence { KafkaMessageSequence(consumer: self) }

    /// Commits the position after `message`, so a restarted member resumes behind it. Call after the effect committed.
    public func commit(_ message: KafkaMessage) async throws {
        try await commit([message])
    }

    /// Commits the position after the last of `messages` in each partition, in one request.
    public func commit(_ messages: [KafkaMessage]) async throws {
        var next: [PartitionKey: Int64] = [:]
        for message in messages {
            let key = PartitionKey(topic: message.topic, partition: message.partition)
            next[key] = max(next[key] ?? 0, message.offset + 1)
        }
        guard !next.isEmpty else { return }
        try await KafkaBlockingPool.run { [client, next] in
            let offsets = rd_kafka_topic_partition_list_new(Int32(next.count))
            defer { rd_kafka_topic_partition_list_destroy(offsets) }
            for (key, offset) in next {
                rd_kafka_topic_partition_list_add(offsets, key.topic, key.partition).pointee.offset = offset
            }
            let error = rd_kafka_commit(client.pointer, offsets, 0)
            // After a broker restart the group may be gone; the inbox makes the re-read harmless.
            if error != RD_KAFKA_RESP_ERR_NO_ERROR && error != RD_KAFKA_RESP_ERR__NO_OFFSET {
                throw KafkaError.from(error, operation: "commit")
            }
        }
    }

    /// Waits for the next message, then adds up to `limit - 1` more that are already fetched, without waiting
    /// for them. Empty when the task is cancelled or the consumer closed.
    public func nextBatch(limit: Int) async throws -> [KafkaMessage] {
        guard let first = try await nextMessage() else { return [] }
        guard limit > 1 else { return [first] }
        return try await KafkaBlockingPool.run {
            var batch = [first]
            while batch.count < limit, let message = self.pollOnce(timeoutMilliseconds: 0) { batch.append(message) }
            return batch
        }
    }

    private struct PartitionKey: Hashable {
        var topic: String
        var partition: Int32
    }

    /// Leaves the group cleanly so partitions move to other members at once. Idempotent.
    public func close() async {
        let wasClosed = isClosed.withLockedValue { closed in
            defer { closed = true }
            return closed
        }
        if wasClosed { return }
        _ = try? await KafkaBlockingPool.run { [client] in rd_kafka_consumer_close(client.pointer) }
    }

    /// Pulls the next message, polling in short slices so cancellation is noticed promptly.
    func nextMessage() async throws -> KafkaMessage? {
        while !Task.isCancelled && !isClosed.withLockedValue({ $0 }) {
            if let message = try await KafkaBlockingPool.run({ self.pollOnce(timeoutMilliseconds: 100) }) {
                return message
            }
        }
        return nil
    }

    /// One poll of the consumer queue. Runs on the blocking pool.
    private func pollOnce(timeoutMilliseconds: Int32) -> KafkaMessage? {
        while let event = rd_kafka_queue_poll(logQueue, 0) {
            client.forwardLog(event)
            rd_kafka_event_destroy(event)
        }
        guard let raw = rd_kafka_consumer_poll(client.pointer, timeoutMilliseconds) else { return nil }
        defer { rd_kafka_message_destroy(raw) }
        let message = raw.pointee
        if message.err != RD_KAFKA_RESP_ERR_NO_ERROR {
            // Transient by nature here (unknown topic before it is created, broker restarts): librdkafka retries.
            logger.debug("Kafka consumer notice", metadata: ["reason": .string(String(cString: rd_kafka_err2str(message.err)))])
            return nil
        }
        let value = message.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: message.len)) } ?? []
        let key = message.key.map { Array(UnsafeRawBufferPointer(start: $0, count: message.key_len)) }
        return KafkaMessage(
            topic: String(cString: rd_kafka_topic_name(message.rkt)),
            partition: message.partition,
            offset: message.offset,
            key: key,
            value: value)
    }
}
