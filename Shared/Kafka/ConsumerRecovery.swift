import CRdKafka

/// What a consumer does after `rd_kafka_consumer_poll` reported an error instead of a message: the decision
/// table for consumer errors.
///
/// | error | recovery |
/// |---|---|
/// | fatal error raised by librdkafka (`__FATAL`) | rejoin with a new consumer instance |
/// | static member fenced by another with the same instance id (`FENCED_INSTANCE_ID`) | rejoin with a new consumer instance |
/// | a subscribed topic the broker does not have (`UNKNOWN_TOPIC_OR_PART`, `__UNKNOWN_TOPIC`) | create the subscribed topics |
/// | lost membership (`UNKNOWN_MEMBER_ID`, `ILLEGAL_GENERATION`, `__MAX_POLL_EXCEEDED`): librdkafka rejoins itself | keep reading |
/// | anything else (topic not created yet, broker unreachable, end of partition, rebalancing) | keep reading |
///
/// A subscribed topic goes missing when a broker restarted without its state.
public enum ConsumerRecovery: String, Sendable, Equatable, CaseIterable {
    /// librdkafka recovers by itself (it rejoins the group, refetches metadata, reconnects): poll again.
    case keepReading
    /// This consumer instance can never read again: close it and join the group with a new one.
    case rejoin
    /// Create the subscribed topics the broker lacks, all at once: otherwise the group joins with the topics that
    /// exist and rebalances again each time a producer recreates another one (seconds per rebalance).
    case createTopics

    /// The recovery for a librdkafka error code.
    public static func after(code: Int32) -> ConsumerRecovery {
        switch rd_kafka_resp_err_t(rawValue: code) {
        case RD_KAFKA_RESP_ERR__FATAL, RD_KAFKA_RESP_ERR_FENCED_INSTANCE_ID: .rejoin
        case RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART, RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC: .createTopics
        default: .keepReading
        }
    }
}
