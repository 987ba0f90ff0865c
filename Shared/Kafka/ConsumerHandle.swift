import CRdKafka
import Logging

/// One librdkafka consumer instance subscribed to the consumer's topics. `KafkaConsumer` replaces it when
/// it can never read again (a fatal error). Every call here blocks briefly and runs on `KafkaBlockingPool`.
final class ConsumerHandle: @unchecked Sendable {
    // @unchecked: the client and queue are librdkafka handles, which are thread-safe; nothing else is stored.
    let client: KafkaClientHandle
    private let logQueue: OpaquePointer

    /// A message, or an error that `ConsumerRecovery` decides about, from one poll.
    enum PollResult {
        case message(KafkaMessage)
        case error(code: Int32, reason: String)
    }

    init(properties: [String: String], topics: [String], logger: Logger) throws {
        self.client = try KafkaClientHandle(kind: RD_KAFKA_CONSUMER, properties: properties, events: RD_KAFKA_EVENT_LOG, logger: logger)
        self.logQueue = rd_kafka_queue_new(client.pointer)
        rd_kafka_set_log_queue(client.pointer, logQueue)
        rd_kafka_poll_set_consumer(client.pointer)

        let subscription = rd_kafka_topic_partition_list_new(Int32(topics.count))
        defer { rd_kafka_topic_partition_list_destroy(subscription) }
        for topic in topics { rd_kafka_topic_partition_list_add(subscription, topic, RD_KAFKA_PARTITION_UA) }
        let error = rd_kafka_subscribe(client.pointer, subscription)
        if error != RD_KAFKA_RESP_ERR_NO_ERROR { throw KafkaError.from(error, operation: "subscribe") }
    }

    deinit {
        rd_kafka_queue_destroy(logQueue)
    }

