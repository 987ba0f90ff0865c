import PostgresSupport

extension Migration {
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
}
