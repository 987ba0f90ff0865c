-- The daily water goal (issue 33): millilitres a day, null without a goal, else 250 to 10000. Carried by
-- user.profile_updated (dailyWaterGoalMillilitres); the trends day summaries show the day's water against it.
ALTER TABLE profiles ADD COLUMN daily_water_goal_ml integer
    CHECK (daily_water_goal_ml IS NULL OR daily_water_goal_ml BETWEEN 250 AND 10000);
