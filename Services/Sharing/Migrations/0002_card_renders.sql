-- PNG renders of share cards (`GET /shared/:token/card.png`). A render is made once for each distinct card and
-- reused by every request and every link that shows the same card. `source_digest` is the SHA-256 (base64url) of
-- the card's SVG with the photo's digest standing for the photo, so it changes with the meal's version, the
-- display name shown and whether the photo is included. Renders of older versions go when a newer version
-- arrives, all of a meal's renders when it is deleted, and all of a user's with `user.deleted`.
CREATE TABLE card_renders (
    meal_id       uuid NOT NULL,
    user_id       uuid NOT NULL,
    meal_version  integer NOT NULL,
    source_digest text NOT NULL,
    png           bytea NOT NULL,
    rendered_at   timestamptz NOT NULL,
    PRIMARY KEY (meal_id, source_digest)
);
CREATE INDEX card_renders_by_user ON card_renders (user_id);
