-- How many days of meals and body metrics the user keeps (issue 19): null keeps everything (the default), else
-- 1 to 36500. Meals and metrics learn it from user.profile_updated and purge older history themselves.
ALTER TABLE profiles ADD COLUMN history_retention_days integer
    CHECK (history_retention_days IS NULL OR history_retention_days BETWEEN 1 AND 36500);
