import CRdKafka

/// What a publisher does after its producer failed to deliver a message: the decision table for every
/// producer error, so that no error leaves a relay retrying forever on a producer that can never deliver again.
///
/// | error | recovery |
/// |---|---|
/// | fenced or old epoch (`PRODUCER_FENCED`, `INVALID_PRODUCER_EPOCH`, `__FENCED`) | replace the producer |
/// | lost identity (`UNKNOWN_PRODUCER_ID`, `INVALID_PRODUCER_ID_MAPPING`) | replace the producer |
/// | broken sequence (`OUT_OF_ORDER_SEQUENCE_NUMBER`, `__GAPLESS_GUARANTEE`, `__INCONSISTENT`) | replace the producer |
/// | fatal error raised by librdkafka (`__FATAL`) | replace the producer |
/// | message timed out (`__MSG_TIMED_OUT`): librdkafka then bumps the epoch, which some brokers fence | replace the producer |
/// | unknown topic or partition (a broker restarted without its state) | create the topics |
/// | anything else (broker unreachable, queue full, purged by our own replacement, leader moving) | retry |
public enum ProducerRecovery: String, Sendable, Equatable, CaseIterable {
    /// Transient: the same producer retries once the broker answers.
    case retry
    /// The broker does not have the topic: create the topics still to be published, then retry.
    case createTopics
    /// This producer instance can never deliver again: replace it with a new one (a new producer id), create
    /// missing topics, then retry.
    case replaceProducer

    /// The recovery for `error`.
    public static func after(_ error: KafkaError) -> ProducerRecovery {
        switch error {
        case .deliveryFailed(let code, _), .operationFailed(_, let code, _): after(code: code)
        case .queueFull, .brokerUnreachable, .closed: .retry
        case .invalidConfiguration, .clientCreationFailed, .unsupportedLibrary: .retry
        }
    }

    /// The recovery for a librdkafka error code.
    public static func after(code: Int32) -> ProducerRecovery {
        switch FailureReason(code: code) {
        case .fenced, .unknownProducer, .sequenceBroken, .fatal, .timedOut: .replaceProducer
        case .unknownTopic: .createTopics
        case .brokerUnavailable, .purged, .other: .retry
        }
    }
}

/// A short, stable name for why a Kafka call failed, for metrics labels and logs.
public enum FailureReason: String, Sendable, Equatable, CaseIterable {
    case fenced = "fenced"
    case unknownProducer = "unknown_producer"
    case sequenceBroken = "sequence_broken"
    case fatal = "fatal"
    case timedOut = "timed_out"
    case unknownTopic = "unknown_topic"
    case brokerUnavailable = "broker_unavailable"
    case purged = "purged"
    case other = "other"

    /// Classifies a librdkafka error code.
    public init(code: Int32) {
        switch rd_kafka_resp_err_t(rawValue: code) {
        case RD_KAFKA_RESP_ERR_PRODUCER_FENCED, RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH, RD_KAFKA_RESP_ERR__FENCED:
            self = .fenced
        case RD_KAFKA_RESP_ERR_UNKNOWN_PRODUCER_ID, RD_KAFKA_RESP_ERR_INVALID_PRODUCER_ID_MAPPING:
            self = .unknownProducer
        case RD_KAFKA_RESP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER, RD_KAFKA_RESP_ERR__GAPLESS_GUARANTEE, RD_KAFKA_RESP_ERR__INCONSISTENT:
            self = .sequenceBroken
        case RD_KAFKA_RESP_ERR__FATAL:
            self = .fatal
        case RD_KAFKA_RESP_ERR__MSG_TIMED_OUT:
            self = .timedOut
        case RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC, RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART, RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION:
            self = .unknownTopic
        case RD_KAFKA_RESP_ERR__TRANSPORT, RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN, RD_KAFKA_RESP_ERR__RESOLVE,
            RD_KAFKA_RESP_ERR__TIMED_OUT, RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT,
            RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION, RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE,
            RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS, RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND:
            self = .brokerUnavailable
        case RD_KAFKA_RESP_ERR__PURGE_QUEUE, RD_KAFKA_RESP_ERR__PURGE_INFLIGHT:
            self = .purged
        default:
            self = .other
        }
    }

    /// The reason for one of our own errors.
    public init(_ error: KafkaError) {
        switch error {
        case .deliveryFailed(let code, _), .operationFailed(_, let code, _): self.init(code: code)
        case .brokerUnreachable: self = .brokerUnavailable
        case .queueFull, .closed, .invalidConfiguration, .clientCreationFailed, .unsupportedLibrary: self = .other
        }
    }
}
