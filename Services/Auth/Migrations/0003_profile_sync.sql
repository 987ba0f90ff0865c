-- The profile area of the changes feed (issue 19). change_seq: the user's change number of the profile's last
-- write (sync_clocks, kit/0005_sync), so GET /api/sync/profile/changes reads "changed after n" in commit order.
-- modified_at and modified_tiebreak: the write stamp last-write-wins compares (the client's modifiedAt, or the
-- server's time, and a hash of the write).
ALTER TABLE profiles
    ADD COLUMN change_seq        bigint,
    ADD COLUMN modified_at       timestamptz,
    ADD COLUMN modified_tiebreak text;

-- Existing profiles: numbered per user (one profile each, so 1), stamped when they were last updated.
UPDATE profiles p SET change_seq = numbered.seq, modified_at = p.updated_at, modified_tiebreak = ''
FROM (SELECT user_id, row_number() OVER (PARTITION BY user_id ORDER BY updated_at, user_id) AS seq FROM profiles) numbered
WHERE numbered.user_id = p.user_id;

INSERT INTO sync_clocks (user_id, last_seq)
SELECT user_id, change_seq FROM profiles
ON CONFLICT (user_id) DO UPDATE SET last_seq = GREATEST(sync_clocks.last_seq, EXCLUDED.last_seq);

ALTER TABLE profiles
    ALTER COLUMN change_seq SET NOT NULL,
    ALTER COLUMN modified_at SET NOT NULL,
    ALTER COLUMN modified_tiebreak SET NOT NULL;

CREATE INDEX profiles_by_change_seq ON profiles (user_id, change_seq);
