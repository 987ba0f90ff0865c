import Kafka
import Logging
import PostgresNIO
import PostgresSupport

/// How an idle consumer hears of new events without fetching (`FetchPacing`): every outbox relay, in the
/// transaction that marks rows published, notifies one database-wide channel with the topics it published to, and
/// every inbox listens there and wakes its consumer for its own topics. The services share the database server, not
/// their schemas; the channel carries topic names only. Where they do not share it (or a notice is lost), a paused
/// consumer still asks the broker for unread messages every `KafkaConfiguration.consumerIdleRecheck`.
public enum PublishNotices {
    /// The channel, the same for every service.
    public static let channel = "nutritionai_events_published"

    /// Notifies the channel, delivered when the transaction of `connection` commits, that `topics` have new messages.
    static func notify(_ topics: Set<String>, on connection: PostgresConnection, logger: Logger) async throws {
        guard !topics.isEmpty else { return }
        let payload = topics.sorted().joined(separator: ",")
        try await connection.query("SELECT pg_notify(\(channel), \(payload))", logger: logger)
    }

    /// The topics a notice names.
    static func topics(in payload: String) -> Set<String> {
        Set(payload.split(separator: ",").map(String.init))
    }
}

/// Listens on `PublishNotices.channel` (`PostgresPool.listen`) and wakes `consumer` for every notice naming one of
/// its topics, and once on each (re)connection for what it may have missed.
struct PublishNoticeListener: Sendable {
    let client: PostgresPool
    let consumer: KafkaConsumer
    let lostConnectionGrace: Duration
    let logger: Logger

    func run() async {
        let topics = Set(consumer.topics)
        await client.listen(to: PublishNotices.channel, lostConnectionGrace: lostConnectionGrace, logger: logger) { [consumer] payload in
            // nil: a (re)connection, after which anything may have been missed.
            let concernsIt = payload.map { !PublishNotices.topics(in: $0).isDisjoint(with: topics) } ?? true
            if concernsIt { await consumer.wake() }
        }
    }
}
