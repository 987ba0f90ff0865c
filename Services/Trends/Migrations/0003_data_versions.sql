-- Issue 21: the dashboard reads are served from reports computed once and kept in memory. A report is fresh
-- while the user's data version is the one it was computed at: the projection bumps the version in the same
-- transaction as every event of the user it applies, and every read checks it first with one indexed look-up.
-- Being in the database, the check holds for any number of replicas. `user.deleted` deletes the row with the rest
-- of the user's data (their reports are then at version 0, which no report kept from before has), and later
-- events of a deleted user bump nothing.
CREATE TABLE user_data_versions (
    user_id uuid PRIMARY KEY,
    version bigint NOT NULL
);
