-- One call's two records, linked, as in migrations/postgres/00011_same_call.sql: the 16-byte ID
-- of the record that holds the idempotency key that this record was stored without, and an index
-- of only the rows with a link, for the lookup of the record they name.

-- +goose Up

ALTER TABLE failures ADD COLUMN same_call_as BLOB;
CREATE INDEX failures_same_call_as ON failures (tenant_id, same_call_as) WHERE same_call_as IS NOT NULL;

-- +goose Down

DROP INDEX failures_same_call_as;
ALTER TABLE failures DROP COLUMN same_call_as;