    /// One poll of the consumer queue, after forwarding librdkafka's pending log lines.
    func poll(timeoutMilliseconds: Int32) -> PollResult? {
        while let event = rd_kafka_queue_poll(logQueue, 0) {
            client.forwardLog(event)
            rd_kafka_event_destroy(event)
        }
        guard let raw = rd_kafka_consumer_poll(client.pointer, timeoutMilliseconds) else { return nil }
        defer { rd_kafka_message_destroy(raw) }
        let message = raw.pointee
        if message.err != RD_KAFKA_RESP_ERR_NO_ERROR {
            return .error(code: message.err.rawValue, reason: String(cString: rd_kafka_err2str(message.err)))
        }
        let value = message.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: message.len)) } ?? []
        let key = message.key.map { Array(UnsafeRawBufferPointer(start: $0, count: message.key_len)) }
        return .message(
            KafkaMessage(
                topic: String(cString: rd_kafka_topic_name(message.rkt)), partition: message.partition, offset: message.offset,
                key: key, value: value, headers: Self.headers(of: raw)))
    }

    /// Commits `offsets` (the next offset to read, per partition) without waiting for the coordinator's answer.
    func commit(_ offsets: [TopicPartition: Int64]) throws {
        // Only partitions this member still owns. Messages fetched before a lost session are still applied after it,
        // and a commit of theirs, sent with the generation the group has left, is refused with UNKNOWN_MEMBER_ID,
        // which librdkafka answers by rejoining once more: after a 20 s stall that was a second full rebalance
        // (6 s more on the local broker). Skipping it only means a re-read, which inboxes make harmless.
        guard rd_kafka_assignment_lost(client.pointer) == 0 else { return }
        let owned = ownedPartitions()
        let offsets = offsets.filter { owned.contains($0.key) }
        guard !offsets.isEmpty else { return }
        let list = rd_kafka_topic_partition_list_new(Int32(offsets.count))
        defer { rd_kafka_topic_partition_list_destroy(list) }
        for (key, offset) in offsets {
            rd_kafka_topic_partition_list_add(list, key.topic, key.partition).pointee.offset = offset
        }
        // Asynchronous: a synchronous commit waits for the coordinator, and while a restarted broker's group is
        // being rebuilt that wait lasted a minute and more, holding the inbox (no event applied, no log line) and
        // a blocking-pool thread (a SIGTERM then took 19 s). A commit lost that way only means a harmless re-read.
        let error = rd_kafka_commit(client.pointer, list, 1)
        if error != RD_KAFKA_RESP_ERR_NO_ERROR && error != RD_KAFKA_RESP_ERR__NO_OFFSET {
            throw KafkaError.from(error, operation: "commit")
        }
    }

    /// How long each of the pacing's questions to the broker (a partition's end, the committed offsets) may take, in
    /// milliseconds: they run under the pacing's lock on the consumer's poll thread, so a broker that is away must not
    /// hold them long (the local broker answers in about a millisecond; no answer counts as unread, so it fetches).
    static let brokerAnswerLimit: Int32 = 250

    /// Pauses fetching of every partition assigned now (`FetchPacing`), and returns them. Local calls only: a paused
    /// partition keeps its position, and the group its membership.
    func pauseAssigned() -> Set<TopicPartition> {
        var list: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?
        guard rd_kafka_assignment(client.pointer, &list) == RD_KAFKA_RESP_ERR_NO_ERROR, let list else { return [] }
        defer { rd_kafka_topic_partition_list_destroy(list) }
        guard list.pointee.cnt > 0 else { return [] }
        _ = rd_kafka_pause_partitions(client.pointer, list)
        return Self.partitions(in: list)
    }

    /// Resumes fetching of every partition assigned now and of `paused` (librdkafka keeps a partition paused across a
    /// rebalance, so one paused before it may be assigned again still paused).
    func resume(_ paused: Set<TopicPartition>) {
        let partitions = ownedPartitions().union(paused)
        guard let first = partitions.first, let list = Self.list(of: partitions) else { return }
        defer { rd_kafka_topic_partition_list_destroy(list) }
        _ = rd_kafka_resume_partitions(client.pointer, list)
        // librdkafka serves the resume on its main thread; the thread of the partitions' broker, which has nothing to
        // fetch, notices it only when its wait ends (up to a second: 740 ms measured). A request through that thread
        // wakes it at once: one partition's end offset, asked of its leader (a round trip of about a millisecond).
        var low: Int64 = 0
        var high: Int64 = 0
        _ = rd_kafka_query_watermark_offsets(client.pointer, first.topic, first.partition, &low, &high, Self.brokerAnswerLimit)
    }

    /// Whether any of `partitions` has messages after the consumer's position in it: their ends asked of their leaders
    /// (one ListOffsets request per leader for all of them, no fetch; it was two per partition, a low and a high
    /// watermark each, 42 requests every recheck for a consumer of 7 topics), the position the consumer's own, or the
    /// group's committed offset when it has read nothing there since its assignment. True when anything cannot be
    /// told (better a fetch too many).
    func hasUnread(_ partitions: Set<TopicPartition>) -> Bool {
        guard !partitions.isEmpty else { return false }
        guard let list = Self.list(of: partitions) else { return true }
        defer { rd_kafka_topic_partition_list_destroy(list) }
        guard rd_kafka_position(client.pointer, list) == RD_KAFKA_RESP_ERR_NO_ERROR else { return true }
        let count = Int(list.pointee.cnt)
        if (0..<count).contains(where: { list.pointee.elems[$0].offset < 0 }) {
            guard let committed = rd_kafka_topic_partition_list_copy(list) else { return true }
            defer { rd_kafka_topic_partition_list_destroy(committed) }
            guard rd_kafka_committed(client.pointer, committed, Self.brokerAnswerLimit) == RD_KAFKA_RESP_ERR_NO_ERROR else { return true }
            for index in 0..<count where list.pointee.elems[index].offset < 0 {
                list.pointee.elems[index].offset = committed.pointee.elems[index].offset
            }
        }
        guard let ends = listedOffsets(of: list, at: Int64(RD_KAFKA_OFFSET_END)) else { return true }
        defer { rd_kafka_topic_partition_list_destroy(ends) }
        // Nothing read and nothing committed: unread whenever the partition holds anything, so its start is needed too.
        var starts: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?
        if (0..<count).contains(where: { list.pointee.elems[$0].offset < 0 }) {
            guard let found = listedOffsets(of: list, at: Int64(RD_KAFKA_OFFSET_BEGINNING)) else { return true }
            starts = found
        }
        defer { starts.map { rd_kafka_topic_partition_list_destroy($0) } }
        for index in 0..<count {
            let read = max(list.pointee.elems[index].offset, starts?.pointee.elems[index].offset ?? 0)
            if ends.pointee.elems[index].offset > read { return true }
        }
        return false
    }

    /// A copy of `list` with each partition's offset at the logical position `logical` (`RD_KAFKA_OFFSET_END` or
    /// `RD_KAFKA_OFFSET_BEGINNING`) as its leader reports it now, in the same order: one ListOffsets request per
    /// leader (`rd_kafka_offsets_for_times`, which passes the logical positions on as Kafka's "latest" and "earliest"
    /// timestamps). Nil when any partition's could not be had; the caller owns the copy.
    private func listedOffsets(
        of list: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>, at logical: Int64
    ) -> UnsafeMutablePointer<rd_kafka_topic_partition_list_t>? {
        guard let copy = rd_kafka_topic_partition_list_copy(list) else { return nil }
        let count = Int(copy.pointee.cnt)
        for index in 0..<count { copy.pointee.elems[index].offset = logical }
        let answered = rd_kafka_offsets_for_times(client.pointer, copy, Self.brokerAnswerLimit) == RD_KAFKA_RESP_ERR_NO_ERROR
        guard answered, (0..<count).allSatisfy({ copy.pointee.elems[$0].err == RD_KAFKA_RESP_ERR_NO_ERROR && copy.pointee.elems[$0].offset >= 0 })
        else {
            rd_kafka_topic_partition_list_destroy(copy)
            return nil
        }
        return copy
    }

    /// A new librdkafka list of `partitions`, owned by the caller (nil when out of memory).
    private static func list(of partitions: Set<TopicPartition>) -> UnsafeMutablePointer<rd_kafka_topic_partition_list_t>? {
        guard let list = rd_kafka_topic_partition_list_new(Int32(partitions.count)) else { return nil }
        for partition in partitions { rd_kafka_topic_partition_list_add(list, partition.topic, partition.partition) }
        return list
    }

    /// The partitions a librdkafka list names.
    private static func partitions(in list: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>) -> Set<TopicPartition> {
        Set(
            (0..<Int(list.pointee.cnt)).map { index in
                let element = list.pointee.elems[index]
                return TopicPartition(topic: String(cString: element.topic), partition: element.partition)
            })
    }

    /// The partitions assigned now, and whether each has been read to its end as the broker last reported it. Local
    /// calls only.
    func readToEnd() -> (partitions: Set<TopicPartition>, atEnd: Bool) {
        let entries = assignment()
        let atEnd = entries.allSatisfy { entry in
            // Unknown when nothing was read from it since the assignment, or nothing heard of its end: nothing to
            // tell of a backlog (a rebalance is caught by the set of partitions instead).
            guard let position = entry.position, let end = entry.end else { return true }
            return position >= end
        }
        return (Set(entries.map(\.partition)), atEnd)
    }

    /// The partitions assigned to this member now. Local call only.
    private func ownedPartitions() -> Set<TopicPartition> {
        var list: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?
        guard rd_kafka_assignment(client.pointer, &list) == RD_KAFKA_RESP_ERR_NO_ERROR, let list else { return [] }
        defer { rd_kafka_topic_partition_list_destroy(list) }
        return Self.partitions(in: list)
    }

    /// The assigned partitions with their fetch position and the partition's end offset as last reported by
    /// the broker (both nil when unknown). Local calls only: no broker round trip.
    func assignment() -> [(partition: TopicPartition, position: Int64?, end: Int64?)] {
        var list: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?
        guard rd_kafka_assignment(client.pointer, &list) == RD_KAFKA_RESP_ERR_NO_ERROR, let list else { return [] }
        defer { rd_kafka_topic_partition_list_destroy(list) }
        rd_kafka_position(client.pointer, list)
        var result: [(partition: TopicPartition, position: Int64?, end: Int64?)] = []
        for index in 0..<Int(list.pointee.cnt) {
            let element = list.pointee.elems[index]
            let topic = String(cString: element.topic)
            var low: Int64 = -1
            var high: Int64 = -1
            let known = rd_kafka_get_watermark_offsets(client.pointer, topic, element.partition, &low, &high) == RD_KAFKA_RESP_ERR_NO_ERROR
            result.append(
                (
                    TopicPartition(topic: topic, partition: element.partition), element.offset >= 0 ? element.offset : nil,
                    known && high >= 0 ? high : nil
                ))
        }
        return result
    }

    /// Leaves the group cleanly so its partitions move to other members at once.
    func close() {
        rd_kafka_consumer_close(client.pointer)
    }

    /// The message's headers as name and value pairs, in order.
    private static func headers(of message: UnsafeMutablePointer<rd_kafka_message_t>) -> [KafkaHeader] {
        var headers: OpaquePointer?
        guard rd_kafka_message_headers(message, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR, let headers else { return [] }
        var result: [KafkaHeader] = []
        var index = 0
        var name: UnsafePointer<CChar>?
        var value: UnsafeRawPointer?
        var size = 0
        while rd_kafka_header_get_all(headers, index, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR {
            if let name {
                result.append(
                    KafkaHeader(name: String(cString: name), value: value.map { Array(UnsafeRawBufferPointer(start: $0, count: size)) } ?? []))
            }
            index += 1
        }
        return result
    }
}
