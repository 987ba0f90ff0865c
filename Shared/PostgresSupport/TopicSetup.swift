import Kafka
import Logging
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
        var backoff = Duration.milliseconds(250)
        while !Task.isShuttingDownGracefully {
            do {
                try await producer.createTopics(topics, partitions: partitions)
                logger.info("topics ready", metadata: ["topics": .array(topics.map { .string($0) })])
                break
            } catch {
                logger.warning("topic creation will retry", metadata: ["error": .string(LogSafeError.describe(error))])
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(10))
            }
        }
        try? await gracefulShutdown()
    }
}
