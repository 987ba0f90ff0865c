-- The first day of the user's calendar week (issue 50): stats' `week` starts on it. Carried by user.profile_updated
-- (weekStart); existing profiles keep Monday, the ISO week they were shown until now.
ALTER TABLE profiles ADD COLUMN week_start text NOT NULL DEFAULT 'monday'
    CHECK (week_start IN ('monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'));
