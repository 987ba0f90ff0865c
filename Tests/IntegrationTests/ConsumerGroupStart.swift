import CRdKafka
import EventContracts
import Kafka
import Testing

/// Where a test's new consumer group begins reading. The broker lives for the whole test run, so a group of its own
/// that began at the earliest offset (as a service's first group does) would read, and apply to its emptied schema,
/// every event of every test before it: the suites late in the run spent most of their time on that history.
enum ConsumerGroupStart {
    /// Commits the current end of every partition of every contract topic for `group`, before any member of it
    /// runs, so its first member reads only the events published from now on.
    static func atEnd(group: String) throws {
        // librdkafka directly, not through a client of ours: prepared as `RdKafkaConfig.make` prepares every client.
        KafkaProcess.prepare()
        let conf = rd_kafka_conf_new()
        var errorText = [CChar](repeating: 0, count: 512)
        for (name, value) in [("bootstrap.servers", TestEnvironment.brokers), ("group.id", group), ("enable.auto.commit", "false")] {
            let result = rd_kafka_conf_set(conf, name, value, &errorText, errorText.count)
            try #require(result == RD_KAFKA_CONF_OK, "\(name): \(text(errorText))")
        }
        let client = try #require(rd_kafka_new(RD_KAFKA_CONSUMER, conf, &errorText, errorText.count), "\(text(errorText))")
        defer {
            rd_kafka_consumer_close(client)
            rd_kafka_destroy(client)
        }
        var metadata: UnsafePointer<rd_kafka_metadata>?
        let metadataError = rd_kafka_metadata(client, 1, nil, &metadata, 10_000)
        try #require(metadataError == RD_KAFKA_RESP_ERR_NO_ERROR, "metadata: \(String(cString: rd_kafka_err2str(metadataError)))")
        defer { if let metadata { rd_kafka_metadata_destroy(metadata) } }
        let wanted = Set(Topic.allCases.map(\.rawValue))
        let offsets = try #require(rd_kafka_topic_partition_list_new(0))
        defer { rd_kafka_topic_partition_list_destroy(offsets) }
        for topic in UnsafeBufferPointer(start: metadata?.pointee.topics, count: Int(metadata?.pointee.topic_cnt ?? 0)) {
            let name = String(cString: topic.topic)
            guard wanted.contains(name) else { continue }
            for partition in UnsafeBufferPointer(start: topic.partitions, count: Int(topic.partition_cnt)) {
                var low: Int64 = -1
                var high: Int64 = -1
                let error = rd_kafka_query_watermark_offsets(client, name, partition.id, &low, &high, 10_000)
                try #require(error == RD_KAFKA_RESP_ERR_NO_ERROR, "watermarks of \(name): \(String(cString: rd_kafka_err2str(error)))")
                rd_kafka_topic_partition_list_add(offsets, name, partition.id).pointee.offset = high
            }
        }
        // A topic not created yet needs nothing: the group's first read of it starts at its beginning, which is now.
        guard offsets.pointee.cnt > 0 else { return }
        let error = rd_kafka_commit(client, offsets, 0)
        try #require(error == RD_KAFKA_RESP_ERR_NO_ERROR, "commit for \(group): \(String(cString: rd_kafka_err2str(error)))")
    }

    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
