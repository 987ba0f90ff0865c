import Kafka
import Logging
import PostgresNIO
import PostgresSupport
import ServiceDefaults

/// How an idle consumer hears of new events without fetching (`FetchPacing`): every outbox relay, in the
/// transaction that marks rows published, notifies one database-wide channel with the topics it published to, and
/// every inbox listens there and wakes its consumer for its own topics. The services share the database server, not
/// their schemas; the channel carries topic names only. Where they do not share it (or a notice is lost), a paused
/// consumer still fetches every `KafkaConfiguration.consumerIdleRecheck`.
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

/// Holds one connection listening on `PublishNotices.channel` and wakes `consumer` for every notice naming one of its
/// topics, and once on each (re)connection for what it may have missed; reconnects on failure, abandoning a listen
/// on a connection lost under it (`PostgresPool.abandoningIfStuck`), as the relay's own listener does.
struct PublishNoticeListener: Sendable {
    let client: PostgresPool
    let consumer: KafkaConsumer
    let lostConnectionGrace: Duration
    let logger: Logger

    func run() async {
        let topics = Set(consumer.topics)
        while !Task.isCancelled {
            do {
                try await client.abandoningIfStuck(grace: lostConnectionGrace) { [client, consumer] in
                    try await client.withConnection { connection in
                        let notices = try await connection.listen(PublishNotices.channel)
                        await consumer.wake()
                        for try await notice in notices where !PublishNotices.topics(in: notice.payload).isDisjoint(with: topics) {
                            await consumer.wake()
                        }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                logger.debug("publish notice listener reconnecting", metadata: ["error": .string(LogSafeError.describe(error))])
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }
}
