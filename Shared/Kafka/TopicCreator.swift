import CRdKafka

/// Creates topics through librdkafka's admin API, treating "already exists" as success.
enum TopicCreator {
    static func create(_ names: [String], partitions: Int32, on client: KafkaClientHandle, timeout: Duration) async throws {
        guard !names.isEmpty else { return }
        let milliseconds = Int32(timeout.milliseconds)
        try await KafkaBlockingPool.run {
            var errorBuffer = [CChar](repeating: 0, count: 512)
            var newTopics: [OpaquePointer?] = []
            defer { for topic in newTopics { rd_kafka_NewTopic_destroy(topic) } }
            for name in names {
                guard let topic = rd_kafka_NewTopic_new(name, partitions, -1, &errorBuffer, errorBuffer.count) else {
                    throw KafkaError.operationFailed(operation: "create topic \(name)", code: -1, reason: String(errorBuffer: errorBuffer))
                }
                newTopics.append(topic)
            }
            let queue = rd_kafka_queue_new(client.pointer)
            defer { rd_kafka_queue_destroy(queue) }
            let options = rd_kafka_AdminOptions_new(client.pointer, RD_KAFKA_ADMIN_OP_CREATETOPICS)
            defer { rd_kafka_AdminOptions_destroy(options) }
            rd_kafka_AdminOptions_set_request_timeout(options, milliseconds, &errorBuffer, errorBuffer.count)
            rd_kafka_CreateTopics(client.pointer, &newTopics, newTopics.count, options, queue)
            guard let event = rd_kafka_queue_poll(queue, milliseconds + 1000) else {
                throw KafkaError.brokerUnreachable("no answer to CreateTopics within \(timeout)")
            }
            defer { rd_kafka_event_destroy(event) }
            let eventError = rd_kafka_event_error(event)
            if eventError != RD_KAFKA_RESP_ERR_NO_ERROR {
                throw KafkaError.from(eventError, operation: "create topics")
            }
            var count = 0
            let result = rd_kafka_event_CreateTopics_result(event)
            guard let results = rd_kafka_CreateTopics_result_topics(result, &count) else { return }
            for index in 0..<count {
                let error = rd_kafka_topic_result_error(results[index])
                if error != RD_KAFKA_RESP_ERR_NO_ERROR && error != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS {
                    let name = String(cString: rd_kafka_topic_result_name(results[index]))
                    throw KafkaError.from(error, operation: "create topic \(name)")
                }
            }
        }
    }
}
