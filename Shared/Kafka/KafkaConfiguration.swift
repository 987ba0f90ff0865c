/// Connection and tuning settings shared by `KafkaProducer` and `KafkaConsumer`.
public struct KafkaConfiguration: Sendable {
    /// Comma-separated `host:port` list of brokers to bootstrap from.
    public var bootstrapServers: String
    /// Client id reported to the broker; the service name by default.
    public var clientId: String
    /// How long a produced message may wait for the broker before its delivery fails.
    public var deliveryTimeout: Duration
    /// How often clients refresh topic metadata, so topics recreated after a broker restart are seen quickly.
    public var metadataRefreshInterval: Duration
    /// Upper bound on messages buffered inside the producer; `send` fails with `queueFull` beyond it.
    public var maxBufferedMessages: Int
    /// How long a consumer's fetch may wait at the broker for new messages (librdkafka's default is 500 ms). The local
    /// broker looks for new data only at a few points of the wait, so a long wait costs latency there (500 ms: p50 79
    /// instead of 48 ms), while each fetch costs it about half a millisecond of CPU: 100 ms measured as free in
    /// latency against 20 ms (write to read model p50 20.9 / p99 33.8 ms against 21.3 / 54.3 ms) and cut the stack's
    /// CPU per request at 50 users from 6.47 to 5.47 ms (docs/PERFORMANCE.md, "The stack at rest").
    public var fetchMaxWait: Duration
    /// How long a producer waits for more messages before it sends a batch (librdkafka's `linger.ms`): longer
    /// gives fewer, larger produce requests under load at the cost of that much latency per message.
    public var producerLinger: Duration
    /// How long a consumer group waits for a silent member before it moves the member's partitions to others,
    /// and how long a consumer cut off from the broker keeps its partitions before it rejoins from scratch.
    /// A trade-off measured on the local broker (docs/PERFORMANCE.md, "Consumer session" and "Consumers across
    /// replicas"): 30 s rode out a 20 s broker stall without a rebalance, but made every rebalance there slower (about
    /// half the session per JoinGroup), so restarts took 18-21 s instead of 6.5 s; a SIGKILLed replica's partitions
    /// moved to another in 9.6 s with 6 s, 6.0 s with 4 s (the services' default) and 4.3 s with 3 s.
    public var sessionTimeout: Duration
    /// This process's stable identity in its consumer groups (static membership), or nil for dynamic membership.
    /// Must differ between processes of the same group that run at the same time, and stay the same across
    /// restarts of one of them.
    public var groupInstanceId: String?
    /// How long a stopping consumer waits for librdkafka to leave its group (about a second on the local broker
    /// once partitions are assigned) before it stops and lets the leave go on in the background; zero does not wait.
    /// Leaving moves the partitions to other members at once; a member that did not leave is dropped at its session
    /// timeout. The tests, whose consumer groups are never used again, do not wait.
    public var consumerCloseWait: Duration
    /// How long a consumer that reads nothing keeps fetching before it pauses its partitions until a relay says it
    /// published to one of its topics (`FetchPacing`); zero never pauses. For the local broker, which answers a fetch
    /// only at the end of its wait, so every idle fetch costs it work; a Kafka cluster answers a long fetch as soon
    /// as data arrives, and is better served by a zero here and `fetchMaxWait` at librdkafka's 500 ms.
    public var consumerIdlePause: Duration
    /// How often a paused consumer fetches anyway, in case a wake-up was missed (a notification lost with its
    /// database connection, a producer that is not ours): the longest an event can wait for an idle consumer then.
    public var consumerIdleRecheck: Duration
    /// Raw librdkafka properties applied last (for SASL, TLS and the like in production).
    public var extraProperties: [String: String]

    /// Creates settings with the documented local defaults.
    public init(
        bootstrapServers: String = "127.0.0.1:19092",
        clientId: String = "nutritionai",
        deliveryTimeout: Duration = .seconds(10),
        metadataRefreshInterval: Duration = .seconds(3),
        maxBufferedMessages: Int = 100_000,
        fetchMaxWait: Duration = .milliseconds(100),
        producerLinger: Duration = .milliseconds(2),
        sessionTimeout: Duration = .seconds(6),
        groupInstanceId: String? = nil,
        consumerCloseWait: Duration = .seconds(3),
        consumerIdlePause: Duration = .zero,
        consumerIdleRecheck: Duration = .seconds(5),
        extraProperties: [String: String] = [:]
    ) {
        self.bootstrapServers = bootstrapServers
        self.clientId = clientId
        self.deliveryTimeout = deliveryTimeout
        self.metadataRefreshInterval = metadataRefreshInterval
        self.maxBufferedMessages = maxBufferedMessages
        self.fetchMaxWait = fetchMaxWait
        self.producerLinger = producerLinger
        self.sessionTimeout = sessionTimeout
        self.groupInstanceId = groupInstanceId
        self.consumerCloseWait = consumerCloseWait
        self.consumerIdlePause = consumerIdlePause
        self.consumerIdleRecheck = consumerIdleRecheck
        self.extraProperties = extraProperties
    }
}

extension Duration {
    /// Whole milliseconds, for librdkafka properties and timeouts.
    var milliseconds: Int {
        let (seconds, attoseconds) = self.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}
