-- History retention (issue 19): how many days of body metrics the user keeps, from `user.profile_updated`
-- (historyRetentionDays; null keeps everything). The history-retention job empties older days through the same path
-- as a user's removal: the emptied row stays (its version keeps counting), a sync_tombstones row is recorded for the
-- changes feed, and `weight.logged` publishes the emptied day.
ALTER TABLE user_profiles ADD COLUMN history_retention_days integer;
