-- Goal history (issue 20): the user's calendar date (in their zone) from which the current goals (calories, macros,
-- balance) are in force, sent with every `user.profile_updated` so trends judges each day by the goals of that day.
-- Profiles from before it count their goals from the day the account was made.

ALTER TABLE profiles ADD COLUMN goals_effective_from date;
UPDATE profiles p SET goals_effective_from = (u.created_at AT TIME ZONE 'UTC')::date FROM users u WHERE u.id = p.user_id;
UPDATE profiles SET goals_effective_from = (updated_at AT TIME ZONE 'UTC')::date WHERE goals_effective_from IS NULL;
ALTER TABLE profiles ALTER COLUMN goals_effective_from SET NOT NULL;
