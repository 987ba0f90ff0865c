/// A message read from a topic, copied out of librdkafka's memory.
public struct KafkaMessage: Sendable, Equatable {
    public var topic: String
    public var partition: Int32
    public var offset: Int64
    public var key: [UInt8]?
    public var value: [UInt8]

    public init(topic: String, partition: Int32, offset: Int64, key: [UInt8]?, value: [UInt8]) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.key = key
        self.value = value
    }
}

/// A message to publish: topic, key (for per-key ordering) and value bytes.
public struct OutgoingMessage: Sendable, Equatable {
    public var topic: String
    public var key: String
    public var value: [UInt8]

    public init(topic: String, key: String, value: [UInt8]) {
        self.topic = topic
        self.key = key
        self.value = value
    }
}

/// Where the broker stored a published message.
public struct DeliveryReport: Sendable, Equatable {
    public var topic: String
    public var partition: Int32
    public var offset: Int64
}
