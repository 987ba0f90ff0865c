import CRdKafka

/// What can go wrong talking to Kafka, with librdkafka's own reason where there is one.
public enum KafkaError: Error, Equatable, CustomStringConvertible {
    /// A property was rejected by librdkafka.
    case invalidConfiguration(key: String, reason: String)
    /// The client handle could not be created.
    case clientCreationFailed(String)
    /// The installed librdkafka is older than the oldest version that talks to current brokers.
    case unsupportedLibrary(found: String, required: String)
    /// The producer's bounded buffer is full: the caller should back off.
    case queueFull
    /// The broker did not take the message (or did not answer in time).
    case deliveryFailed(code: Int32, reason: String)
    /// The broker could not be reached within the timeout.
    case brokerUnreachable(String)
    /// A call was made after `close()` or shutdown.
    case closed
    /// Any other librdkafka error.
    case operationFailed(operation: String, code: Int32, reason: String)

    public var description: String {
        switch self {
        case .invalidConfiguration(let key, let reason): "invalid Kafka property \(key): \(reason)"
        case .clientCreationFailed(let reason): "could not create the Kafka client: \(reason)"
        case .unsupportedLibrary(let found, let required):
            "librdkafka \(found) is too old (need \(required) or newer); run deploy/setup.sh to build a current one"
        case .queueFull: "the Kafka producer's buffer is full"
        case .deliveryFailed(_, let reason): "Kafka delivery failed: \(reason)"
        case .brokerUnreachable(let reason): "Kafka broker unreachable: \(reason)"
        case .closed: "the Kafka client is closed"
        case .operationFailed(let operation, _, let reason): "Kafka \(operation) failed: \(reason)"
        }
    }

    /// Builds an error from a librdkafka response code.
    static func from(_ code: rd_kafka_resp_err_t, operation: String) -> KafkaError {
        .operationFailed(operation: operation, code: code.rawValue, reason: String(cString: rd_kafka_err2str(code)))
    }
}
