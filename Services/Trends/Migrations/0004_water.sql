-- Water (issue 33): each day's water total from `water.logged` (newest version of a day wins; a day whose entries
-- were all removed keeps a row of 0, so a late older copy stays out), and the daily water goal from
-- `user.profile_updated` (dailyWaterGoalMillilitres; null: no goal). Day summaries show the day's water against it.
CREATE TABLE water_days (
    user_id      uuid NOT NULL,
    day          date NOT NULL,
    millilitres  integer NOT NULL,
    entry_count  integer NOT NULL,
    version      integer NOT NULL,
    PRIMARY KEY (user_id, day)
);

ALTER TABLE user_profiles ADD COLUMN daily_water_goal_ml integer;
