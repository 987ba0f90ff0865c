/// The rows of one topic waiting in the outbox at one moment.
public struct OutboxBacklog: Sendable, Equatable {
    public var topic: String
    public var unsent: Int64
    /// How long the oldest unsent row has waited: since its creation, or, for a row to be published again after the
    /// broker lost its log, since it was requeued.
    public var oldestAge: Duration

    public init(topic: String, unsent: Int64, oldestAge: Duration) {
        self.topic = topic
        self.unsent = unsent
        self.oldestAge = oldestAge
    }
}
