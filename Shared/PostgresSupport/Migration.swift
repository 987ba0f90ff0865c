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

    /// The events a consuming schema received but could not apply yet (`kit/0007_parked_events`), see `ParkedEvents`:
    /// each is kept whole, with where it was read and why it waits, and retried after an upgrade. Its id is in the
    /// inbox too (the row is what says it is not applied yet), so a redelivery is a duplicate.
    public static let parkedEvents = Migration(
        name: "kit/0007_parked_events",
        sql: """
            CREATE TABLE parked_events (
                -- Park order: retried in it, and a user's later events wait behind their earlier ones.
                seq               bigserial   PRIMARY KEY,
                -- The envelope's id; for a message without a readable envelope, md5 of its bytes.
                event_id          uuid        NOT NULL UNIQUE,
                topic             text        NOT NULL,
                kafka_partition   integer     NOT NULL,
                kafka_offset      bigint      NOT NULL,
                -- The user the event is about (the envelope's subject, else the message key).
                subject           text        NOT NULL,
                -- Null when the envelope could not be read.
                event_type        text,
                dataschemaversion integer,
                payload           bytea       NOT NULL,
                traceparent       text,
                reason            text        NOT NULL,
                parked_at         timestamptz NOT NULL DEFAULT now(),
                last_attempt_at   timestamptz NOT NULL DEFAULT now(),
                attempts          integer     NOT NULL DEFAULT 1
            );
            CREATE INDEX parked_events_by_subject ON parked_events (subject, seq);
            """)

    /// Every kit migration a consuming schema needs, in application order.
    public static let consuming: [Migration] = [inbox, parkedEvents]

    /// What a schema that serves a changes feed keeps (`kit/0005_sync`): a change counter per user, tombstones of
    /// deleted entities, and the log of conflicts its last-write-wins rule resolved. See `SyncClock`.
    public static let sync = Migration(
        name: "kit/0005_sync",
        sql: """
            -- last_seq: the user's latest change number; taking the next one locks the row until commit, so
            -- numbers of one user are handed out in commit order. expired_through: the newest change number of a
            -- purged tombstone; a feed read from before it answers 410 sync_cursor_expired.
            CREATE TABLE sync_clocks (
                user_id         uuid PRIMARY KEY,
                last_seq        bigint NOT NULL,
                expired_through bigint NOT NULL DEFAULT 0
            );
            CREATE TABLE sync_tombstones (
                user_id     uuid        NOT NULL,
                entity_type text        NOT NULL,
                entity_id   text        NOT NULL,
                version     integer     NOT NULL,
                deleted_at  timestamptz NOT NULL,
                change_seq  bigint      NOT NULL,
                PRIMARY KEY (user_id, entity_type, entity_id)
            );
            CREATE INDEX sync_tombstones_by_seq ON sync_tombstones (user_id, change_seq);
            CREATE INDEX sync_tombstones_by_age ON sync_tombstones (deleted_at);
            CREATE TABLE sync_conflicts (
                id          uuid        PRIMARY KEY,
                user_id     uuid        NOT NULL,
                entity_type text        NOT NULL,
                entity_id   text        NOT NULL,
                -- stale_write_ignored or deletion_preserved
                resolution  text        NOT NULL,
                -- stored, incoming or deletion
                winner      text        NOT NULL,
                stored      jsonb       NOT NULL,
                incoming    jsonb       NOT NULL,
                resolved_at timestamptz NOT NULL
            );
            CREATE INDEX sync_conflicts_by_user ON sync_conflicts (user_id, resolved_at DESC, id DESC);
            CREATE INDEX sync_conflicts_by_age ON sync_conflicts (resolved_at);
            """)

    /// Responses kept for `Idempotency-Key` replays (`kit/0006_idempotency_keys`); see `IdempotencyMiddleware`.
    public static let idempotencyKeys = Migration(
        name: "kit/0006_idempotency_keys",
        sql: """
            CREATE TABLE idempotency_keys (
                user_id        uuid        NOT NULL,
                key            text        NOT NULL,
                -- SHA-256 of the method, path and body: the same key with another request is refused.
                request_hash   bytea       NOT NULL,
                -- While null the first request is in flight (until locked_until, after which it counts as abandoned).
                status         integer,
                headers        jsonb,
                body           bytea,
                locked_until   timestamptz NOT NULL,
                created_at     timestamptz NOT NULL,
                PRIMARY KEY (user_id, key)
            );
            CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);
            """)

    /// When each scheduled job last started a round on any replica (`kit/0008_scheduled_jobs`), see `ScheduledRounds`.
    public static let scheduledJobs = Migration(
        name: "kit/0008_scheduled_jobs",
        sql: """
            CREATE TABLE scheduled_jobs (
                name            text        PRIMARY KEY,
                last_started_at timestamptz NOT NULL
            );
            """)
}
