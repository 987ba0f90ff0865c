import PostgresSupport

/// The kit migrations of the outbox (publishing schemas) and of the inbox and parked events (consuming schemas).
extension Migration {
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

    /// After a broker lost its log, the retained rows go out again behind the events written since
    /// (`kit/0005_outbox_republish_lane`): `requeued_at` marks a row unsent for a second publication, and the relay
    /// takes rows never published first (`OutboxRelay`). Retention counts from a row's creation, so publishing it
    /// again does not keep it longer.
    public static let outboxRepublishLane = Migration(
        name: "kit/0005_outbox_republish_lane",
        sql: """
            ALTER TABLE outbox ADD COLUMN requeued_at timestamptz;
            CREATE INDEX outbox_unsent_in_lanes ON outbox ((requeued_at IS NOT NULL), id) WHERE sent_at IS NULL;
            DROP INDEX outbox_unsent;
            CREATE INDEX outbox_retained ON outbox (created_at) WHERE sent_at IS NOT NULL;
            DROP INDEX outbox_sent_at;
            """)

    /// Every kit migration a publishing schema needs, in application order.
    public static let publishing: [Migration] = [outbox, outboxPublishedOffsets, outboxTraceparent, outboxRepublishLane]

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
}
