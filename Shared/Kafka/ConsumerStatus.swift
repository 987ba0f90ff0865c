/// A consumer's view of its group membership and progress at one moment, for readiness and metrics.
public struct ConsumerStatus: Sendable, Equatable {
    /// One assigned partition and how far behind its end this consumer is.
    public struct Partition: Sendable, Equatable {
        public var topic: String
        public var partition: Int32
        /// Messages between the next one the application has yet to finish and the partition's end; nil
        /// while the broker has not told the end offset yet.
        public var lag: Int64?
        /// The offset after the last message the application finished (committed or not); nil before the first.
        public var processedOffset: Int64?

        public init(topic: String, partition: Int32, lag: Int64?, processedOffset: Int64?) {
            self.topic = topic
            self.partition = partition
            self.lag = lag
            self.processedOffset = processedOffset
        }
    }

    /// The partitions assigned to this member now (empty while joining or rebalancing).
    public var assigned: [Partition]
    /// Whether this consumer instance has ever had an assignment since it joined.
    public var everAssigned: Bool
    /// How many times the consumer replaced its librdkafka instance to rejoin the group.
    public var rejoins: Int

    public init(assigned: [Partition], everAssigned: Bool, rejoins: Int) {
        self.assigned = assigned
        self.everAssigned = everAssigned
        self.rejoins = rejoins
    }

    /// Total lag over the assigned partitions whose end offset is known.
    public var totalLag: Int64 { assigned.reduce(0) { $0 + max(0, $1.lag ?? 0) } }
}
