-- Share links and the copies of meals and names they show. Nothing here reads another schema: meals arrive
-- as events (`meal.analyzed`, `meal.consumed`, `meal.deleted`), display names from `user.profile_updated`,
-- photos by one internal call to the meals service when the owner shares with the photo. Every row of a
-- user goes when `user.deleted` arrives.

-- The newest known state of every meal. `deleted` rows are tombstones (the content is wiped) that keep
-- late, older copies from bringing a meal back; their links answer 410.
CREATE TABLE meals (
    meal_id  uuid PRIMARY KEY,
    user_id  uuid NOT NULL,
    version  integer NOT NULL,
    deleted  boolean NOT NULL DEFAULT false,
    -- The MealSnapshot of the event as JSON; NULL for a tombstone.
    snapshot text
);
CREATE INDEX meals_by_user ON meals (user_id);

-- From `user.profile_updated`: the name a link shows when its owner allowed it.
CREATE TABLE display_names (
    user_id      uuid PRIMARY KEY,
    display_name text NOT NULL,
    version      integer NOT NULL
);

-- Users whose `user.deleted` was applied: their late meal and profile events are ignored.
CREATE TABLE deleted_users (
    user_id    uuid PRIMARY KEY,
    deleted_at timestamptz NOT NULL
);

CREATE TABLE links (
    -- 256 random bits, base64url; the secret in the public URL.
    token             text PRIMARY KEY,
    -- Stable order key for the owner's list (cursor tie-break).
    link_id           uuid NOT NULL UNIQUE,
    meal_id           uuid NOT NULL,
    user_id           uuid NOT NULL,
    created_at        timestamptz NOT NULL,
    expires_at        timestamptz NOT NULL,
    revoked_at        timestamptz,
    include_photo     boolean NOT NULL,
    show_display_name boolean NOT NULL,
    view_count        bigint NOT NULL DEFAULT 0,
    last_viewed_at    timestamptz
);
CREATE INDEX links_by_owner ON links (user_id, created_at DESC, link_id DESC);
CREATE INDEX links_by_meal ON links (meal_id);

-- The photo of a meal shared with its photo, copied once from the meals service at share time.
CREATE TABLE meal_photos (
    meal_id    uuid PRIMARY KEY,
    user_id    uuid NOT NULL,
    media_type text NOT NULL,
    bytes      bytea NOT NULL,
    -- SHA-256 of the bytes (base64url), the photo's ETag.
    digest     text NOT NULL
);
CREATE INDEX meal_photos_by_user ON meal_photos (user_id);
