-- The first day of the user's calendar week (issue 50), from `user.profile_updated` (weekStart; absent in events
-- published before it existed: monday). Stats' `week` starts on it.
ALTER TABLE user_profiles ADD COLUMN week_start text NOT NULL DEFAULT 'monday';
