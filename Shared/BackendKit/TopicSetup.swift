import Kafka
import Logging
import PostgresSupport
import ServiceDefaults
import ServiceLifecycle

/// Creates the topics a service uses at start, retrying while the broker is unreachable, then idles until shutdown.
public struct TopicSetup: Service {
    let producer: KafkaProducer
    let topics: [String]
    let partitions: Int32
    let logger: Logger

    public init(producer: KafkaProducer, topics: [String], partitions: Int32, logger: Logger) {
        self.producer = producer
        self.topics = topics
        self.partitions = partitions
        self.logger = logger
    }

    public func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                try await Backoff.retrying(
                    Backoff(initial: .milliseconds(250), maximum: .seconds(10)),
                    onFailure: { error, wait in
                        self.logger.warning(
                            "topic creation will retry", metadata: ["error": .string(LogSafeError.describe(error)), "retry_in": "\(wait)"])
                    }
                ) { try await self.producer.createTopics(self.topics, partitions: self.partitions) }
                self.logger.info("topics ready", metadata: ["topics": .array(self.topics.map { .string($0) })])
            }
        } catch is CancellationError {}
        try? await gracefulShutdown()
    }
}
