import CRdKafka
import Logging
import Metrics
import NIOConcurrencyHelpers

/// A consumer-group member that reads `topics` as a pull-based `AsyncSequence` and commits offsets only
/// when told to, after the caller's effect has committed.
///
/// Reading is bounded: one message is pulled per `next()`, and librdkafka's prefetch buffer is capped by
/// `maxPrefetchBytes`. Every blocking call runs on `KafkaBlockingPool`. It heals itself: an error after which
/// the librdkafka instance can never read again (`ConsumerRecovery.rejoin`) replaces the instance, which joins
/// the group afresh; lost membership is left to librdkafka, which rejoins by itself.
public final class KafkaConsumer: @unchecked Sendable {
    // @unchecked: the handle is replaced under its lock; librdkafka handles are thread-safe; all else is immutable or locked.
    private let current: NIOLockedValueBox<ConsumerHandle>
    private let properties: [String: String]
    /// How long `close()` waits for the group to be left (`KafkaConfiguration.consumerCloseWait`).
    private let closeWait: Duration
    private let isClosed = NIOLockedValueBox(false)
    /// The offset after the last message the application finished, per partition, for `status()`.
    private let processed = NIOLockedValueBox<[TopicPartition: Int64]>([:])
    private let logger: Logger
    /// Partitions of the subscribed topics this consumer creates when the broker lacks them; nil: it does not.
    private let missingTopicPartitions: Int32?
    /// When this consumer last created its topics, so a burst of unknown-topic errors creates them once.
    private let lastTopicCreation = NIOLockedValueBox<ContinuousClock.Instant?>(nil)
    /// When the partitions are paused for idleness and fetched again (`FetchPacing`); its lock also orders the
    /// pauses and resumes it decides.
    private let pacing: NIOLockedValueBox<FetchPacing>
    /// The consumer group this member belongs to.
    public let groupId: String
    /// The topics this consumer subscribed to.
    public let topics: [String]

    /// Joins `groupId` and subscribes to `topics`; a group's first read starts at the earliest offset.
    /// - Parameter createMissingTopics: the partition count with which to create subscribed topics the broker does
    ///   not have (`ConsumerRecovery.createTopics`), or nil to wait for someone else to create them.
    public init(
        configuration: KafkaConfiguration,
        groupId: String,
        topics: [String],
        logger: Logger,
        maxPrefetchBytes: Int = 16 * 1024 * 1024,
        createMissingTopics partitions: Int32? = nil
    ) throws {
        self.missingTopicPartitions = partitions
        var properties = RdKafkaConfig.common(configuration)
        properties["group.id"] = groupId
        properties["enable.auto.commit"] = "false"
        properties["enable.auto.offset.store"] = "false"
        properties["auto.offset.reset"] = "earliest"
        properties["session.timeout.ms"] = String(configuration.sessionTimeout.milliseconds)
        // Frequent heartbeats: they are how a member learns of a rebalance (another replica joining), so they
        // bound how long a rebalance waits; the session timeout alone decides when a silent member is dropped.
        properties["heartbeat.interval.ms"] = String(max(100, min(1000, configuration.sessionTimeout.milliseconds / 3)))
        if let instance = configuration.groupInstanceId { properties["group.instance.id"] = "\(groupId)-\(instance)" }
        properties["fetch.wait.max.ms"] = String(configuration.fetchMaxWait.milliseconds)
        properties["queued.max.messages.kbytes"] = String(max(1, maxPrefetchBytes / 1024))
        properties.merge(configuration.extraProperties) { _, extra in extra }
        self.properties = properties
        self.closeWait = configuration.consumerCloseWait
        self.pacing = NIOLockedValueBox(
            FetchPacing(idleAfter: configuration.consumerIdlePause, recheck: configuration.consumerIdleRecheck, now: .now))
        self.current = NIOLockedValueBox(try ConsumerHandle(properties: properties, topics: topics, logger: logger))
        self.logger = logger
        self.groupId = groupId
        self.topics = topics
    }

    private var handle: ConsumerHandle { current.withLockedValue { $0 } }

    /// The messages of the subscribed topics, in order per partition. Ends when the task is cancelled or the consumer closed.
    public var messages: KafkaMessageSequence { KafkaMessageSequence(consumer: self) }

