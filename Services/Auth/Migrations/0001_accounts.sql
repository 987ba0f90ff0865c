-- Accounts, profiles and goals, sessions with rotating refresh tokens, password resets, login throttling,
-- and the mail outbox. Every row that belongs to a user goes when the user row goes (ON DELETE CASCADE).

CREATE TABLE users (
    id                  uuid PRIMARY KEY,
    email               text NOT NULL,
    -- Trimmed and lower-cased: addresses are compared case-insensitively.
    email_key           text NOT NULL UNIQUE,
    password_hash       text NOT NULL,
    created_at          timestamptz NOT NULL,
    password_changed_at timestamptz NOT NULL
);

CREATE TABLE profiles (
    user_id              uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    display_name         text NOT NULL,
    diet_preference      text NOT NULL,
    custom_protein_pct   double precision,
    custom_carbs_pct     double precision,
    custom_fat_pct       double precision,
    daily_calorie_goal   integer,
    protein_goal_grams   integer,
    carbs_goal_grams     integer,
    fat_goal_grams       integer,
    calorie_balance_goal integer,
    target_weight_kg     double precision,
    weight_unit          text NOT NULL,
    time_zone            text NOT NULL,
    height_cm            double precision,
    birth_date           date,
    sex                  text,
    activity_level       text,
    version              integer NOT NULL,
    updated_at           timestamptz NOT NULL
);

CREATE TABLE sessions (
    id             uuid PRIMARY KEY,
    user_id        uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at     timestamptz NOT NULL,
    last_used_at   timestamptz NOT NULL,
    -- Sliding: every refresh moves it to now + the session lifetime.
    expires_at     timestamptz NOT NULL,
    ended_at       timestamptz,
    -- logout, logout_all, password_changed, password_reset, refresh_token_reused
    ended_reason   text,
    user_agent     text,
    client_address text
);
CREATE INDEX sessions_active_by_user ON sessions (user_id) WHERE ended_at IS NULL;

-- Refresh tokens are stored only as SHA-256 hashes. A used token stays (with used_at) so that presenting it
-- again can be recognised as reuse.
CREATE TABLE refresh_tokens (
    token_hash bytea PRIMARY KEY,
    session_id uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    issued_at  timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX refresh_tokens_by_session ON refresh_tokens (session_id);

CREATE TABLE password_reset_tokens (
    token_hash bytea PRIMARY KEY,
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX password_reset_tokens_by_user ON password_reset_tokens (user_id);

-- Consecutive failed sign-ins per address (known or not, so the table reveals nothing about accounts).
CREATE TABLE login_failures (
    email_key       text PRIMARY KEY,
    failures        integer NOT NULL,
    last_failure_at timestamptz NOT NULL,
    locked_until    timestamptz
);

-- Mail waiting to be sent; the body is blanked once sent so reset links do not linger.
CREATE TABLE mail_outbox (
    id              bigserial PRIMARY KEY,
    user_id         uuid REFERENCES users (id) ON DELETE CASCADE,
    recipient       text NOT NULL,
    subject         text NOT NULL,
    body            text NOT NULL,
    created_at      timestamptz NOT NULL,
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL,
    sent_at         timestamptz
);
CREATE INDEX mail_outbox_due ON mail_outbox (next_attempt_at) WHERE sent_at IS NULL;
