/// The events of one topic a consumer group has parked at one moment (`parked_events`).
public struct ParkedBacklog: Sendable, Equatable {
    public var group: String
    public var topic: String
    public var parked: Int64

    public init(group: String, topic: String, parked: Int64) {
        self.group = group
        self.topic = topic
        self.parked = parked
    }
}
