-- Offline-first sync (issue 19): each day's change number for the changes feed, its last-write-wins stamp, and
-- tombstones of the days already emptied.
--
-- Emptied days, the decision: a day whose weight and ketones are both removed (by the user, or by history
-- retention) keeps its row of nulls in daily_metrics AND is recorded in sync_tombstones (type body_metrics_day,
-- id the day). The row keeps the day's version counting up, which the trends read model needs (it keeps the newest
-- version of a day and would ignore a count that restarted); the tombstone is what the changes feed shows, and
-- purging it after SYNC_TOMBSTONE_RETENTION_DAYS moves the user's 410 horizon. Filling the day again removes its
-- tombstone; the feed's live side leaves emptied rows out.

-- change_seq: the user's change number of the day's last change (SyncClock); 0 only on the placeholder row a
-- change inserts and fills in the same transaction. modified_at/modified_tiebreak: the WriteStamp of the last
-- applied write (null: never written), compared by last-write-wins.
ALTER TABLE daily_metrics
    ADD COLUMN change_seq        bigint NOT NULL DEFAULT 0,
    ADD COLUMN modified_at       timestamptz,
    ADD COLUMN modified_tiebreak text;

-- Existing days: numbered per user in the order they were last changed, stamped with their last change time.
UPDATE daily_metrics d
SET change_seq = numbered.seq, modified_at = d.updated_at, modified_tiebreak = ''
FROM (
    SELECT user_id, day, row_number() OVER (PARTITION BY user_id ORDER BY updated_at, day) AS seq FROM daily_metrics
) numbered
WHERE d.user_id = numbered.user_id AND d.day = numbered.day;

CREATE INDEX daily_metrics_by_seq ON daily_metrics (user_id, change_seq);

-- Days emptied before this migration are tombstones from now on.
INSERT INTO sync_tombstones (user_id, entity_type, entity_id, version, deleted_at, change_seq)
SELECT user_id, 'body_metrics_day', day::text, version, updated_at, change_seq FROM daily_metrics
WHERE weight_kg IS NULL AND ketones IS NULL
ON CONFLICT (user_id, entity_type, entity_id) DO NOTHING;

-- Each user's clock starts after their last numbered day.
INSERT INTO sync_clocks (user_id, last_seq)
SELECT user_id, max(change_seq) FROM daily_metrics GROUP BY user_id
ON CONFLICT (user_id) DO UPDATE SET last_seq = GREATEST(sync_clocks.last_seq, EXCLUDED.last_seq);
