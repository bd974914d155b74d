-- The life of an API key, as in migrations/postgres/00009_api_key_lifecycle.sql; times in
-- microseconds since the epoch, NULL for none.

-- +goose Up

ALTER TABLE api_keys ADD COLUMN created_by TEXT NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN expires_at INTEGER;
ALTER TABLE api_keys ADD COLUMN revoked_at INTEGER;
ALTER TABLE api_keys ADD COLUMN revoked_by TEXT NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN last_used_at INTEGER;

CREATE UNIQUE INDEX api_keys_id_key ON api_keys (id);

-- +goose Down

DROP INDEX api_keys_id_key;
ALTER TABLE api_keys DROP COLUMN last_used_at;
ALTER TABLE api_keys DROP COLUMN revoked_by;
ALTER TABLE api_keys DROP COLUMN revoked_at;
ALTER TABLE api_keys DROP COLUMN expires_at;
ALTER TABLE api_keys DROP COLUMN created_by;
