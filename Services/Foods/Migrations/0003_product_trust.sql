-- How far a community product can be trusted, and who may hold one back (issue 50 item 9).
--
-- A barcode may now hold two products: a user's (`community`) and Open Food Facts' one, whose data is preferred once
-- OFF has the code; the user's stays for those who logged it, marked as differing when its nutrients do. Still one
-- of each per barcode.
ALTER TABLE products DROP CONSTRAINT products_gtin_key;
CREATE UNIQUE INDEX products_gtin_source ON products (gtin, source);

-- Whether a report counts towards holding its product: only from an established account (FOODS_ESTABLISHED_*), and
-- never on an Open Food Facts product (kept for the operator). Reports before this migration counted.
ALTER TABLE product_reports ADD COLUMN counted boolean NOT NULL DEFAULT true;
-- A reporter's reports of the last day (FOODS_REPORTS_PER_DAY).
CREATE INDEX product_reports_reporter ON product_reports (reporter_id, reported_at) WHERE reporter_id IS NOT NULL;

-- What foods knows of an account from the events it consumes (never by asking auth): when it first saw the account
-- (the earliest event time of a `user.profile_updated` or meal event of theirs; registration publishes the first
-- profile), and how many meals the account has logged (consumed now). Together they say whether the account is
-- established: whose reports count and whose logging confirms a product.
CREATE TABLE known_accounts (
    user_id        uuid PRIMARY KEY,
    first_seen_at  timestamptz NOT NULL,
    logged_meals   integer NOT NULL DEFAULT 0 CHECK (logged_meals >= 0)
);

-- The newest state of every meal foods was told of (`meal.*`), so that a redelivered or overtaken older copy changes
-- nothing, and a deleted meal stays deleted. `logged_meals` above counts the consumed ones; `product_uses` follows it.
CREATE TABLE meal_states (
    meal_id   uuid PRIMARY KEY,
    user_id   uuid NOT NULL,
    version   integer NOT NULL,
    consumed  boolean NOT NULL,
    deleted   boolean NOT NULL
);
CREATE INDEX meal_states_user ON meal_states (user_id);
