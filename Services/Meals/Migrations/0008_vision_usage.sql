-- What photo analysis costs each user (issue 33, item 8; MacroLog's "warns about API cost"). Every user's key gets an
-- id of its own when it is set (a new one at each PUT), so usage is counted per key without keeping anything derived
-- from the key itself.
ALTER TABLE user_vision_keys ADD COLUMN usage_key uuid NOT NULL DEFAULT gen_random_uuid();

-- One row per user, key ('server', or the usage_key of the user's own key), UTC calendar month and model, upserted
-- after every analysis the provider answered: the answers and the tokens the provider reported.
CREATE TABLE vision_usage (
    user_id           uuid NOT NULL,
    usage_key         text NOT NULL,
    month             date NOT NULL CHECK (extract(day FROM month) = 1),
    model             text NOT NULL,
    calls             integer NOT NULL,
    prompt_tokens     bigint NOT NULL,
    completion_tokens bigint NOT NULL,
    updated_at        timestamptz NOT NULL,
    PRIMARY KEY (user_id, month, usage_key, model)
);

-- The monthly budget a user set for the estimated cost of their own keys; analyses past 80% of it carry a usageWarning.
CREATE TABLE vision_budgets (
    user_id            uuid PRIMARY KEY,
    monthly_budget_usd double precision NOT NULL CHECK (monthly_budget_usd > 0),
    updated_at         timestamptz NOT NULL
);
