import CRdKafka
import Logging
import Metrics
import NIOConcurrencyHelpers
import ServiceLifecycle

/// An idempotent Kafka producer whose `send` reports the broker's acknowledgement to the async caller.
///
/// Delivery reports arrive as events on librdkafka's main queue; `run()` polls that queue from
/// `KafkaBlockingPool`, so no Swift code ever runs on a librdkafka thread. Run it as a `Service`.
public final class KafkaProducer: Service, @unchecked Sendable {
    // @unchecked: every mutable member is locked; librdkafka handles are thread-safe.
    private let properties: [String: String]
    private let current: NIOLockedValueBox<ProducerHandle>
    /// Undelivered messages by id, with the handle that carries them.
    private let pending = NIOLockedValueBox<[UInt: (promise: DeliveryPromise, handle: ObjectIdentifier)]>([:])
    private let nextMessageId = NIOLockedValueBox<UInt>(1)
    private let drainTimeout: Duration
    private let logger: Logger
    /// Whether a task is waiting for a broker to answer again after all were lost (`renewOnceBrokersAnswer`).
    private let awaitingBrokers = NIOLockedValueBox(false)
    private let stopped = NIOLockedValueBox(false)

    /// Creates the producer; it sends only while `run()` is running.
    public init(configuration: KafkaConfiguration, logger: Logger, drainTimeout: Duration = .seconds(10)) throws {
        var properties = RdKafkaConfig.common(configuration)
        properties["enable.idempotence"] = "true"
        properties["acks"] = "all"
        properties["linger.ms"] = String(configuration.producerLinger.milliseconds)
        properties["message.timeout.ms"] = String(configuration.deliveryTimeout.milliseconds)
        properties["queue.buffering.max.messages"] = String(configuration.maxBufferedMessages)
        // Topics are created only on purpose, with the configured partition count: a broker's own default
        // count differs, and a partition count that changes under a consumer group unsettles it.
        properties["allow.auto.create.topics"] = "false"
        properties.merge(configuration.extraProperties) { _, extra in extra }
        self.properties = properties
        self.current = NIOLockedValueBox(try ProducerHandle(properties: properties, logger: logger))
        self.drainTimeout = drainTimeout
        self.logger = logger
    }

    private var handle: ProducerHandle { current.withLockedValue { $0 } }

    /// Publishes one message and returns once the broker has acknowledged it.
    public func send(_ message: OutgoingMessage) async throws -> DeliveryReport {
        try await sendBatch([message])[0].get()
    }

    /// Enqueues `messages` in order (so per-key order holds) and returns each one's outcome, in the same order.
    public func sendBatch(_ messages: [OutgoingMessage]) async -> [Result<DeliveryReport, KafkaError>] {
        let promises = messages.map(enqueue)
        var results: [Result<DeliveryReport, KafkaError>] = []
        results.reserveCapacity(promises.count)
        for promise in promises { results.append(await promise.value()) }
        return results
    }

    /// True when a broker answers a metadata request within `timeout`.
    public func isBrokerReachable(timeout: Duration = .seconds(2)) async -> Bool {
        await handle.client.isBrokerReachable(timeout: timeout)
    }

    /// Creates the topics that do not exist yet with `partitions` partitions; existing ones are left alone.
    public func createTopics(_ names: [String], partitions: Int32, timeout: Duration = .seconds(10)) async throws {
        try await TopicCreator.create(names, partitions: partitions, on: handle.client, timeout: timeout)
    }

    /// Replaces the librdkafka instance with a fresh one, failing what the old one still held (the caller
    /// retries it). For a producer that was fenced, lost its id or hit a fatal error (`ProducerRecovery`):
    /// librdkafka's epoch bump cannot recover from those on every broker, a new producer id always does.
    public func renew(reason: FailureReason) async throws {
        let fresh = try ProducerHandle(properties: properties, logger: logger)
        let old = current.withLockedValue { current in
            defer { current = fresh }
            return current
        }
        old.purge()
        let deadline = ContinuousClock.now + .seconds(2)
        while old.outstanding > 0 && ContinuousClock.now < deadline {
            try await KafkaBlockingPool.run { self.serveEvents(of: old, timeoutMilliseconds: 100) }
        }
        let oldId = ObjectIdentifier(old)
        let orphans = pending.withLockedValue { pending in
            let orphans = pending.filter { $0.value.handle == oldId }
            for id in orphans.keys { pending.removeValue(forKey: id) }
            return orphans.values.map(\.promise)
        }
        for promise in orphans { promise.fulfil(.failure(.closed)) }
        Counter(label: "kafka_producer_replacements_total", dimensions: [("reason", reason.rawValue)]).increment()
        logger.notice("Kafka producer replaced by a new instance with a new producer id", metadata: ["reason": .string(reason.rawValue)])
    }

    /// Makes librdkafka raise a fatal error on the current instance, as a fenced or broken producer would;
    /// for tests of the recovery only.
    @_spi(Testing) public func raiseFatalErrorForTesting() {
        _ = rd_kafka_test_fatal_error(handle.client.pointer, RD_KAFKA_RESP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER, "raised by a test")
    }

