-- The life of an API key: an optional expiry, revocation (`toolfailure keys revoke`), when the key
-- was last used, and who created and revoked it from where (the audit record, beside the log line).
-- A revoked key keeps its row, so that listings and audits still show it; the authenticator refuses
-- it. last_used_at is written coalesced (at most once a minute per key per replica), not per call.
-- Key IDs were unique in practice (48 random bits); the index makes it a rule, so that
-- `keys revoke KEY_ID` names exactly one key.

-- +goose Up

ALTER TABLE api_keys
    ADD COLUMN created_by   text NOT NULL DEFAULT '',
    ADD COLUMN expires_at   timestamptz,
    ADD COLUMN revoked_at   timestamptz,
    ADD COLUMN revoked_by   text NOT NULL DEFAULT '',
    ADD COLUMN last_used_at timestamptz;

CREATE UNIQUE INDEX api_keys_id_key ON api_keys (id);

-- +goose Down

DROP INDEX api_keys_id_key;

ALTER TABLE api_keys
    DROP COLUMN created_by,
    DROP COLUMN expires_at,
    DROP COLUMN revoked_at,
    DROP COLUMN revoked_by,
    DROP COLUMN last_used_at;
