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

    public init(assigned: [Partition]) {
        self.assigned = assigned
    }
}
