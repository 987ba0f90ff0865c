import Foundation

/// One schema change: a name that sorts in application order, and the SQL to run once.
public struct Migration: Sendable, Equatable {
    public var name: String
    public var sql: String

    public init(name: String, sql: String) {
        self.name = name
        self.sql = sql
    }

    /// Reads every `NNNN_description.sql` in `directory`, sorted by name.
    public static func load(from directory: URL) throws -> [Migration] {
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "sql" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        return try files.map { Migration(name: $0.lastPathComponent, sql: try String(contentsOf: $0, encoding: .utf8)) }
    }

    /// The transactional outbox every producing schema has (`kit/0001_outbox`).
    public static let outbox = Migration(
        name: "kit/0001_outbox",
        sql: """
            CREATE TABLE outbox (
                id           bigserial PRIMARY KEY,
                event_id     uuid        NOT NULL UNIQUE,
                topic        text        NOT NULL,
                message_key  text        NOT NULL,
                payload      bytea       NOT NULL,
                created_at   timestamptz NOT NULL DEFAULT now(),
                sent_at      timestamptz,
                kafka_partition integer,
                kafka_offset bigint
            );
            CREATE INDEX outbox_unsent ON outbox (id) WHERE sent_at IS NULL;
            CREATE INDEX outbox_sent_at ON outbox (sent_at) WHERE sent_at IS NOT NULL;
            CREATE FUNCTION outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_notify(current_schema() || '_outbox', '');
                RETURN NULL;
            END $$;
            CREATE TRIGGER outbox_inserted AFTER INSERT ON outbox
                FOR EACH STATEMENT EXECUTE FUNCTION outbox_notify();
            """)

    /// Lets the relay's lost-log check (is there a published row at or past this offset?) read an index range
    /// instead of scanning every retained row on each publish batch (`kit/0003_outbox_published_offsets`).
    public static let outboxPublishedOffsets = Migration(
        name: "kit/0003_outbox_published_offsets",
        sql: """
            CREATE INDEX outbox_published_offsets ON outbox (topic, kafka_partition, kafka_offset)
                WHERE sent_at IS NOT NULL;
            """)

    /// The W3C `traceparent` of the work that wrote each event (null while tracing is off), which the relay
    /// carries into the Kafka message headers (`kit/0004_outbox_traceparent`).
    public static let outboxTraceparent = Migration(
        name: "kit/0004_outbox_traceparent",
        sql: """
            ALTER TABLE outbox ADD COLUMN traceparent text;
            """)

    /// Every kit migration a publishing schema needs, in application order.
    public static let publishing: [Migration] = [outbox, outboxPublishedOffsets, outboxTraceparent]

    /// The inbox of processed event ids every consuming schema has (`kit/0002_inbox`).
    public static let inbox = Migration(
        name: "kit/0002_inbox",
        sql: """
            CREATE TABLE inbox (
                event_id     uuid        PRIMARY KEY,
                event_type   text        NOT NULL,
                processed_at timestamptz NOT NULL DEFAULT now()
            );
            CREATE INDEX inbox_processed_at ON inbox (processed_at);
            """)
}
