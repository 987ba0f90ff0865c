-- The food composition table, the caller profiles the scorers use, meals with their items, photos and
-- custom meals. Rows of a user go when `user.deleted` arrives (photos follow their meal by cascade).

-- USDA SR24, imported at start from the setup step's data file (see Foods/FoodImporter.swift).
CREATE TABLE foods (
    id               text PRIMARY KEY,
    name             text NOT NULL,
    food_group       text NOT NULL,
    -- Per 100 g; sodium in mg, the rest in kcal or g.
    calories         double precision NOT NULL,
    protein          double precision NOT NULL,
    carbs            double precision NOT NULL,
    fat              double precision NOT NULL,
    fiber            double precision NOT NULL,
    sugars           double precision NOT NULL,
    saturated_fat    double precision NOT NULL,
    sodium           double precision NOT NULL,
    -- Every nutrient of the table by its name, per 100 g.
    nutrients        jsonb NOT NULL,
    -- [{"name": "large", "amount": 1, "grams": 50}, ...]
    measures         jsonb NOT NULL,
    -- What the scorers need: isAnimal, isMeat, isFish, isDairy, isEgg, isGrain, isLegume, hasAddedSugar, processing.
    traits           jsonb NOT NULL,
    processing_level smallint NOT NULL
);

-- One row per imported data file, so a restart with the same file imports nothing.
CREATE TABLE food_imports (
    checksum    text PRIMARY KEY,
    food_count  integer NOT NULL,
    imported_at timestamptz NOT NULL
);

-- The latest `user.profile_updated` of each user: diet, goals and time zone for scoring and local dates.
CREATE TABLE user_profiles (
    user_id  uuid PRIMARY KEY,
    profile  jsonb NOT NULL,
    version  integer NOT NULL
);

CREATE TABLE meals (
    id               uuid PRIMARY KEY,
    user_id          uuid NOT NULL,
    -- photo, text, manual or custom_meal
    origin           text NOT NULL,
    title            text NOT NULL,
    description      text,
    meal_type        text,
    capture_kind     text NOT NULL,
    eaten_at         timestamptz NOT NULL,
    -- The user's calendar date of eaten_at, in their time zone when the meal was last written.
    local_date       date NOT NULL,
    time_zone        text NOT NULL,
    is_consumed      boolean NOT NULL DEFAULT false,
    consumed_at      timestamptz,
    notes            text,
    edited           boolean NOT NULL DEFAULT false,
    version          integer NOT NULL,
    -- The items, totals and scores as answered (see Meals/MealRecord.swift).
    items            jsonb NOT NULL,
    totals           jsonb NOT NULL,
    health           jsonb,
    diet             jsonb NOT NULL,
    unrecognised     jsonb NOT NULL DEFAULT '[]',
    has_photo        boolean NOT NULL DEFAULT false,
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL
);
-- The list: newest first per user, with the cursor (eaten_at, id).
CREATE INDEX meals_by_user_time ON meals (user_id, eaten_at DESC, id DESC);
CREATE INDEX meals_by_user_date ON meals (user_id, local_date);

CREATE TABLE meal_photos (
    meal_id    uuid PRIMARY KEY REFERENCES meals (id) ON DELETE CASCADE,
    user_id    uuid NOT NULL,
    media_type text NOT NULL,
    bytes      bytea NOT NULL
);

CREATE TABLE custom_meals (
    id          uuid PRIMARY KEY,
    user_id     uuid NOT NULL,
    name        text NOT NULL,
    meal_type   text,
    -- The item requests as saved; logging one resolves them against the food table again.
    items       jsonb NOT NULL,
    version     integer NOT NULL,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL
);
CREATE INDEX custom_meals_by_user ON custom_meals (user_id, name, id);
