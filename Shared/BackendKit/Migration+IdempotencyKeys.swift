import PostgresSupport

extension Migration {
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
}