    /// Commits the position after `message`, so a restarted member resumes behind it. Call after the effect committed.
    public func commit(_ message: KafkaMessage) async throws {
        try await commit([message])
    }

    /// Records `messages` as finished and commits the position after the last of them in each partition, in one
    /// request that is not waited for (a lost commit only means a re-read, which inboxes make harmless).
    public func commit(_ messages: [KafkaMessage]) async throws {
        var next: [TopicPartition: Int64] = [:]
        for message in messages {
            let key = TopicPartition(topic: message.topic, partition: message.partition)
            next[key] = max(next[key] ?? 0, message.offset + 1)
        }
        guard !next.isEmpty else { return }
        processed.withLockedValue { $0.merge(next) { _, latest in latest } }
        let handle = self.handle
        try await KafkaBlockingPool.run { [next] in try handle.commit(next) }
    }

    /// Waits for the next message, then adds up to `limit - 1` more that are already fetched, without waiting
    /// for them. Empty when the task is cancelled or the consumer closed.
    public func nextBatch(limit: Int) async throws -> [KafkaMessage] {
        guard let first = try await nextMessage() else { return [] }
        guard limit > 1 else { return [first] }
        let handle = self.handle
        return try await KafkaBlockingPool.run {
            var batch = [first]
            while batch.count < limit, case .message(let message) = handle.poll(timeoutMilliseconds: 0) { batch.append(message) }
            return batch
        }
    }

    /// The assignment and each partition's lag behind what the application finished. Local calls only.
    public func status() async -> ConsumerStatus {
        let handle = self.handle
        let assignment = (try? await KafkaBlockingPool.run { handle.assignment() }) ?? []
        return processed.withLockedValue { finished in
            let partitions = assignment.map { entry in
                let processed = finished[entry.partition]
                // A broker that lost its log starts again below what was processed before: count from its new end.
                let from = processed.flatMap { done in entry.end.map { min(done, $0) } } ?? entry.position
                let lag = entry.end.flatMap { end in from.map { max(0, end - $0) } }
                return ConsumerStatus.Partition(
                    topic: entry.partition.topic, partition: entry.partition.partition, lag: lag, processedOffset: processed)
            }
            return ConsumerStatus(assigned: partitions)
        }
    }

    /// Longest a rejoin waits for the failed instance's close.
    static let closeLimit = Duration.seconds(3)

    /// Leaves the group cleanly so partitions move to other members at once. Idempotent. Waits at most `closeWait`
    /// (`KafkaConfiguration.consumerCloseWait`), and not at all once cancelled: librdkafka's close waits for the
    /// group coordinator, which after a broker restart or stall may not answer for long, and a stopping process must
    /// still end within its drain. A close that takes longer goes on in the background; should it never finish, the
    /// broker drops the member at its session timeout.
    public func close() async {
        let wasClosed = isClosed.withLockedValue { closed in
            defer { closed = true }
            return closed
        }
        if wasClosed { return }
        let handle = self.handle
        let closed = await BoundedWait.finishes(within: closeWait) { _ = try? await KafkaBlockingPool.run { handle.close() } }
        if !closed, closeWait > .zero {
            logger.warning(
                "Kafka consumer did not leave its group in time; the broker drops it at its session timeout",
                metadata: ["group": .string(groupId), "waited": "\(closeWait)"])
        }
    }

    /// Whether this consumer pauses its partitions while idle (`KafkaConfiguration.consumerIdlePause`).
    public var pausesWhenIdle: Bool { pacing.withLockedValue { $0.isEnabled } }

    /// Whether its partitions are paused for idleness now.
    public var isPausedForIdleness: Bool { pacing.withLockedValue { $0.isPaused } }

    /// What the paused consumer's recheck would find now in its paused partitions (all assigned ones when none are
    /// paused): whether any has messages after its position. Asks the broker.
    @_spi(Testing) public func hasUnreadForTesting() async -> Bool {
        let handle = self.handle
        let paused = pacing.withLockedValue { $0.pausedPartitions }
        return (try? await KafkaBlockingPool.run { handle.hasUnread(paused.isEmpty ? handle.readToEnd().partitions : paused) }) ?? true
    }

    /// Told that one of its topics has new messages (`PublishNotices`): an idle consumer fetches again at once.
    public func wake() async {
        guard pausesWhenIdle else { return }
        let handle = self.handle
        _ = try? await KafkaBlockingPool.run { [pacing] in
            pacing.withLockedValue { state in
                let action = state.woken(at: .now)
                self.apply(action, on: handle, pacing: &state)
            }
        }
    }