    public func run() async throws {
        logger.info("Kafka producer started", metadata: ["librdkafka": .string(LibrdkafkaVersion.loaded)])
        // An event ends a wait at once; the wait bounds only how soon a shutdown, or an instance `renew` replaced, is
        // noticed. Half a second rather than a tenth: an idle process wakes here twice a second, not ten times.
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let handle = self.handle
            try await KafkaBlockingPool.run { self.serveEvents(of: handle, timeoutMilliseconds: 500) }
        }
        let deadline = ContinuousClock.now + drainTimeout
        while handle.outstanding > 0 && ContinuousClock.now < deadline {
            let handle = self.handle
            try await KafkaBlockingPool.run { self.serveEvents(of: handle, timeoutMilliseconds: 100) }
        }
        let abandoned = pending.withLockedValue { pending in
            defer { pending.removeAll() }
            return pending.values.map(\.promise)
        }
        for promise in abandoned { promise.fulfil(.failure(.closed)) }
        stopped.withLockedValue { $0 = true }
        logger.info("Kafka producer stopped", metadata: ["undelivered": "\(abandoned.count)"])
    }

    private func enqueue(_ message: OutgoingMessage) -> DeliveryPromise {
        let promise = DeliveryPromise()
        let id = nextMessageId.withLockedValue { next in
            defer { next &+= 1; if next == 0 { next = 1 } }
            return next
        }
        let handle = self.handle
        pending.withLockedValue { $0[id] = (promise, ObjectIdentifier(handle)) }
        let topic = handle.topic(message.topic)
        var headers: OpaquePointer?
        if !message.headers.isEmpty {
            headers = rd_kafka_headers_new(message.headers.count)
            for header in message.headers {
                header.value.withUnsafeBytes { value in
                    _ = rd_kafka_header_add(headers, header.name, -1, value.baseAddress, value.count)
                }
            }
        }
        let error = message.value.withUnsafeBytes { value in
            message.key.utf8CString.withUnsafeBufferPointer { key in
                nutrition_produce(
                    handle.client.pointer, topic, value.baseAddress, value.count,
                    key.baseAddress, key.count - 1,  // without the terminating NUL
                    headers, UnsafeMutableRawPointer(bitPattern: id))
            }
        }
        if error != RD_KAFKA_RESP_ERR_NO_ERROR {
            if let headers { rd_kafka_headers_destroy(headers) }
            pending.withLockedValue { _ = $0.removeValue(forKey: id) }
            promise.fulfil(.failure(error == RD_KAFKA_RESP_ERR__QUEUE_FULL ? .queueFull : KafkaError.from(error, operation: "produce")))
        }
        return promise
    }

    /// Serves the events that are ready (waiting up to the timeout for the first). Runs on the blocking pool.
    private func serveEvents(of handle: ProducerHandle, timeoutMilliseconds: Int32) {
        guard let event = rd_kafka_queue_poll(handle.mainQueue, timeoutMilliseconds) else { return }
        defer { rd_kafka_event_destroy(event) }
        switch rd_kafka_event_type(event) {
        case RD_KAFKA_EVENT_DR: completeDeliveries(event)
        case RD_KAFKA_EVENT_LOG: handle.client.forwardLog(event)
        case RD_KAFKA_EVENT_ERROR:
            let fatal = rd_kafka_event_error_is_fatal(event) != 0
            logger.log(
                level: fatal ? .critical : .warning, "Kafka producer error",
                metadata: ["reason": .string(String(cString: rd_kafka_event_error_string(event)))])
            if rd_kafka_event_error(event) == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN { renewOnceBrokersAnswer(lost: handle) }
        default: break
        }
    }

    /// After every broker was lost, replaces the instance as soon as one answers again. A broker may come back without
    /// its state (the local one loses it on a restart) and then no longer knows this producer's id: librdkafka answers
    /// its "Unknown Producer Id" by bumping the epoch, which such a broker refuses again, over and over until the
    /// delivery timeout (10 s, 432 bumps measured), and only that timeout led to a new instance. A broker that kept
    /// its state costs one new producer id; what the old instance still held fails and is sent again (`renew`).
    private func renewOnceBrokersAnswer(lost: ProducerHandle) {
        let alreadyWaiting = awaitingBrokers.withLockedValue { waiting in
            defer { waiting = true }
            return waiting
        }
        guard !alreadyWaiting else { return }
        Task {
            defer { awaitingBrokers.withLockedValue { $0 = false } }
            while !stopped.withLockedValue({ $0 }), self.handle === lost {
                if await lost.client.isBrokerReachable(timeout: .seconds(1)) {
                    do {
                        try await renew(reason: .brokerUnavailable)
                    } catch {
                        logger.error("Kafka producer could not be replaced", metadata: ["error": "\(error)"])
                    }
                    return
                }
                try? await Task.sleep(for: .milliseconds(250))
            }
        }
    }

    private func completeDeliveries(_ event: OpaquePointer) {
        var batch = [UnsafePointer<rd_kafka_message_t>?](repeating: nil, count: 256)
        while true {
            let count = rd_kafka_event_message_array(event, &batch, batch.count)
            if count == 0 { return }
            for message in batch[0..<count] {
                guard let message = message?.pointee else { continue }
                let id = UInt(bitPattern: message._private)
                guard let promise = pending.withLockedValue({ $0.removeValue(forKey: id)?.promise }) else { continue }
                if message.err == RD_KAFKA_RESP_ERR_NO_ERROR {
                    let topic = String(cString: rd_kafka_topic_name(message.rkt))
                    promise.fulfil(.success(DeliveryReport(topic: topic, partition: message.partition, offset: message.offset)))
                } else {
                    promise.fulfil(.failure(.deliveryFailed(code: message.err.rawValue, reason: String(cString: rd_kafka_err2str(message.err)))))
                }
            }
        }
    }
}
