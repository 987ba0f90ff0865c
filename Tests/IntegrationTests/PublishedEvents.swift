import EventContracts
import Foundation
import Kafka
import PostgresSupport
import Synchronization
import Testing

/// What tells a reader of a topic that it has read every message it counts, so that "exactly once" is checked on a
/// known state rather than after a pause. Both rest on the outbox relay publishing a service's rows in the order they
/// were written, keyed by their subject: the messages of one subject share a partition, where they are read in order.
enum PublishedUpTo: Sendable {
    /// The first message of the subject that the closure accepts: an event the test made the same service publish
    /// after the ones it counts (a later change by the same user), so that every copy of them published before it has
    /// been read when it arrives. It is not counted.
    case marker(@Sendable ([UInt8]) -> Bool)
    /// The last message the service's outbox (in `database`, its schema) records as published for the subject on the
    /// topic, once it has no unsent row for them: for an event after which the service publishes nothing more about
    /// the subject (a deleted user). A copy published twice by the relay is read, as the row keeps the later offset.
    case outbox(PostgresPool)
}

/// Every message on `topic` whose subject is `subject`, read from the start by a fresh consumer group up to `end`;
/// fails the test (and answers what it read) when `end` is not reached within `timeout`.
func publishedEvents(
    subject: String, topic: Topic, upTo end: PublishedUpTo, timeout: Duration = .seconds(60), sourceLocation: SourceLocation = #_sourceLocation
) async throws -> [[UInt8]] {
    var published: (partition: Int32, offset: Int64)?
    if case .outbox(let database) = end {
        published = try await lastPublished(subject: subject, topic: topic, database: database, timeout: timeout)
        try #require(published != nil, "the outbox has not published \(topic.rawValue) for \(subject)", sourceLocation: sourceLocation)
    }
    let lastOffset = published
    let kafka = KafkaConfiguration(bootstrapServers: TestEnvironment.brokers, clientId: "itest-reader", consumerCloseWait: .zero)
    let consumer = try KafkaConsumer(
        configuration: kafka, groupId: "itest-\(UUID().uuidString.prefix(8))", topics: [topic.rawValue], logger: TestEnvironment.logger)
    let read = Mutex<(matches: [[UInt8]], reachedEnd: Bool)>(([], false))
    let reader = Task {
        for try await message in consumer.messages {
            guard let header = try? EventCoding.header(of: message.value), header.subject == subject else { continue }
            let isEnd: Bool
            switch end {
            case .marker(let isMarker):
                isEnd = isMarker(message.value)
                if !isEnd { read.withLock { $0.matches.append(message.value) } }
            case .outbox:
                read.withLock { $0.matches.append(message.value) }
                isEnd = message.partition == lastOffset?.partition && message.offset >= lastOffset?.offset ?? .max
            }
            if isEnd {
                read.withLock { $0.reachedEnd = true }
                return
            }
        }
    }
    let reached = try await TestEnvironment.eventually(timeout: timeout) { read.withLock { $0.reachedEnd } }
    reader.cancel()
    _ = await reader.result
    await consumer.close()
    #expect(reached, "\(topic.rawValue) for \(subject): the end of what is counted never arrived", sourceLocation: sourceLocation)
    return read.withLock { $0.matches }
}

/// The partition and offset of the last message the outbox in `database` published for `subject` on `topic`, once every
/// row of theirs is published; nil when none is within `timeout`.
private func lastPublished(subject: String, topic: Topic, database: PostgresPool, timeout: Duration) async throws -> (
    partition: Int32, offset: Int64
)? {
    var last: (partition: Int32, offset: Int64)?
    _ = try await TestEnvironment.eventually(timeout: timeout) {
        let rows = try await database.query(
            """
            SELECT count(*) FILTER (WHERE sent_at IS NULL), max(kafka_partition), max(kafka_offset) FROM outbox
            WHERE topic = \(topic.rawValue) AND message_key = \(subject)
            """, logger: TestEnvironment.logger)
        for try await (unsent, partition, offset) in rows.decode((Int, Int32?, Int64?).self) {
            guard unsent == 0, let partition, let offset else { return false }
            last = (partition, offset)
            return true
        }
        return false
    }
    return last
}