    /// Pulls the next message, polling in slices of at most half a second so that cancellation is noticed promptly
    /// (shorter while `FetchPacing` has a decision due); after each poll the partitions are paused or resumed as it
    /// decides, on the same thread. A message ends a slice at once.
    func nextMessage() async throws -> KafkaMessage? {
        while !Task.isCancelled && !isClosed.withLockedValue({ $0 }) {
            let handle = self.handle
            let polled = try await KafkaBlockingPool.run { [pacing] () -> ConsumerHandle.PollResult? in
                let slice = pacing.withLockedValue { $0.untilNextDecision(at: .now, floor: .milliseconds(20), ceiling: .milliseconds(500)) }
                let result = handle.poll(timeoutMilliseconds: Int32(slice.milliseconds))
                pacing.withLockedValue { state in
                    switch result {
                    case .message?:
                        let action = state.received(at: .now)
                        self.apply(action, on: handle, pacing: &state)
                    case nil where state.isEnabled:
                        let (assigned, readToEnd) = handle.readToEnd()
                        let action = state.idle(at: .now, assigned: assigned, readToEnd: readToEnd)
                        self.apply(action, on: handle, pacing: &state)
                    case nil: break
                    case .error?: break
                    }
                }
                return result
            }
            switch polled {
            case .message(let message)?:
                return message
            case .error(let code, let reason)?:
                switch ConsumerRecovery.after(code: code) {
                case .keepReading:
                    // Transient by nature (a topic not created yet, a broker restarting): librdkafka retries.
                    logger.debug("Kafka consumer notice", metadata: ["reason": .string(reason)])
                case .rejoin:
                    try await rejoin(after: handle, reason: reason)
                case .createTopics:
                    await createSubscribedTopics(on: handle, reason: reason)
                }
            case nil:
                continue
            }
        }
        return nil
    }

    /// Does what `FetchPacing` decided. Called under `pacing`'s lock, which orders the pauses and resumes.
    private func apply(_ action: FetchPacing.Action, on handle: ConsumerHandle, pacing state: inout FetchPacing) {
        switch action {
        case .none: return
        case .pause: state.paused(handle.pauseAssigned())
        case .resume: handle.resume(state.pausedPartitions)
        case .checkForUnread:
            let found = state.checked(unread: handle.hasUnread(state.pausedPartitions), at: .now)
            apply(found, on: handle, pacing: &state)
        }
    }

    /// Creates every subscribed topic the broker lacks (existing ones are left alone), at most once a second.
    private func createSubscribedTopics(on handle: ConsumerHandle, reason: String) async {
        guard let partitions = missingTopicPartitions else {
            logger.debug("Kafka consumer notice", metadata: ["reason": .string(reason)])
            return
        }
        let now = ContinuousClock.now
        let due = lastTopicCreation.withLockedValue { last in
            guard last.map({ now - $0 >= .seconds(1) }) ?? true else { return false }
            last = now
            return true
        }
        guard due else { return }
        do {
            try await TopicCreator.create(topics, partitions: partitions, on: handle.client, timeout: .seconds(5))
            logger.notice("subscribed topics missing on the broker; created them", metadata: ["topics": "\(topics)"])
        } catch {
            logger.warning("subscribed topics missing on the broker and not created yet", metadata: ["error": "\(error)"])
        }
    }

    /// Replaces a librdkafka instance that can never read again with a new member of the same group.
    private func rejoin(after failed: ConsumerHandle, reason: String) async throws {
        logger.warning("Kafka consumer instance failed; rejoining the group with a new one", metadata: ["reason": .string(reason)])
        let fresh = try ConsumerHandle(properties: properties, topics: topics, logger: logger)
        current.withLockedValue { $0 = fresh }
        // The new instance fetches from its start; the pacing catches up with it.
        pacing.withLockedValue { _ = $0.woken(at: .now) }
        processed.withLockedValue { $0 = [:] }
        Counter(label: "kafka_consumer_rejoins_total", dimensions: [("group", groupId)]).increment()
        _ = await BoundedWait.finishes(within: Self.closeLimit) { _ = try? await KafkaBlockingPool.run { failed.close() } }
    }
}
