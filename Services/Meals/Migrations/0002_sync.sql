-- Offline-first sync: every meal and custom meal carries the change number the changes feed orders by (per user,
-- handed out in commit order by `sync_clocks`), and the stamp of its last write for last-write-wins: the
-- client's `modifiedAt` (server time without one) and a tiebreak from the write's bytes. Rows written before
-- this migration are numbered per user in the order they were last written.

ALTER TABLE meals ADD COLUMN change_seq bigint NOT NULL DEFAULT 0,
                  ADD COLUMN modified_at timestamptz,
                  ADD COLUMN modified_tiebreak text NOT NULL DEFAULT '';
ALTER TABLE custom_meals ADD COLUMN change_seq bigint NOT NULL DEFAULT 0,
                         ADD COLUMN modified_at timestamptz,
                         ADD COLUMN modified_tiebreak text NOT NULL DEFAULT '';
UPDATE meals SET modified_at = updated_at;
UPDATE custom_meals SET modified_at = updated_at;
ALTER TABLE meals ALTER COLUMN modified_at SET NOT NULL;
ALTER TABLE custom_meals ALTER COLUMN modified_at SET NOT NULL;

WITH numbered AS (
    SELECT kind, id, user_id, row_number() OVER (PARTITION BY user_id ORDER BY updated_at, id) AS seq
    FROM (SELECT 'meal' AS kind, id, user_id, updated_at FROM meals
          UNION ALL SELECT 'custom_meal', id, user_id, updated_at FROM custom_meals) AS everything
), meals_numbered AS (
    UPDATE meals m SET change_seq = n.seq FROM numbered n WHERE n.kind = 'meal' AND m.id = n.id
), custom_numbered AS (
    UPDATE custom_meals c SET change_seq = n.seq FROM numbered n WHERE n.kind = 'custom_meal' AND c.id = n.id
)
INSERT INTO sync_clocks (user_id, last_seq) SELECT user_id, max(seq) FROM numbered GROUP BY user_id;

CREATE INDEX meals_by_user_change ON meals (user_id, change_seq);
CREATE INDEX custom_meals_by_user_change ON custom_meals (user_id, change_seq);
