-- Fingerprints, as in migrations/postgres/00005_fingerprints.sql: the 64-bit value of a record's
-- 16 hex characters, NULL on records written before. SQLite has no INCLUDE, so the window index
-- carries the fingerprint as its last key column, which serves the same index-only scan.

-- +goose Up

ALTER TABLE failures ADD COLUMN fingerprint INTEGER;
CREATE INDEX failures_fingerprint ON failures (tenant_id, fingerprint, id DESC);
CREATE INDEX failures_created_fingerprint ON failures (tenant_id, created_at, fingerprint);

-- +goose Down

DROP INDEX failures_created_fingerprint;
DROP INDEX failures_fingerprint;
ALTER TABLE failures DROP COLUMN fingerprint;
