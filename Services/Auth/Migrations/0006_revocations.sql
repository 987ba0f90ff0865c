-- Revocation at the edge (issue 22 item 3): every ended session (logout, logout-all, password change and reset,
-- refresh-token reuse) and every deleted account, kept until the last access token it could refuse has expired
-- (access-token lifetime plus the verifiers' leeway). Gateways poll them through GET /internal/revocations.
-- No foreign keys: an account's deletion is itself a revocation that must outlive the account's rows.
-- recorded_at is the database's clock at insert: the poll cursor is taken from the same clock, so the services'
-- and gateways' clocks never matter for what a poll returns.
CREATE TABLE revocations (
    id          bigserial PRIMARY KEY,
    user_id     uuid NOT NULL,
    session_id  uuid,
    revoked_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX revocations_by_recorded_at ON revocations (recorded_at);
CREATE INDEX revocations_by_expires_at ON revocations (expires_at);
