-- Packaged products, one per barcode (GTIN-14), from users (`community`) or fetched from Open Food Facts, with every
-- version of their details, users' reports, and the barcodes Open Food Facts lacked when asked.
-- Search over names and brands uses pg_trgm's word similarity from schema `extensions`, which the database bootstrap
-- creates as superuser (deploy/lib/postgres.sh, docs/DEPLOYING.md); queries name it `extensions.`, so that a service
-- running in another schema (the tests do) finds it too.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                   WHERE e.extname = 'pg_trgm' AND n.nspname = 'extensions') THEN
        RAISE EXCEPTION 'the pg_trgm extension is not in schema extensions: run the database bootstrap as superuser '
            '(CREATE SCHEMA extensions; GRANT USAGE ON SCHEMA extensions TO PUBLIC; CREATE EXTENSION pg_trgm SCHEMA extensions)';
    END IF;
END
$$;

CREATE TABLE products (
    id           uuid PRIMARY KEY,
    gtin         text NOT NULL UNIQUE CHECK (gtin ~ '^[0-9]{14}$'),
    source       text NOT NULL CHECK (source IN ('community', 'openfoodfacts')),
    -- Nil for Open Food Facts products, and once the author deleted their account (the product stays).
    author_id    uuid,
    name         text NOT NULL,
    brand        text,
    -- The whole details (ProductDetails as JSON): name, brand, basis, nutrients per 100, serving, allergens, flags.
    details      jsonb NOT NULL,
    version      integer NOT NULL,
    status       text NOT NULL DEFAULT 'offered' CHECK (status IN ('offered', 'held', 'removed')),
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL,
    -- When Open Food Facts last gave it (its refresh is due after FOODS_OFF_REFRESH_AFTER_HOURS).
    fetched_at   timestamptz,
    held_at      timestamptz
);
CREATE INDEX products_author ON products (author_id, created_at DESC) WHERE author_id IS NOT NULL;
CREATE INDEX products_held ON products (held_at) WHERE status = 'held';
CREATE INDEX products_name_trgm ON products USING gin (name extensions.gin_trgm_ops);
CREATE INDEX products_brand_trgm ON products USING gin (brand extensions.gin_trgm_ops);

CREATE TABLE product_versions (
    product_id   uuid NOT NULL REFERENCES products (id) ON DELETE CASCADE,
    version      integer NOT NULL,
    details      jsonb NOT NULL,
    -- Who made this version: the author; nil for Open Food Facts fetches and deleted accounts.
    editor_id    uuid,
    edited_at    timestamptz NOT NULL,
    PRIMARY KEY (product_id, version)
);

CREATE TABLE product_reports (
    product_id   uuid NOT NULL REFERENCES products (id) ON DELETE CASCADE,
    -- Nil once the reporter deleted their account (the report still counts).
    reporter_id  uuid,
    reason       text NOT NULL,
    note         text,
    reported_at  timestamptz NOT NULL
);
CREATE UNIQUE INDEX product_reports_once ON product_reports (product_id, reporter_id) WHERE reporter_id IS NOT NULL;

-- Barcodes Open Food Facts answered "product not found" for, so that a popular unknown code is not asked again before
-- FOODS_OFF_MISS_TTL_HOURS.
CREATE TABLE barcode_misses (
    gtin         text PRIMARY KEY,
    checked_at   timestamptz NOT NULL
);
