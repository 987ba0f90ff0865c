import Kafka

/// Where a message was read: its topic, partition and offset.
public struct MessagePosition: Sendable, Equatable {
    public var topic: String
    public var partition: Int32
    public var offset: Int64

    public init(topic: String, partition: Int32, offset: Int64) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
    }

    /// The position of `message`.
    public init(of message: KafkaMessage) {
        self.init(topic: message.topic, partition: message.partition, offset: message.offset)
    }
}
