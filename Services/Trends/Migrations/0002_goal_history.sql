-- Goal history (issue 20): the goals of each period, from the date they took effect (the user's calendar, as
-- `user.profile_updated` carries it in `goalsEffectiveFrom`). A day is judged by the period it falls in; days
-- before the first period by the first one. The goals known before this migration count from 2000-01-01, as they
-- were applied before it.

CREATE TABLE goal_history (
    user_id              uuid NOT NULL,
    effective_from       date NOT NULL,
    daily_calorie_goal   integer,
    protein_goal_grams   integer,
    carbs_goal_grams     integer,
    fat_goal_grams       integer,
    calorie_balance_goal integer,
    version              integer NOT NULL,
    PRIMARY KEY (user_id, effective_from)
);

INSERT INTO goal_history (user_id, effective_from, daily_calorie_goal, calorie_balance_goal, version)
SELECT user_id, DATE '2000-01-01', daily_calorie_goal, calorie_balance_goal, version FROM user_profiles;
