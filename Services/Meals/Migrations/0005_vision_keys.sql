-- Users' own vision provider keys (issue 20, MacroLog's "bring your own AI key"). The API key is stored only sealed
-- with AES-256-GCM under the service's key named key_id (MEALS_VISION_KEY_ENCRYPTION_KEY, rotated through
-- MEALS_VISION_KEY_ENCRYPTION_PREVIOUS_KEYS), bound to its user; it is never answered, logged or published.
CREATE TABLE user_vision_keys (
    user_id    uuid PRIMARY KEY,
    key_id     text NOT NULL,
    -- nonce, ciphertext and tag (CryptoKit's combined form).
    sealed     bytea NOT NULL,
    base_url   text NOT NULL,
    model      text NOT NULL,
    updated_at timestamptz NOT NULL
);
