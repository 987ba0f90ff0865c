/// One Kafka message header: a name and opaque bytes.
public struct KafkaHeader: Sendable, Equatable {
    public var name: String
    public var value: [UInt8]

    public init(name: String, value: [UInt8]) {
        self.name = name
        self.value = value
    }

    /// A header whose value is UTF-8 text.
    public init(name: String, text: String) {
        self.init(name: name, value: Array(text.utf8))
    }
}
