import CRdKafka
import Kafka
import Testing

/// The decision tables of `ProducerRecovery` and `ConsumerRecovery`: which error leads to which recovery.
@Suite("What a producer or consumer does after each Kafka error")
struct RecoveryDecisionTests {
    /// Every producer error that leaves the producer instance unable to deliver again, with its metrics reason.
    static let producerInstanceDead: [(rd_kafka_resp_err_t, FailureReason)] = [
        (RD_KAFKA_RESP_ERR_PRODUCER_FENCED, .fenced),
        (RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH, .fenced),
        (RD_KAFKA_RESP_ERR__FENCED, .fenced),
        (RD_KAFKA_RESP_ERR_UNKNOWN_PRODUCER_ID, .unknownProducer),
        (RD_KAFKA_RESP_ERR_INVALID_PRODUCER_ID_MAPPING, .unknownProducer),
        (RD_KAFKA_RESP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER, .sequenceBroken),
        (RD_KAFKA_RESP_ERR__GAPLESS_GUARANTEE, .sequenceBroken),
        (RD_KAFKA_RESP_ERR__INCONSISTENT, .sequenceBroken),
        (RD_KAFKA_RESP_ERR__FATAL, .fatal),
        (RD_KAFKA_RESP_ERR__MSG_TIMED_OUT, .timedOut),
    ]

    /// Errors the same producer instance recovers from once the broker answers.
    static let producerTransient: [(rd_kafka_resp_err_t, FailureReason)] = [
        (RD_KAFKA_RESP_ERR__TRANSPORT, .brokerUnavailable),
        (RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN, .brokerUnavailable),
        (RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION, .brokerUnavailable),
        (RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT, .brokerUnavailable),
        (RD_KAFKA_RESP_ERR__PURGE_QUEUE, .purged),
        (RD_KAFKA_RESP_ERR__PURGE_INFLIGHT, .purged),
        (RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE, .other),
    ]

    @Test("fencing, lost producer ids, broken sequences, fatal errors and timed-out messages replace the producer")
    func deadProducerIsReplaced() {
        for (code, reason) in Self.producerInstanceDead {
            #expect(ProducerRecovery.after(code: Int32(code.rawValue)) == .replaceProducer, "code \(code.rawValue)")
            #expect(FailureReason(code: Int32(code.rawValue)) == reason, "code \(code.rawValue)")
            let asDeliveryFailure = KafkaError.deliveryFailed(code: Int32(code.rawValue), reason: "x")
            #expect(ProducerRecovery.after(asDeliveryFailure) == .replaceProducer, "code \(code.rawValue)")
        }
    }

    @Test("a topic the broker does not know is created, not retried blindly")
    func unknownTopicIsCreated() {
        for code in [RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC, RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART, RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION] {
            #expect(ProducerRecovery.after(code: Int32(code.rawValue)) == .createTopics, "code \(code.rawValue)")
            #expect(FailureReason(code: Int32(code.rawValue)) == .unknownTopic)
        }
    }

    @Test("an unreachable broker, a moving leader or our own purge is retried on the same producer")
    func transientErrorsAreRetried() {
        for (code, reason) in Self.producerTransient {
            #expect(ProducerRecovery.after(code: Int32(code.rawValue)) == .retry, "code \(code.rawValue)")
            #expect(FailureReason(code: Int32(code.rawValue)) == reason, "code \(code.rawValue)")
        }
        #expect(ProducerRecovery.after(.brokerUnreachable("down")) == .retry)
        #expect(ProducerRecovery.after(.queueFull) == .retry)
        #expect(FailureReason(KafkaError.brokerUnreachable("down")) == .brokerUnavailable)
        #expect(FailureReason(KafkaError.queueFull) == .other)
    }

    @Test("every failure reason has a distinct metrics label")
    func reasonLabelsAreDistinct() {
        let labels = FailureReason.allCases.map(\.rawValue)
        #expect(Set(labels).count == labels.count)
        #expect(labels.allSatisfy { $0.allSatisfy { $0.isLowercase || $0 == "_" } })
    }

    @Test("a fatal error or a fenced static member makes the consumer rejoin with a new instance")
    func deadConsumerRejoins() {
        #expect(ConsumerRecovery.after(code: Int32(RD_KAFKA_RESP_ERR__FATAL.rawValue)) == .rejoin)
        #expect(ConsumerRecovery.after(code: Int32(RD_KAFKA_RESP_ERR_FENCED_INSTANCE_ID.rawValue)) == .rejoin)
    }

    @Test("a subscribed topic the broker lacks (it restarted without its state) is created by the consumer")
    func missingTopicIsCreated() {
        #expect(ConsumerRecovery.after(code: Int32(RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART.rawValue)) == .createTopics)
        #expect(ConsumerRecovery.after(code: Int32(RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC.rawValue)) == .createTopics)
    }

    @Test("lost membership or an unreachable broker is left to librdkafka, which rejoins and reconnects by itself")
    func transientConsumerErrorsKeepReading() {
        for code in [
            RD_KAFKA_RESP_ERR_UNKNOWN_MEMBER_ID, RD_KAFKA_RESP_ERR_ILLEGAL_GENERATION, RD_KAFKA_RESP_ERR__MAX_POLL_EXCEEDED,
            RD_KAFKA_RESP_ERR__TRANSPORT, RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN,
            RD_KAFKA_RESP_ERR__PARTITION_EOF, RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS,
        ] {
            #expect(ConsumerRecovery.after(code: Int32(code.rawValue)) == .keepReading, "code \(code.rawValue)")
        }
    }
}
