/// The pull-based stream of a `KafkaConsumer`'s messages: nothing is read ahead beyond librdkafka's bounded prefetch.
public struct KafkaMessageSequence: AsyncSequence, Sendable {
    public typealias Element = KafkaMessage
    let consumer: KafkaConsumer

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(consumer: consumer) }

    /// Pulls one message per `next()`.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let consumer: KafkaConsumer

        public mutating func next() async throws -> KafkaMessage? {
            try await consumer.nextMessage()
        }
    }
}
