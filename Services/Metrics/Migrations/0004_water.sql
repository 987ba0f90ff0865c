-- Water intake (issue 33): entries the user logs several times a day, each its own entity (the client's or the
-- server's id), summed per day. A removed entry's row goes and a sync_tombstones row (type water_entry, id the entry)
-- tells the changes feed; edits never bring a removed id back. water_days holds each day's water version, which
-- `water.logged` carries with the day's total (the trends read model keeps the newest version of a day).
CREATE TABLE water_entries (
    user_id           uuid NOT NULL,
    id                uuid NOT NULL,
    day               date NOT NULL,
    millilitres       integer NOT NULL CHECK (millilitres BETWEEN 1 AND 10000),
    version           integer NOT NULL,
    created_at        timestamptz NOT NULL,
    updated_at        timestamptz NOT NULL,
    -- The WriteStamp of the last applied write, compared by last-write-wins.
    modified_at       timestamptz NOT NULL,
    modified_tiebreak text NOT NULL,
    -- The user's change number of the entry's last change (SyncClock).
    change_seq        bigint NOT NULL,
    PRIMARY KEY (user_id, id)
);
CREATE INDEX water_entries_by_day ON water_entries (user_id, day);
CREATE INDEX water_entries_by_seq ON water_entries (user_id, change_seq);

CREATE TABLE water_days (
    user_id uuid NOT NULL,
    day     date NOT NULL,
    version integer NOT NULL,
    PRIMARY KEY (user_id, day)
);
