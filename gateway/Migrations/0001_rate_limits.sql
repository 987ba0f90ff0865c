-- Rate-limit windows shared by every gateway (docs/GATEWAY.md, "Rate limits across gateways"). One row per policy and client
-- (`ip:...` or `user:...`): the window closes at `closes_at` (opened by the client's first request, as in a gateway's
-- own memory), `used` is the budget granted so far in it (never above the policy's limit), `granted` what the last
-- statement granted (an upsert cannot return the row's previous value, so it records the difference). Closed windows
-- are deleted by the gateways in the background.
CREATE TABLE rate_limit_windows (
    policy     text NOT NULL,
    client_key text NOT NULL,
    closes_at  timestamptz NOT NULL,
    used       integer NOT NULL,
    granted    integer NOT NULL,
    PRIMARY KEY (policy, client_key)
);
CREATE INDEX rate_limit_windows_by_close ON rate_limit_windows (closes_at);
