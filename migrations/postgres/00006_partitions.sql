-- Failure records in daily range partitions of their ID, and idempotency keys in a table of their
-- own. This replaces the design that 00003_retention.sql chose, because retention by batched
-- deletes pays WAL, dead tuples and vacuum for every expired row, and at millions of records a day
-- that is most of what the database does; a partition whose every record has expired is dropped
-- instead, which costs the same whatever its size.
--
-- The partition key is id, not created_at: id is a UUIDv7 whose leading 48 bits are the creation
-- time in milliseconds, and it is already in the primary key (tenant_id, id), which PostgreSQL
-- requires of a unique index on a partitioned table. So the key stays as it was, a lookup by
-- correlation ID prunes to the one partition its time falls in, and "newest first" walks the
-- partitions newest first and stops at its LIMIT (an ordered Append). A partition covers one UTC
-- day; the store creates them ahead of time and, should a record arrive for a day that has none
-- (a journal replaying an old outage, a clock far off), creates that one on the spot
-- (store/postgres/partitions.go).
--
-- Idempotency. A unique index on a partitioned table must contain the partition key, so
-- (tenant_id, idempotency_key) can no longer be unique across partitions. failure_keys holds one
-- row per key and the ID of the record that took it, with (tenant_id, idempotency_key) as its
-- primary key; a keyed insert writes its key row and its record in one statement, the record only
-- when the key row was new, so a key still maps to exactly one record and a racing second insert
-- waits for the first to commit, as the partial unique index made it do before. Key rows leave with
-- their records: in the batched deletes, and before a partition is dropped.
--
-- The existing table becomes the first partition, holding every record written before this
-- migration (up to the end of the next UTC day, or of the day after its newest record if that is
-- later), so nothing is copied: its indexes are attached to the new table's, which match them.
-- Attaching checks the bound by reading the table once. An empty table (a new installation) is
-- dropped instead, and partitions are made only for days that have records.

-- +goose Up

CREATE TABLE failure_keys (
    tenant_id       bigint NOT NULL,
    idempotency_key text   NOT NULL CHECK (idempotency_key <> ''),
    id              uuid   NOT NULL,
    PRIMARY KEY (tenant_id, idempotency_key)
);
-- The key rows of a tenant's expired records, and of a partition about to be dropped (every
-- tenant's, through = ANY on the tenants), are a range of this index.
CREATE INDEX failure_keys_id ON failure_keys (tenant_id, id);

INSERT INTO failure_keys (tenant_id, idempotency_key, id)
    SELECT tenant_id, idempotency_key, id FROM failures WHERE idempotency_key IS NOT NULL;

DROP INDEX failures_idempotency_key;
ALTER TABLE failures RENAME TO failures_p0;
ALTER INDEX failures_pkey RENAME TO failures_p0_pkey;
ALTER INDEX failures_tool RENAME TO failures_p0_tool;
ALTER INDEX failures_class_code RENAME TO failures_p0_class_code;
ALTER INDEX failures_trace_id RENAME TO failures_p0_trace_id;
ALTER INDEX failures_fingerprint RENAME TO failures_p0_fingerprint;
ALTER INDEX failures_created_fingerprint RENAME TO failures_p0_created_fingerprint;

CREATE TABLE failures (LIKE failures_p0 INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
    PARTITION BY RANGE (id);
ALTER TABLE failures ADD CONSTRAINT failures_pkey PRIMARY KEY (tenant_id, id);
CREATE INDEX failures_tool ON failures (tenant_id, tool, id DESC);
CREATE INDEX failures_class_code ON failures (tenant_id, class, code, id DESC);
CREATE INDEX failures_trace_id ON failures (tenant_id, trace_id) WHERE trace_id IS NOT NULL;
CREATE INDEX failures_fingerprint ON failures (tenant_id, fingerprint, id DESC);
CREATE INDEX failures_created_fingerprint ON failures (tenant_id, created_at) INCLUDE (fingerprint);

-- +goose StatementBegin
DO $$
DECLARE
    newest uuid;
    bound  timestamp;
    ms     text;
BEGIN
    -- PostgreSQL has no max() of uuid.
    SELECT id INTO newest FROM failures_p0 ORDER BY id DESC LIMIT 1;
    IF newest IS NULL THEN
        DROP TABLE failures_p0;
        RETURN;
    END IF;
    -- The start of the UTC day after both tomorrow and the newest record's day.
    bound := greatest(
        date_trunc('day', now() AT TIME ZONE 'UTC') + interval '1 day',
        date_trunc('day', to_timestamp(('x' || lpad(substr(replace(newest::text, '-', ''), 1, 12), 16, '0'))::bit(64)::bigint / 1000.0) AT TIME ZONE 'UTC') + interval '1 day');
    ms := lpad(to_hex((extract(epoch FROM bound) * 1000)::bigint), 12, '0');
    EXECUTE format('ALTER TABLE failures ATTACH PARTITION failures_p0 FOR VALUES FROM (MINVALUE) TO (%L)',
        substr(ms, 1, 8) || '-' || substr(ms, 9, 4) || '-0000-0000-000000000000');
END
$$;
-- +goose StatementEnd

-- +goose Down

CREATE TABLE failures_unpartitioned (LIKE failures INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
INSERT INTO failures_unpartitioned SELECT * FROM failures;
DROP TABLE failures;
ALTER TABLE failures_unpartitioned RENAME TO failures;
ALTER TABLE failures ADD CONSTRAINT failures_pkey PRIMARY KEY (tenant_id, id);
CREATE INDEX failures_tool ON failures (tenant_id, tool, id DESC);
CREATE INDEX failures_class_code ON failures (tenant_id, class, code, id DESC);
CREATE INDEX failures_trace_id ON failures (tenant_id, trace_id) WHERE trace_id IS NOT NULL;
CREATE INDEX failures_fingerprint ON failures (tenant_id, fingerprint, id DESC);
CREATE INDEX failures_created_fingerprint ON failures (tenant_id, created_at) INCLUDE (fingerprint);
CREATE UNIQUE INDEX failures_idempotency_key ON failures (tenant_id, idempotency_key)
    WHERE idempotency_key IS NOT NULL;
DROP TABLE failure_keys;
