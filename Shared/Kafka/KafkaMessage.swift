/// A message read from a topic, copied out of librdkafka's memory.
public struct KafkaMessage: Sendable, Equatable {
    public var topic: String
    public var partition: Int32
    public var offset: Int64
    public var key: [UInt8]?
    public var value: [UInt8]
    /// The message's headers in order (W3C `traceparent`, for one).
    public var headers: [KafkaHeader]

    public init(topic: String, partition: Int32, offset: Int64, key: [UInt8]?, value: [UInt8], headers: [KafkaHeader] = []) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.key = key
        self.value = value
        self.headers = headers
    }

    /// The value of the first header called `name`, as UTF-8 text.
    public func header(_ name: String) -> String? {
        headers.first { $0.name == name }.map { String(decoding: $0.value, as: UTF8.self) }
    }
}

/// A message to publish: topic, key (for per-key ordering), value bytes and headers.
public struct OutgoingMessage: Sendable, Equatable {
    public var topic: String
    public var key: String
    public var value: [UInt8]
    public var headers: [KafkaHeader]

    public init(topic: String, key: String, value: [UInt8], headers: [KafkaHeader] = []) {
        self.topic = topic
        self.key = key
        self.value = value
        self.headers = headers
    }
}

/// Where the broker stored a published message.
public struct DeliveryReport: Sendable, Equatable {
    public var topic: String
    public var partition: Int32
    public var offset: Int64
}
