-- Read models built only from events; nothing here is the source of truth, and every row of a user goes
-- when `user.deleted` arrives. Versions carried by the events decide which copy wins, never arrival order.

-- From `user.profile_updated`: the zone that decides the user's "today", goals and optional body data.
CREATE TABLE user_profiles (
    user_id              uuid PRIMARY KEY,
    time_zone            text NOT NULL,
    weight_unit          text NOT NULL,
    daily_calorie_goal   integer,
    calorie_balance_goal integer,
    target_weight_kg     double precision,
    height_cm            double precision,
    birth_date           text,
    sex                  text,
    activity_level       text,
    version              integer NOT NULL
);

-- The latest known state of every meal, from `meal.analyzed`, `meal.consumed` and `meal.deleted`.
-- `has_state` is false for a row made by a `meal.deleted` that overtook the meal's full-state event;
-- `deleted` rows are tombstones that keep late, older copies from bringing a meal back.
CREATE TABLE meals (
    meal_id       uuid PRIMARY KEY,
    user_id       uuid NOT NULL,
    version       integer NOT NULL,
    has_state     boolean NOT NULL,
    deleted       boolean NOT NULL DEFAULT false,
    is_consumed   boolean NOT NULL DEFAULT false,
    -- The user's calendar day of the meal in the zone the meals service used when it was logged.
    local_date    date,
    eaten_at      timestamptz,
    title         text,
    meal_type     text,
    calories      double precision,
    protein       double precision,
    carbs         double precision,
    fat           double precision,
    fiber         double precision,
    health_score  integer,
    health_rating text,
    diet_score    integer,
    diet_band     text,
    -- The event's full snapshot (items, nutrients, explanations) for the history of a day.
    snapshot      jsonb
);
CREATE INDEX meals_by_day ON meals (user_id, local_date) WHERE has_state AND NOT deleted;
CREATE INDEX meals_by_user ON meals (user_id);

-- One row per user and day with at least one meal; recomputed from `meals` whenever a meal of that day changes.
CREATE TABLE daily_summaries (
    user_id           uuid NOT NULL,
    day               date NOT NULL,
    consumed_count    integer NOT NULL,
    scanned_count     integer NOT NULL,
    -- Sums over consumed meals only.
    calories          double precision NOT NULL,
    protein           double precision NOT NULL,
    carbs             double precision NOT NULL,
    fat               double precision NOT NULL,
    fiber             double precision NOT NULL,
    -- Means over consumed meals; null when none has a score.
    diet_score_mean   double precision,
    health_score_mean double precision,
    PRIMARY KEY (user_id, day)
);

-- From `weight.logged`: one row per user and day.
CREATE TABLE body_metrics (
    user_id    uuid NOT NULL,
    day        date NOT NULL,
    weight_kg  double precision,
    ketones    double precision,
    version    integer NOT NULL,
    PRIMARY KEY (user_id, day)
);

-- Users whose `user.deleted` was applied: events of theirs that arrive later (other topics are not ordered
-- with `user.deleted`) are ignored instead of recreating rows. Holds nothing but the random id.
CREATE TABLE deleted_users (
    user_id    uuid PRIMARY KEY,
    deleted_at timestamptz NOT NULL
);
