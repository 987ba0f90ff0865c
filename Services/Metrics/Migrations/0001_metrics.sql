-- Daily body metrics (one row per user and calendar day) and what the service knows of each user's profile.
-- A row whose weight and ketones were both removed stays as a tombstone so its version keeps counting up;
-- rows of a user go when `user.deleted` arrives.

CREATE TABLE daily_metrics (
    user_id     uuid NOT NULL,
    day         date NOT NULL,
    weight_kg   double precision CHECK (weight_kg IS NULL OR weight_kg BETWEEN 20 AND 500),
    ketones     double precision CHECK (ketones IS NULL OR ketones BETWEEN 0 AND 10),
    notes       text,
    -- Increases with every change of the day; carried by `weight.logged`.
    version     integer NOT NULL,
    updated_at  timestamptz NOT NULL,
    PRIMARY KEY (user_id, day)
);

-- From `user.profile_updated`: the zone that decides "today" and the unit weights are answered in.
CREATE TABLE user_profiles (
    user_id      uuid PRIMARY KEY,
    weight_unit  text NOT NULL,
    time_zone    text NOT NULL,
    version      integer NOT NULL
);
